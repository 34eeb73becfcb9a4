"""The judge template of the local runtime: one process that has imported torch, pytest and the
judge once, and forks a judge for each job, each of which forks its own fork server at once.

    python -m grader.runtimes.template CTRL_FD PADDING

Started by `JudgeTemplate` (below, used by grader.runtimes.local) with the judge's environment,
it reads no job, exercise or submission itself: what it holds before it forks is what every
judge and fork server imports anyway. A judge and a fork server started as fresh interpreters
cost about 2.3 CPU-s of imports per submission (torch twice); forked from here, milliseconds.

Each forked judge is what `python -m grader.judge SPEC` would be: a session of its own (so
`os.killpg` ends it with its fork server), its output in its log, its working folder, its
command line (rewritten in place: see grader.sandbox.proctitle). Its fork server is forked from
it before it reads its spec, then given the workers' scrubbed environment and isolated import
path (grader.sandbox.zygote.serve_forked).

Requests come on the control socket (JSON, SOCK_SEQPACKET): "fork", with one file descriptor
attached (a socket on which the template answers the judge's pid, then its exit status once it
has reaped it), and "exit".

What each fork server would do for itself, the template does once for every later judge: the
warm-ups the jobs ask for (imports of seconds: sympy, torch._dynamo) and the collapse of its
memory into huge pages. Not for a lone job, which would wait for work its own fork server does
beside its judge's start-up; from the second job on; and before the first when the request says
more jobs follow ("many": a batch, a split validation), so that no judge of a batch waits for
the template's warm-up and no fork server of it repeats one. When the control socket closes (its grader exited or was killed)
the template kills every judge it forked and exits; every judge dies with the template
(PR_SET_PDEATHSIG), and every fork server with its judge.
"""

from __future__ import annotations

import functools
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

# room for a judge's command line and a fork server's environment (rewritten in place: see
# grader.sandbox.proctitle), as an argument and as a variable the template then unsets
PADDING = "-" * 1024
PAD_VARIABLE = "GRADER_TEMPLATE_ROOM"
READY_TIMEOUT_S = 120


class TemplateUnavailable(RuntimeError):
    """The template did not start or has gone: judges are started as fresh interpreters instead."""


class ForkedJudge:
    """A judge forked by the template, with what the local runtime uses of `subprocess.Popen`:
    `pid` (also its process group), `args`, `wait(timeout)`, `poll()`."""

    def __init__(self, pid: int, report: socket.socket, spec_path: str):
        self.pid, self.report, self.returncode = pid, report, None
        self._lock = threading.Lock()
        self.args = ["python", "-m", "grader.judge", spec_path]

    def wait(self, timeout: float | None = None) -> int:
        # from two threads at once too (a cancel's kill and the grading thread): one reads
        if not self._lock.acquire(timeout=-1 if timeout is None else timeout):
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        try:
            if self.returncode is not None:
                return self.returncode
            self.report.settimeout(timeout)
            try:
                data = self.report.recv(4096)
            except TimeoutError:
                raise subprocess.TimeoutExpired(self.args, timeout or 0) from None
            except OSError:
                data = b""
            # no status: the template was killed (SIGKILL) and took its judges with it
            self.returncode = int(json.loads(data)["exit"]) if data else -int(signal.SIGKILL)
            self.report.close()
            return self.returncode
        finally:
            self._lock.release()

    def poll(self) -> int | None:
        try:
            return self.wait(0)
        except subprocess.TimeoutExpired:
            return None


class JudgeTemplate:
    """The client side: starts the template process and asks it for judges (from any thread)."""

    def __init__(self, python: str, env: dict[str, str]):
        self.owner_pid = os.getpid()  # a forked child of this process must not end it (close)
        self._lock = threading.Lock()
        self._log = tempfile.TemporaryFile()
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # its own session: a Ctrl-C at the terminal reaches the grader, which stops its judges
        self.proc = subprocess.Popen(
            [python, "-m", "grader.runtimes.template", str(child.fileno()), PADDING],
            pass_fds=[child.fileno()], env={**env, "PYTHONHASHSEED": "0", PAD_VARIABLE: PADDING}, cwd="/", stdin=subprocess.DEVNULL,
            stdout=self._log, stderr=self._log, start_new_session=True)
        child.close()
        self.ctrl: socket.socket | None = parent
        self.ready = False
        self.state: dict = {}  # what the template said of itself when ready (zygote.fork_server_state)

    def _await_ready(self) -> None:
        if self.ready:
            return
        if self.ctrl is None:
            raise TemplateUnavailable("the judge template was closed")
        self.ctrl.settimeout(READY_TIMEOUT_S)
        try:
            data = self.ctrl.recv(65536)
        except OSError as exc:
            data, why = b"", str(exc)
        else:
            why = "it exited"
        if not data:
            self._log.seek(0)
            log = self._log.read()[-2000:].decode(errors="replace")
            self._hang_up()  # not close(): the caller holds the lock that close() takes
            raise TemplateUnavailable(f"the judge template did not start ({why}): {log}")
        self.state = json.loads(data)
        self.ready = True

    def _hang_up(self) -> None:
        """Close the control socket, with `_lock` held by the caller; `close()` reaps the process."""
        ctrl, self.ctrl = self.ctrl, None
        if ctrl is not None:
            ctrl.close()

    def abort_start(self) -> None:
        """Kill the template while it is still starting, so that a judge waiting for it (fork)
        gets TemplateUnavailable now rather than once it is ready: grading was cancelled (Ctrl-C).
        Takes no lock; a template that is ready is left alone."""
        if not self.ready and getattr(self, "proc", None) is not None:
            try:
                self.proc.kill()
            except OSError:
                pass

    def fork(self, spec_path: str, cwd: str, log_path: str, scratch_root: str, warm_ups: list[str],
             many: bool = False) -> ForkedJudge:
        """Fork a judge for the job at `spec_path`. `many`: more jobs follow this one (see the
        module's docstring)."""
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            with self._lock:
                self._await_ready()
                if self.ctrl is None:
                    raise TemplateUnavailable("the judge template was closed")
                request = {"op": "fork", "spec": spec_path, "cwd": cwd, "log": log_path,
                           "scratch_root": scratch_root, "warm_ups": warm_ups, "many": many}
                try:
                    socket.send_fds(self.ctrl, [json.dumps(request).encode()], [theirs.fileno()])
                except OSError as exc:
                    raise TemplateUnavailable(f"the judge template has gone ({exc})") from None
        finally:
            theirs.close()
        mine.settimeout(60)
        try:
            data = mine.recv(4096)
        except OSError:
            data = b""
        if not data:
            mine.close()
            raise TemplateUnavailable("the judge template did not fork a judge (it has gone)")
        return ForkedJudge(int(json.loads(data)["pid"]), mine, spec_path)

    def alive(self) -> bool:
        """Not closed, and its process still runs."""
        return self.ctrl is not None and self.proc.poll() is None

    def close(self) -> None:
        """End the template (it kills any judge it still has) and reap it; in a forked child of
        the process that started it, nothing (the template is the parent's)."""
        if os.getpid() != self.owner_pid:
            return
        with self._lock:
            ctrl, self.ctrl = self.ctrl, None
        if ctrl is not None:
            try:
                ctrl.send(b'{"op": "exit"}')
            except OSError:
                pass
            ctrl.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._log.close()


# --- the template process ---------------------------------------------------------------------

def _become_judge(request: dict, template_pid: int, inherited: list) -> str:
    """In the forked child: become `python -m grader.judge SPEC` (see the module's docstring)."""
    from grader.sandbox.libc import PR_SET_PDEATHSIG, prctl
    from grader.sandbox.zygote import redirect_stdio

    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for thing in inherited:  # the template's sockets and pipe: the other judges' among them
        if isinstance(thing, int):
            os.close(thing)
        else:
            thing.close()
    os.setsid()
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != template_pid:  # the template died before the death signal was set
        os._exit(70)
    log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    redirect_stdio(log)
    os.close(log)
    os.chdir(request["cwd"])
    sys.path.insert(0, request["cwd"])  # as `python -m` run there would have it
    from grader.sandbox.proctitle import set_cmdline, set_environ

    set_cmdline([sys.executable, "-m", "grader.judge", request["spec"]])
    set_environ(dict(os.environ))  # without the template's padding
    from grader.sandbox.zygote_client import Zygote

    # before anything of the job is read: the fork server holds only what the template held
    Zygote(request["scratch_root"], warm_ups=request["warm_ups"]).fork_here()
    return request["spec"]


def main() -> None:
    # `CTRL_FD PADDING`: one grader's template, on the socket it was started with; `--listen FD
    # IDLE_S PADDING`: a node's shared template, accepting graders on a listening socket (see
    # grader.runtimes.template_shared)
    shared = sys.argv[1] == "--listen"
    if shared and os.fork() > 0:
        # a grandchild of the process that started it, which reaps this one at once: a Ray worker
        # kills its children when it exits (RAY_kill_child_processes_on_worker_exit), and a node's
        # template is meant to outlive the worker that started it
        os._exit(0)
    listener = socket.socket(fileno=int(sys.argv[2 if shared else 1]))
    idle_s = float(sys.argv[3]) if shared else 0.0
    del sys.path[0]  # the working folder `python -m` put first ("/"): a judge puts its own there
    os.environ.pop(PAD_VARIABLE, None)
    from grader.sandbox.proctitle import set_cmdline

    set_cmdline([sys.executable, "-m", "grader.runtimes.template", *(["--listen", listener.getsockname()]
                                                                    if shared else [])])
    # SIGPIPE stays ignored (Python's default), here and in the judges: a write to a socket whose
    # reader has gone (a grader that stopped waiting, a dead worker) must raise, not kill
    from grader.judge.run import main_forked, preload
    from grader.sandbox.hugepages import collapse_anonymous_memory
    from grader.sandbox.zygote import fork_server_state, warm_up

    torch = preload(set())
    ready = json.dumps({"ready": True, "pid": os.getpid(), **fork_server_state(torch)}).encode()
    warmed: set[str] = set()
    collapsed = False

    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    selector = selectors.DefaultSelector()
    selector.register(wake_r, selectors.EVENT_READ)
    conns: set[socket.socket] = set()  # the graders' control sockets
    if shared:
        listener.setblocking(False)
        selector.register(listener, selectors.EVENT_READ)
        path = listener.getsockname()
        path_inode = os.stat(path).st_ino  # bound by the grader that started this template, just before
    else:
        conns.add(listener)
        selector.register(listener, selectors.EVENT_READ)
        listener.send(ready)
    judges: dict[int, tuple[socket.socket, socket.socket]] = {}  # pid -> (its report socket, its grader)
    forks = 0
    idle_since: float | None = time.monotonic()  # since when no grader and no judge is here

    def hang_up(conn: socket.socket) -> None:
        """A grader has gone (or said exit): its judges go with it."""
        selector.unregister(conn)
        conns.discard(conn)
        conn.close()
        for pid, (_report, owner) in list(judges.items()):
            if owner is conn:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass

    while conns or shared:
        timeout = None
        if shared and idle_since is not None:
            timeout = idle_since + idle_s - time.monotonic()
            if timeout <= 0:
                # idle long enough: no new grader finds it; one that connected meanwhile is served
                _unlink_if_ours(path, path_inode)
                shared = False
                while True:
                    try:
                        conn, _ = listener.accept()
                    except OSError:
                        break
                    _welcome(conn, conns, selector, ready)
                selector.unregister(listener)
                listener.close()
                continue
        for key, _ in selector.select(timeout):
            if shared and key.fileobj is listener:
                try:
                    conn, _ = listener.accept()
                except (BlockingIOError, InterruptedError):
                    continue
                _welcome(conn, conns, selector, ready)
                continue
            if key.fileobj is not wake_r:
                conn = key.fileobj
                try:
                    msg, fds, _, _ = socket.recv_fds(conn, 65536, 4)
                except OSError:
                    msg, fds = b"", []
                request = json.loads(msg) if msg else {"op": "exit"}
                reports = [socket.socket(fileno=fd) for fd in fds]
                if request.get("op") != "fork" or len(reports) != 1:
                    for sock in reports:
                        sock.close()
                    if request.get("op") == "exit":
                        hang_up(conn)
                    continue
                # From a second job on, or before the first of several: what every fork server
                # does for itself is done here once, for all the later ones (not for a lone job,
                # which would wait for it): the warm-ups it asks for, and the collapse into huge
                # pages (which also makes each fork cheaper).
                many = forks > 0 or bool(request.get("many"))
                missing = set(request.get("warm_ups", ())) - warmed
                if missing and many:
                    warm_up(torch, missing)
                    warmed |= missing
                if many and not collapsed:
                    collapse_anonymous_memory()
                    collapsed = True
                sys.stdout.flush()
                sys.stderr.flush()
                me = os.getpid()
                pid = os.fork()
                if pid == 0:
                    inherited = [selector, listener, *conns, wake_r, wake_w, *reports,
                                 *(report for report, _ in judges.values())]
                    main_forked(functools.partial(_become_judge, request, me, inherited))
                forks += 1
                judges[pid] = (reports[0], conn)
                _send(reports[0], {"pid": pid})
                continue
            try:
                os.read(wake_r, 4096)
            except BlockingIOError:
                pass
        _reap(judges)
        if conns or judges:
            idle_since = None
        elif idle_since is None:
            idle_since = time.monotonic()
    for pid in judges:
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
    deadline = time.monotonic() + 5
    while judges and time.monotonic() < deadline:
        _reap(judges)
        time.sleep(0.01)


def _welcome(conn: socket.socket, conns: set, selector: selectors.BaseSelector, ready: bytes) -> None:
    """A grader connected to a shared template: it is told the template is ready, as a template's
    own grader is."""
    conn.setblocking(True)
    try:
        conn.send(ready)
    except OSError:
        conn.close()
        return
    conns.add(conn)
    selector.register(conn, selectors.EVENT_READ)


def _unlink_if_ours(path: str, inode: int) -> None:
    """Remove the socket's path unless another template has bound it since (a stale one replaced)."""
    try:
        if os.stat(path).st_ino == inode:
            os.unlink(path)
    except OSError:
        pass


def _reap(judges: dict[int, tuple[socket.socket, socket.socket]]) -> None:
    """Reap every judge that has exited and send its status to whoever asked for it."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        entry = judges.pop(pid, None)
        if entry is not None:
            _send(entry[0], {"exit": os.waitstatus_to_exitcode(status)})
            entry[0].close()


def _send(sock: socket.socket, message: dict) -> None:
    try:
        sock.send(json.dumps(message).encode())
    except OSError:
        pass  # its grader stopped waiting


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
