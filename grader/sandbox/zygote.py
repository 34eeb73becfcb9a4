"""The fork server: a clean process that has imported torch once and forks one worker per check.

Started by the judge with a scrubbed environment and nothing of the judge's in memory (no hidden
tests, no solutions; on the local runtime it is forked from its judge before the judge reads its
job, so it also holds the judge's imported modules, pytest among them: `serve_forked`), it answers these requests on its control socket (JSON, from the judge only):

- fork: with two file descriptors attached (the worker's channel and its output pipe), fork a
  worker in a new session, and answer its pid;
- wait: kill a worker and everything in its session, reap it, answer how it ended, remove its
  scratch folder; then kill and reap any process left behind (daemons reparent here: the zygote
  is a child subreaper). The zygote kills, not the judge: in the container the judge runs as
  another user and may not signal workers. With "detach" (the judge does not need the status)
  it answers once the kill is sent and reaps afterwards, before reading the next request;
- kill_all: kill and reap every worker and stray (a warm judge whose run was cancelled mid-check,
  `grader watch`); answer how many;
- peak, tree, process: a worker's memory peak (resetting the mark first if asked), its process
  tree's memory, the pid of the process that runs its code (see `Workers`);
- exit.

Each worker runs in `<scratch_root>/w<pid>`, a folder it makes itself (mode 0700).

Forking costs milliseconds where a fresh interpreter importing torch costs seconds; CUDA is never
initialised here, so workers may use it.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import select
import signal
import socket
import sys
import time

from grader.sandbox.cleanup import remove_tree
from grader.sandbox.hugepages import Collapser
from grader.sandbox.libc import PR_SET_PDEATHSIG, libc, prctl
from grader.sandbox.namespaces import PidNamespaces, outer_pid
from grader.sandbox.privileges import PR_SET_CHILD_SUBREAPER, PR_SET_THP_DISABLE
from grader.sandbox.treemem import PAGE, children_faults, tree_memory


def redirect_stdio(output_fd: int) -> None:
    """Standard input from /dev/null, standard output and error to `output_fd` (a forked worker,
    fork server or judge taking the place of what exec gave a fresh process)."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(output_fd, 1)
    os.dup2(output_fd, 2)


def _fork_server_settings() -> None:
    """What the fork server sets for itself however it was started: it dies with its judge,
    adopts the orphans its workers leave, and a write to a closed pipe ends it as in C."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)


def kill_session(pid: int) -> None:
    """SIGKILL a worker's whole session (its process group) and the worker itself."""
    for kill, target in ((os.killpg, pid), (os.kill, pid)):
        try:
            kill(target, signal.SIGKILL)
        except OSError:
            pass


def describe_status(status: int) -> dict:
    if os.WIFSIGNALED(status):
        return {"signal": os.WTERMSIG(status)}
    if os.WIFEXITED(status):
        return {"exit": os.WEXITSTATUS(status)}
    return {"exit": None}


def _children() -> list[int] | None:
    """This process's children, from /proc/self/task/*/children (a few microseconds), or None
    where the kernel has no such file (CONFIG_PROC_CHILDREN): then /proc is scanned."""
    try:
        tasks = os.listdir("/proc/self/task")
        found: list[int] = []
        for task in tasks:
            try:
                with open(f"/proc/self/task/{task}/children", "rb") as fh:
                    found += [int(pid) for pid in fh.read().split()]
            except FileNotFoundError:
                if os.path.isdir(f"/proc/self/task/{task}"):
                    return None  # the task exists but the kernel has no children file
        return found
    except OSError:
        return None


def _parent(pid: int | str) -> int | None:
    """The parent of process `pid`, from /proc/PID/stat; None when it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
        # ppid is the 2nd field after the parenthesised command name
        return int(stat[stat.rfind(b")") + 2:].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _stray_children(active: set[int]) -> list[int]:
    children = _children()
    if children is not None:
        return [pid for pid in children if pid not in active]
    me = os.getpid()
    return [int(entry) for entry in (os.listdir("/proc") if os.path.isdir("/proc") else [])
            if entry.isdigit() and _parent(entry) == me and int(entry) not in active]


def _reap_strays(active: set[int]) -> int:
    killed = 0
    for _ in range(50):
        strays = _stray_children(active)
        if not strays:
            break
        for pid in strays:
            kill_session(pid)
            try:
                os.waitpid(pid, 0)
                killed += 1
            except ChildProcessError:
                pass
    while True:  # zombies whose parent died before reaping them
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        if pid in active:
            active.discard(pid)
    return killed


def _resident() -> int:
    """This process's resident size in bytes (what a worker forked now starts with)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * PAGE


def peak_memory(pid: int, reset: bool = False, base: int | None = None) -> dict:
    """A worker's resident size and its peak since the last reset, in bytes, read from outside it,
    with what a measured call must also answer for: `others`, the memory its descendants hold
    (`tree_memory`), `child_faults`, the page faults of every process it started
    (`children_faults`), and `base`, this fork server's resident size when it forked the worker
    (`base`, recorded then; what a worker that has done nothing holds: the two share every page
    at first, and the fork server's own size changes as it collapses its memory into huge pages). `reset`: first set the peak mark back
    to the current size (/proc/PID/clear_refs "5"), so a measured call's peak is its own, not the
    process's lifetime peak (memory touched at import would hide it)."""
    answer: dict = {}
    try:
        if reset:
            with open(f"/proc/{pid}/clear_refs", "w") as fh:
                fh.write("5")
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    answer[key[2:].lower()] = int(value.split()[0]) * 1024
        answer["base"] = _resident() if base is None else base
    except (OSError, ValueError, IndexError) as exc:
        return {"error": f"cannot read the worker's memory: {exc}"}
    used, _ = tree_memory(pid, None)
    answer["others"] = max(0, (used or 0) - answer.get("rss", 0))
    answer["child_faults"] = children_faults(pid) * PAGE
    return answer


def _fork_worker(ctrl: socket.socket, request: dict, fds: list[int],
                 pid_namespaces: PidNamespaces | None = None) -> tuple[int, int]:
    """Fork a worker; answer its pid and the pipe on which it says which process runs the
    candidate's code (see `Workers`). A worker in private namespaces is forked as PID 1 of a PID
    namespace of its own where `pid_namespaces` can make one (see grader.sandbox.namespaces)."""
    channel_fd, output_fd = fds
    report_r, report_w = os.pipe()
    if pid_namespaces is not None and request.get("profile") == "namespaces":
        pid, made = pid_namespaces.fork()
    else:
        pid, made = os.fork(), False
    if pid == 0:  # the worker
        code = 70
        try:
            ctrl.close()
            os.close(report_r)
            request = {**request, "report_fd": report_w, "pid_namespace_made": made}
            os.setsid()
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            # What a measured call's processes write is counted in page faults (see
            # treemem.children_faults): orphans come back here, every fault is one 4 KiB page.
            # Neither can be undone: the seccomp filter refuses both prctl options.
            prctl(PR_SET_CHILD_SUBREAPER, 1)
            prctl(PR_SET_THP_DISABLE, 1)
            redirect_stdio(output_fd)
            os.close(output_fd)
            sys.stdout.reconfigure(line_buffering=True)
            sys.stderr.reconfigure(line_buffering=True)
            from grader.sandbox import verifier, worker

            # named by the pid the fork server knows (getpid() says 1 in a PID namespace of its own)
            scratch = os.path.join(request["scratch_root"], f"w{outer_pid() if made else os.getpid()}")
            os.mkdir(scratch, 0o700)
            sock = socket.socket(fileno=channel_fd)
            serve = verifier.serve if request.get("role") == "verifier" else worker.serve
            serve(sock, {**request, "scratch": scratch})
            code = 0
        finally:
            os._exit(code)
    os.close(channel_fd)
    os.close(output_fd)
    os.close(report_w)
    os.set_blocking(report_r, False)
    return pid, report_r


class Workers:
    """The fork server's live workers. Each is known by the pid of the process it forked (its
    child: what the judge names, waits for, kills with its session). In private namespaces that
    child is only a waiter and the candidate's code runs in the waiter's child, PID 1 of the
    worker's own PID namespace (see grader.sandbox.namespaces): the waiter writes that process's
    pid on a pipe before anything of the candidate's runs (the worker closes the pipe unwritten
    otherwise). Memory is read from, and the kill aimed at, that process (`process`)."""

    def __init__(self) -> None:
        self.active: set[int] = set()
        self._reports: dict[int, int] = {}  # worker -> the read end of its pipe, until read
        self._process: dict[int, int] = {}  # worker -> the process running the candidate's code
        # worker -> a pidfd of that process (where the kernel has them): the kill reaches it, never
        # a process that took its pid after it ended
        self._pidfds: dict[int, int] = {}

    def add(self, pid: int, report_fd: int) -> None:
        self.active.add(pid)
        self._reports[pid] = report_fd

    def process(self, pid: int) -> int | None:
        """The pid of the process running worker `pid`'s code: `pid` itself, its child in a PID
        namespace, or None while the worker has not said yet (it is still entering its sandbox)."""
        if pid in self._process:
            return self._process[pid]
        fd = self._reports.get(pid)
        if fd is None:
            return pid if pid in self.active else None
        try:
            data = os.read(fd, 32)
        except BlockingIOError:
            return None
        except OSError:
            data = b""
        os.close(fd)
        del self._reports[pid]
        process = int(data) if data.isdigit() else pid
        if process != pid:
            process = self._hold(pid, process)
        self._process[pid] = process
        return process

    def _hold(self, pid: int, process: int) -> int:
        """A pidfd of `process`, kept once it is known to be the waiter `pid`'s child (a pid read
        after the process ended may already name another); `pid` itself when it is not: the
        worker's process is gone, and what is left to read or kill is its waiter."""
        try:
            pidfd = os.pidfd_open(process)
        except (AttributeError, OSError):
            pidfd = None
        if _parent(process) != pid:
            if pidfd is not None:
                os.close(pidfd)
            return pid
        if pidfd is not None:
            self._pidfds[pid] = pidfd
        return process

    def discard(self, pid: int) -> None:
        self.active.discard(pid)
        self._process.pop(pid, None)
        for fds in (self._reports, self._pidfds):
            fd = fds.pop(pid, None)
            if fd is not None:
                os.close(fd)

    def kill(self, pid: int) -> None:
        """SIGKILL the worker: the process running its code first (PID 1 of its namespace: every
        process it started dies with it, and its waiter then ends as it ended), then, unless that
        is a separate process the waiter reports on, the worker's session."""
        process = self.process(pid)
        if process is not None and process != pid:
            try:
                pidfd = self._pidfds.get(pid)
                if pidfd is not None:
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                else:
                    os.kill(process, signal.SIGKILL)
            except OSError:
                pass
            return
        kill_session(pid)

    def reap(self, pid: int) -> int | None:
        """Wait for worker `pid` after `kill`: its waiter ends as soon as the worker does; one that
        has not within 2 s is killed with its session."""
        process = self._process.get(pid, pid)
        deadline = time.monotonic() + 2 if process != pid else None
        while True:
            try:
                done, status = os.waitpid(pid, os.WNOHANG if deadline else 0)
            except ChildProcessError:
                return None
            if done:
                return status
            if time.monotonic() > deadline:
                kill_session(pid)
                deadline = None
            else:
                time.sleep(0.001)


# What a feature's first use imports lazily in every worker (measured in a fresh interpreter with
# torch imported), imported by `warm_up` instead: "tensorboard": tensorboard and protobuf, 0.12 s.
# "export": torch.export.export's first call imports about 400 modules (aot_autograd, the
# partitioner and networkx, the serializer, the archive format), 0.45 s of CPU, 0.1 s once imported;
# torch.compile's aot_eager backend imports aot_autograd too. "onnx": torch.onnx.export's first call
# imports onnx, onnxscript and the exporter, 1.0 s (0.05 s once imported). onnxruntime is left out:
# importing it starts a thread, and the fork server forks.
WARM_MODULES = {
    "tensorboard": ("torch.utils.tensorboard",),
    "export": ("torch.export._trace", "torch._export.serde.serialize", "torch.export.pt2_archive._package",
               "torch._functorch.aot_autograd", "torch._functorch.partitioners"),
    "onnx": ("onnx", "onnxscript", "torch.onnx._internal.exporter._core"),
}


def warm_up(torch, features: set[str]) -> None:
    """Trigger torch's lazy imports once here rather than in every worker, for the features the
    judge asks for: "autograd" (grad with grad_outputs imports sympy through
    torch.fx.experimental.symbolic_shapes, ~500 modules, 0.4 s), "optim" (an optimizer's first step
    imports torch._dynamo, 1.3 s), and the features of `WARM_MODULES` ("tensorboard", "export",
    "onnx"): modules imported as they are, each feature's stopped by the first that is missing.

    By importing only. No backward pass runs here and nothing asks CUDA anything: the autograd
    engine's first backward starts one thread per accelerator (after which every forked worker
    fails "Unable to handle autograd's threading in combination with fork-based
    multiprocessing"), and a CUDA driver initialised before fork is broken in every child
    ("CUDA error: initialization error"). `tests/sandbox/test_sandbox_profile.py` holds this to it."""
    import torch.nn.functional as F
    import torch.utils.data  # noqa: F401

    if "autograd" in features:
        import sympy  # noqa: F401
        import torch.fx.experimental.symbolic_shapes  # noqa: F401
    layer = torch.nn.Linear(2, 2)
    with torch.no_grad():  # a forward pass only: kernels and dispatch tables, no graph, no engine
        F.cross_entropy(layer(torch.ones(1, 2)), torch.zeros(1, dtype=torch.long))
    if "optim" in features:
        import torch._dynamo  # noqa: F401
        import torch.optim

        torch.optim.SGD(layer.parameters(), lr=0.1).step()  # no gradients: only the lazy imports
    for feature in sorted(features & WARM_MODULES.keys()):
        for module in WARM_MODULES[feature]:
            try:
                importlib.import_module(module)
            except ImportError:  # not installed (the exercises' extra), or another torch's layout:
                break            # the candidate's import fails in the worker, or succeeds, as it would



def fork_server_state(torch) -> dict:
    """What a forked worker inherits that it must not: CUDA initialised, threads running (the
    autograd engine's device threads, a CUDA driver's). Sent with "ready" for tests and reports."""
    return {"cuda_initialized": bool(torch.cuda.is_initialized()),
            "threads": len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else None}


def prepare(warm: set[str]):
    """Import what every worker needs, once, and warm up `warm` (see `warm_up`); returns torch.
    The judge template (grader.runtimes.template) runs this too, before it forks anything: a fork
    server forked from it finds everything imported."""
    os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")  # see zygote_client.scrubbed_env
    # What every worker imports, imported once here. Beside numpy and torch: what nine workers in
    # ten imported on their own before (strace of validating 17 exercises): the serialization
    # settings torch reads lazily on a tensor's first pickling (torch.utils.serialization.config,
    # which reads its own source), and grader.probes (a probe that imports it in its body gets this
    # copy, watched by the tamper guard; 12 ms a worker: workers run with -B, so where PYTHONDONTWRITEBYTECODE is set the package has
    # no bytecode cache and each worker compiled it); multiprocessing's process-start modules, for
    # every DataLoader with workers; landlock, namespaces (and privileges, imported above): what
    # every worker imports while sandboxing itself (it was a third of a worker's set-up).
    import multiprocessing.popen_fork  # noqa: F401
    import multiprocessing.queues  # noqa: F401

    import numpy  # noqa: F401
    import numpy.random  # noqa: F401 - lazily imported by numpy; every worker seeds it (10 ms each)
    import torch
    import torch.utils.serialization.config  # noqa: F401

    import grader.probes  # noqa: F401
    import grader.sandbox.landlock  # noqa: F401
    import grader.sandbox.namespaces  # noqa: F401
    import grader.sandbox.registries  # noqa: F401
    import grader.sandbox.verifier  # noqa: F401
    import grader.sandbox.worker  # noqa: F401
    libc()  # loaded once here, before any fork (see grader.sandbox.libc)
    try:
        warm_up(torch, warm)
    except Exception as exc:  # noqa: BLE001 - an optimisation only: workers import lazily instead
        print(f"warm-up skipped: {exc!r}", file=sys.stderr)
    return torch


def main() -> None:
    ctrl = socket.socket(fileno=int(sys.argv[1]))  # a SOCK_SEQPACKET pair: one message per record
    scratch_root = sys.argv[2]
    _fork_server_settings()
    torch = prepare(set(sys.argv[3].split(",")) if len(sys.argv) > 3 else {"autograd", "optim"})
    serve(ctrl, scratch_root, torch)


def serve_forked(ctrl: socket.socket, scratch_root: str, warm: set[str], env: dict[str, str], log_fd: int) -> None:
    """Become the fork server in a child forked from a judge that was itself just forked from the
    judge template (grader.runtimes.template), before the judge read anything of its job: what
    `main` gets from its command line and exec (the scrubbed environment, the isolated import
    path, the output, the working folder) is set here instead. Never returns."""
    code = 70
    try:
        _fork_server_settings()  # its judge is its parent, as when the judge started it
        redirect_stdio(log_fd)
        os.chdir(scratch_root)
        os.environ.clear()
        os.environ.update(env)
        import tempfile

        tempfile.tempdir = None  # TMPDIR is the scratch folder now
        sys.dont_write_bytecode = True  # -B
        # -I: no working folder, no user site on the import path (the template's path was the
        # judge's, whose first entry is a folder of its own)
        import site

        user_site = site.getusersitepackages() if hasattr(site, "getusersitepackages") else None
        sys.path[:] = [p for p in sys.path[1:] if p and p != user_site]
        from grader.sandbox.proctitle import set_cmdline, set_environ

        set_environ(env)  # /proc/PID/environ still showed the template's (the judge's) environment
        set_cmdline([sys.executable, "-I", "-B", "-m", "grader.sandbox.zygote", str(ctrl.fileno()), scratch_root,
                     ",".join(sorted(warm)) or "none"])
        serve(ctrl, scratch_root, prepare(warm))
        code = 0
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def serve(ctrl: socket.socket, scratch_root: str, torch) -> None:
    """Answer the judge's requests on `ctrl` until it says exit or goes."""
    import grader.sandbox.callwatch
    import grader.sandbox.registries
    import grader.sandbox.tamper
    import grader.sandbox.worker
    import grader.sandbox.worker_setup

    grader.sandbox.registries.install()  # before the snapshot: a replaced wrapper is tampering
    grader.sandbox.callwatch.install()  # the audit hook that sees sys.setprofile, before any candidate code
    grader.sandbox.worker.PRISTINE = grader.sandbox.tamper.TamperGuard()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    workers = Workers()
    active = workers.active
    seeded: int | None = None  # the seed the generators were last set to here
    # Every object here is shared with the workers copy-on-write: keep the workers' garbage
    # collector from walking (and so copying) them all.
    gc.freeze()
    # and as huge pages: a fork copies, and a worker's exit takes down, one entry per 2 MiB; a
    # piece at a time whenever no request waits (the first checks' workers are forked before)
    collapser = Collapser()
    pid_namespaces = PidNamespaces()
    bases: dict[int, int] = {}  # worker -> this process's resident size when it was forked
    ctrl.send(json.dumps({"ready": True, "pid": os.getpid(), "hugepages": collapser.summary(),
                          **fork_server_state(torch)}).encode())
    while True:
        while collapser.pending and not select.select([ctrl], [], [], 0)[0]:
            collapser.step()
        msg, fds, _, _ = socket.recv_fds(ctrl, 65536, 4)
        if not msg:
            break
        request = json.loads(msg)
        op = request.get("op")
        rid = request.get("id")  # echoed: the judge drops an answer it stopped waiting for
        if op == "fork":
            seed = request.get("seed", 0)
            if seeded != seed:
                # Seeded here, once per seed, rather than in every worker: nothing in this process
                # draws a random number, so each child inherits the generators' state as seeding
                # leaves it (grader.sandbox.worker_setup.ensure_seeded).
                grader.sandbox.worker_setup.seed_everything(seed)
                seeded = seed
            base = _resident()
            pid, report_fd = _fork_worker(ctrl, {**request, "scratch_root": scratch_root, "preseeded": seeded},
                                          list(fds), pid_namespaces)
            workers.add(pid, report_fd)
            bases[pid] = base
            answer = {"pid": pid}
        elif op == "wait":
            pid = int(request["pid"])
            if pid in active:
                workers.kill(pid)
            if request.get("detach"):
                # The judge does not need how it ended: answer now and reap while the judge moves
                # on. Requests are served in order, so the reaping (strays included) is done before
                # the next worker is forked.
                ctrl.send(json.dumps({"exit": None, "detached": True, "id": rid}).encode())
            status = workers.reap(pid)
            answer = {"exit": None} if status is None else describe_status(status)
            workers.discard(pid)
            bases.pop(pid, None)
            answer["strays_killed"] = _reap_strays(active)
            left = remove_tree(os.path.join(scratch_root, f"w{pid}"))  # deep trees too; never raises
            if left:
                answer["cleanup"] = left[:500]
            if request.get("detach"):
                continue
        elif op == "kill_all":
            killed = len(active)
            for pid in list(active):
                workers.kill(pid)
                workers.reap(pid)
                workers.discard(pid)
                remove_tree(os.path.join(scratch_root, f"w{pid}"))
            answer = {"killed": killed}
            bases.clear()
            answer["strays_killed"] = _reap_strays(active)
        elif op == "peak":
            pid = int(request["pid"])
            process = workers.process(pid)
            answer = peak_memory(process, bool(request.get("reset")), bases.get(pid)) if process is not None \
                else {"error": "not a running worker of this fork server"}
        elif op == "tree":
            # the worker's tree as this process (the workers' user) sees it: in the container the
            # judge is another user, and the kernel hides the children's smaps_rollup from it
            process = workers.process(int(request["pid"]))
            if process is not None:
                used, count = tree_memory(process, os.getpid(), others=active - {process})
                answer = {"used": used, "count": count}
            else:
                answer = {"error": "not a running worker of this fork server"}
        elif op == "process":
            # which process runs a worker's code (see Workers): the judge reads its memory itself
            answer = {"process": workers.process(int(request["pid"]))}
        elif op == "hugepages":  # what the collapse has done so far (tests, reports)
            answer = {"hugepages": collapser.summary()}
        elif op == "exit":
            break
        else:
            answer = {"error": f"unknown op {op!r}"}
        answer["id"] = rid
        ctrl.send(json.dumps(answer).encode())
    for pid in list(active):
        workers.kill(pid)
    for pid in list(active) + _stray_children(set()):
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass


if __name__ == "__main__":
    main()
    # Nothing is left to flush or clean up: skip the interpreter's teardown of torch's modules
    # (about a second), which the judge would otherwise wait for at the end of every run.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
