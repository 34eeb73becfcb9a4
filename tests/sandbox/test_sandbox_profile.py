"""The worker's sandbox profile runs real PyTorch without reopening the host (issue 10).

Real workers from a real fork server, real sockets, real namespaces. No GPU here: what CUDA needs
(an AF_UNIX socket, /proc/self writable, /proc/driver/nvidia and /dev/nvidia* readable, a fork
server that has not initialised CUDA nor started autograd's threads, a tamper guard that lets
CUDA initialise itself) is checked through its CPU-visible causes.
"""
from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import cloudpickle
import pytest

from grader.sandbox import landlock, namespaces
from grader.sandbox.client import GiB, Limits, Worker
from grader.sandbox.codec import Ref
from grader.sandbox.handles import RemoteHandle, call_remote

DATA = Path(__file__).resolve().parents[1] / "data"
ROOT = Path(__file__).resolve().parents[2]
cloudpickle.register_pickle_by_value(sys.modules[__name__])  # probes travel by value

NAMESPACES = namespaces.available()
needs_namespaces = pytest.mark.skipif(NAMESPACES is not None, reason=f"no namespaces here: {NAMESPACES}")


MODULE = object()  # stands for the subject module in run_probe's arguments


def run_probe(zygote, fn, *args, profile="namespaces", use_landlock=True, limits=None, timeout=120.0,
              network="loopback"):
    """Start a worker on tests/data/sandbox_subject.py with this profile, run `fn(*args)` there."""
    worker = Worker(zygote, str(DATA / "sandbox_subject.py"), "sandbox_subject", limits or Limits(),
                    landlock=use_landlock, profile=profile, deadline=time.monotonic() + timeout, network=network)
    worker.start()
    try:
        expected = landlock.abi_version() if use_landlock else 0
        assert worker.sandbox == expected, f"the worker could not apply its sandbox: {worker.sandbox}"
        module = RemoteHandle(worker, Ref(0, "module", "sandbox_subject"), "sandbox_subject")
        args = tuple(module if a is MODULE else a for a in args)
        return call_remote(worker, {"op": "probe", "fn": fn}, args, {}, what="probe")
    finally:
        worker.kill()


# --- seeding: every worker starts from the check's seed, whoever seeded it ------------------------

def _draws() -> list:
    import random

    import numpy as np
    import torch

    return [random.random(), float(np.random.random()), torch.rand(3).tolist(), torch.randint(0, 1 << 30, (2,)).tolist()]


def _seeded_draws(seed: int) -> list:
    from grader.sandbox.worker_setup import seed_everything

    seed_everything(seed)
    return _draws()


def test_every_worker_draws_what_its_seed_gives_when_the_fork_server_seeded_it(zygote):
    """The fork server seeds numpy and torch once before forking instead of each worker (2 ms a
    check); Python's `random` reseeds itself from the OS in every forked child, so the worker
    seeds that one itself. A worker's first draws equal those right after seeding, for the same
    seed twice in a row (the fork server's state is not consumed), for another seed, and back."""
    for seed in (7, 7, 11, 7):
        worker = Worker(zygote, str(DATA / "sandbox_subject.py"), "sandbox_subject", Limits(), seed=seed,
                        profile="namespaces" if NAMESPACES is None else "restricted",
                        deadline=time.monotonic() + 60)
        worker.start()
        try:
            got = call_remote(worker, {"op": "probe", "fn": _draws}, (), {}, what="probe")
        finally:
            worker.kill()
        assert got == _seeded_draws(seed), f"seed {seed}: the worker's first draws are not its seed's"


# --- cause 1: the fork server must not initialise CUDA nor start autograd's threads --------------

def test_warm_up_runs_no_backward_and_asks_cuda_nothing():
    """The warm-up imports; a backward pass (which starts the autograd engine's device threads on
    a CUDA host) or a CUDA query (which initialises the driver) before fork breaks every worker."""
    script = """if True:
        import torch
        from torch.autograd.variable import Variable
        calls = []

        class Engine:
            def __init__(self, real):
                self.real = real
            def run_backward(self, *args, **kwargs):
                calls.append("autograd backward")
                return self.real.run_backward(*args, **kwargs)
            def __getattr__(self, name):
                return getattr(self.real, name)

        Variable._execution_engine = Engine(Variable._execution_engine)
        for name in ("_lazy_init", "init", "device_count", "current_device", "synchronize"):
            real = getattr(torch.cuda, name)
            setattr(torch.cuda, name, lambda *a, _n=name, _r=real, **k: calls.append(f"torch.cuda.{_n}") or _r(*a, **k))
        x = torch.ones(2, requires_grad=True)
        (x * x).sum().backward()  # the recorder works
        assert calls == ["autograd backward"], calls
        calls.clear()
        import os, sys
        threads = len(os.listdir("/proc/self/task"))
        from grader.sandbox.zygote import WARM_MODULES, warm_up
        warm_up(torch, {"autograd", "optim", *WARM_MODULES})
        assert "sympy" in sys.modules and "torch._dynamo" in sys.modules, "the warm-up must still import them"
        missing = [m for ms in WARM_MODULES.values() for m in ms if m not in sys.modules]
        assert missing == [], f"the warm-ups did not import {missing}"
        assert "onnxruntime" not in sys.modules, "importing onnxruntime starts a thread: not before fork"
        assert calls == [], calls
        assert len(os.listdir("/proc/self/task")) <= threads, "the warm-up started a thread"
    """
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]


def test_export_and_onnx_warm_ups_are_asked_for_by_the_exercises_that_export_only():
    """A judge's fork server pre-imports the exporters for 71 and 72 (a second of imports in every
    worker that exports otherwise) and aot_autograd for 68's aot_eager compile, and nothing more for
    an exercise that does neither: a bigger fork server makes every fork a little dearer."""
    from grader.catalog import Catalog
    from grader.judge.run import warm_ups

    catalog = Catalog.load(ROOT)

    def spec(*ids: str) -> dict:
        return {"exercises": [{"dir": str(ex.dir)} for ex in catalog.select(list(ids))]}

    assert {"export", "onnx"} <= set(warm_ups(spec("72")))
    assert "export" in warm_ups(spec("71")) and "onnx" not in warm_ups(spec("71"))
    assert "export" in warm_ups(spec("68"))  # its aot_eager compile imports aot_autograd
    assert not {"export", "onnx"} & set(warm_ups(spec("05", "10")))


def test_fork_server_has_not_initialised_cuda_nor_started_threads(zygote):
    zygote.ensure_ready()
    state = zygote.state
    assert state["cuda_initialized"] is False
    # as many threads as a bare interpreter importing what the fork server imports
    script = ("import os, numpy, torch, grader.sandbox.worker; "
              "print(len(os.listdir('/proc/self/task')))")
    bare = int(subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                              cwd=ROOT, check=True).stdout)
    # no more than a bare import: an import may start a short-lived thread of its own (seen in CI:
    # 2 threads at the import, 1 a moment later), but the fork server must start none
    assert state["threads"] <= bare, f"the fork server runs {state['threads']} threads, a bare import {bare}"
    assert len(os.listdir(f"/proc/{zygote.pid}/task")) <= bare


def test_fork_server_asks_cuda_through_nvml():
    from grader.sandbox.zygote_client import scrubbed_env

    assert scrubbed_env("/tmp")["PYTORCH_NVML_BASED_CUDA_CHECK"] == "1"


# --- causes 2 and 3: sockets and files CUDA needs --------------------------------------------------

def _sockets(scratch_name: str) -> dict:
    import socket as s

    found = {}
    a, b = s.socketpair(s.AF_UNIX, s.SOCK_STREAM)
    a.sendall(b"pair")
    found["socketpair"] = b.recv(4).decode()
    path = os.path.join(os.getcwd(), scratch_name)
    with s.socket(s.AF_UNIX) as server:  # what multiprocessing.resource_sharer does
        server.bind(path)
        server.listen()
        with s.socket(s.AF_UNIX) as client:
            client.connect(path)
            conn, _ = server.accept()
            client.sendall(b"unix")
            found["unix"] = conn.recv(4).decode()
            conn.close()
    with s.create_server(("127.0.0.1", 0)) as server:  # what gloo does
        with s.create_connection(server.getsockname(), timeout=5) as client:
            conn, _ = server.accept()
            client.sendall(b"tcp")
            found["tcp"] = conn.recv(3).decode()
            conn.close()
    return found


@needs_namespaces
def test_namespaced_worker_makes_unix_and_loopback_sockets(zygote):
    assert run_probe(zygote, _sockets, "s.sock") == {"socketpair": "pair", "unix": "unix", "tcp": "tcp"}


def _try_socket(family: int) -> str:
    import socket as s

    try:
        s.socket(family, s.SOCK_STREAM).close()
        return "made"
    except OSError as exc:
        return type(exc).__name__


def test_restricted_worker_makes_no_socket(zygote):
    """Where nothing hides the host (no namespaces, no container) the old wall stands."""
    assert run_probe(zygote, _try_socket, socket.AF_UNIX, profile="restricted") == "PermissionError"
    assert run_probe(zygote, _try_socket, socket.AF_INET, profile="restricted") == "PermissionError"


def _reach(tcp_port: int, unix_path: str, abstract: bytes) -> dict:
    import socket as s

    found = {}
    for what, family, address in (("tcp", s.AF_INET, ("127.0.0.1", tcp_port)), ("unix", s.AF_UNIX, unix_path),
                                  ("abstract", s.AF_UNIX, abstract)):
        try:
            with s.socket(family) as sock:
                sock.settimeout(2)
                sock.connect(address)
                sock.sendall(b"escaped")
            found[what] = "connected"
        except OSError as exc:
            found[what] = type(exc).__name__
    try:
        with s.socket(s.AF_INET, s.SOCK_DGRAM) as sock:
            sock.sendto(b"escaped", ("127.0.0.1", tcp_port))
    except OSError:
        pass
    return found


@needs_namespaces
def test_host_sockets_stay_unreachable(zygote, tmp_path):
    """Sockets allowed, host hidden: its loopback services, a Unix socket where hosts keep them
    (the stand-in for docker.sock, ssh-agent, D-Bus) and abstract sockets are out of reach."""
    received = []
    tcp = socket.create_server(("127.0.0.1", 0))
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", tcp.getsockname()[1]))
    unix_path = str(tmp_path / "docker.sock")
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(unix_path)
    abstract_name = f"\0torch-grader-test-{uuid.uuid4().hex}".encode()
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind(abstract_name)
    for sock in (tcp, unix, abstract):
        sock.listen()
        sock.settimeout(0.1)
    udp.settimeout(0.1)
    stop = threading.Event()

    def listen():
        while not stop.is_set():
            for sock in (tcp, unix, abstract, udp):
                try:
                    if sock is udp:
                        received.append(sock.recv(64))
                    else:
                        received.append(sock.accept()[0].recv(64))
                except OSError:
                    continue

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    try:
        found = run_probe(zygote, _reach, tcp.getsockname()[1], unix_path, abstract_name)
    finally:
        stop.set()
        thread.join()
        for sock in (tcp, udp, unix, abstract):
            sock.close()
    assert received == []
    assert found["tcp"] == "ConnectionRefusedError"  # the worker's own, empty loopback
    assert found["unix"] == "FileNotFoundError"  # /tmp is an empty tmpfs in the worker's view
    assert found["abstract"] == "ConnectionRefusedError"  # abstract names belong to a network namespace


def _landlocked_proc_self() -> dict:
    with open("/proc/self/comm", "w") as fh:  # the CUDA driver writes under /proc/self
        fh.write("ax-cuda-like")
    with open("/proc/self/comm") as fh:
        return {"comm": fh.read().strip()}


@pytest.mark.skipif(landlock.abi_version() <= 0, reason="no Landlock on this kernel")
def test_landlocked_worker_writes_proc_self(zygote):
    assert run_probe(zygote, _landlocked_proc_self, profile="restricted") == {"comm": "ax-cuda-like"}


def test_landlock_rules_include_cuda_paths_when_they_exist(tmp_path, monkeypatch):
    from grader.sandbox import worker_setup

    proc, dev = tmp_path / "proc", tmp_path / "dev"
    (proc / "driver" / "nvidia").mkdir(parents=True)
    (proc / "devices").write_text("195 nvidia\n")
    dev.mkdir()
    for name in ("nvidia0", "nvidiactl", "nvidia-uvm", "null"):
        (dev / name).write_text("")
    read, write = worker_setup.cuda_paths(str(proc), str(dev))
    assert read == [str(proc / "driver" / "nvidia"), str(proc / "devices")]
    assert write == [str(dev / "nvidia-uvm"), str(dev / "nvidia0"), str(dev / "nvidiactl")]
    assert worker_setup.cuda_paths(str(tmp_path / "none"), str(tmp_path / "none")) == ([], [])
    monkeypatch.setattr(worker_setup, "cuda_paths", lambda: (read, write))
    config = {"candidate": str(DATA / "sandbox_subject.py"), "scratch": str(tmp_path)}
    all_read, all_write = worker_setup.sandbox_paths(config)
    assert set(read) <= set(all_read) and set(write) <= set(all_write)
    assert "/proc/self" in all_write and "/dev/shm" not in all_write  # /dev/shm: only where private
    assert "/dev/shm" in worker_setup.sandbox_paths({**config, "profile": "namespaces"})[1]


# --- cause 4: CUDA initialising itself is not tampering --------------------------------------------

def test_cuda_lazy_initialisation_is_not_tampering():
    script = """if True:
        import torch
        from grader.sandbox.tamper import TamperGuard
        guard = TamperGuard()
        # what torch.cuda._lazy_init and device_count() change in a worker on a GPU host
        torch.cuda._initialized = True
        torch.cuda.default_generators = (torch.Generator(), torch.Generator())
        torch.cuda._cached_device_count = 2
        torch.cuda._queued_calls = []
        assert guard.changed() == [], guard.changed()
        torch.cuda.synchronize = lambda *a: None  # a candidate's replacement still shows
        torch.cuda.default_generators = (lambda: 0,)
        torch.cuda._lazy_call = print
        assert sorted(guard.changed()) == ["torch.cuda._lazy_call", "torch.cuda.default_generators",
                                           "torch.cuda.synchronize"], guard.changed()
    """
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]


# --- containment: IPC, keyring, shared memory -------------------------------------------------------

def _ipc_and_keyring(shm_name: str) -> dict:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    found = {}
    for what, call in (("shmget", lambda: libc.shmget(0, 1 << 20, 0o1666)),  # IPC_PRIVATE | IPC_CREAT
                       ("semget", lambda: libc.semget(0, 1, 0o1666)),
                       ("msgget", lambda: libc.msgget(0, 0o1666)),
                       ("add_key", lambda: libc.syscall(248 if os.uname().machine == "x86_64" else 217, b"user",
                                                        b"ax", b"secret", 6, -2)),
                       ("keyctl", lambda: libc.syscall(250 if os.uname().machine == "x86_64" else 219, 0, -3, 0))):
        result = call()
        found[what] = "allowed" if result >= 0 else os.strerror(ctypes.get_errno())
    with open(f"/dev/shm/{shm_name}", "wb") as fh:
        fh.write(b"x" * 4096)
    found["shm"] = "written"
    return found


@needs_namespaces
def test_ipc_keyring_and_dev_shm_stay_private(zygote):
    name = f"torch-grader-test-{uuid.uuid4().hex}"
    found = run_probe(zygote, _ipc_and_keyring, name)
    assert {k: v for k, v in found.items() if k != "shm"} == dict.fromkeys(
        ("shmget", "semget", "msgget", "add_key", "keyctl"), "Operation not permitted")
    assert found["shm"] == "written"  # torch and multiprocessing need it...
    assert not os.path.exists(f"/dev/shm/{name}")  # ...in a /dev/shm of the worker's own


def test_restricted_worker_has_no_ipc_keyring_nor_dev_shm(zygote):
    name = f"torch-grader-test-{uuid.uuid4().hex}"
    with pytest.raises(Exception, match="PermissionError"):
        run_probe(zygote, _ipc_and_keyring, name, profile="restricted")
    assert not os.path.exists(f"/dev/shm/{name}")


def _processes_seen(outside: list[int]) -> dict:
    import signal

    found = {"pid": os.getpid(), "ppid": os.getppid(),
             "proc": sorted(int(p) for p in os.listdir("/proc") if p.isdigit())}
    for pid in outside:
        try:
            os.kill(pid, signal.SIGSTOP)
            os.kill(pid, signal.SIGCONT)
            found[pid] = "signalled"
        except OSError as exc:
            found[pid] = type(exc).__name__
    return found


@needs_namespaces
def test_worker_without_landlock_can_neither_see_nor_signal_a_process_outside(zygote):
    """Where Landlock cannot scope signals (ABI < 6, gVisor; no Landlock at all here), the worker's
    own PID namespace keeps the judge, the fork server and every other process of the machine
    out of its reach: it is PID 1 there, its /proc lists its own processes only, and none outside
    can be named, so none can be signalled (before, a worker walked its ancestors and SIGKILLed
    the judge template serving every other submission)."""
    outside = [os.getpid(), zygote.pid, os.getppid()]
    found = run_probe(zygote, _processes_seen, outside, use_landlock=False)
    assert (found["pid"], found["ppid"], found["proc"]) == (1, 0, [1]), found
    assert all(found[pid] == "ProcessLookupError" for pid in outside), found


def test_a_fork_server_killed_from_outside_is_replaced(tmp_path):
    """A worker can no longer signal its fork server (its PID namespace, or Landlock), but the
    machine can (the OOM killer, an operator's kill): the next worker comes from a fresh fork
    server, and the incident is recorded for the report."""
    import signal

    from grader.sandbox.client import Zygote

    zygote = Zygote(str(tmp_path))
    zygote.start()
    try:
        # (a stopped one is told from a busy one in tests/sandbox/test_fork_server_protocol.py)
        for sig, said in ((signal.SIGKILL, "was killed"),):
            worker = Worker(zygote, str(DATA / "sandbox_subject.py"), "sandbox_subject", Limits(),
                            profile="namespaces" if NAMESPACES is None else "restricted",
                            deadline=time.monotonic() + 120)
            worker.start()
            first = zygote.pid
            os.kill(first, sig)
            time.sleep(0.5)
            worker.kill()
            again = Worker(zygote, str(DATA / "sandbox_subject.py"), "sandbox_subject", Limits(),
                           profile="namespaces" if NAMESPACES is None else "restricted",
                           deadline=time.monotonic() + 120)
            again.start()
            try:
                assert call_remote(again, {"op": "probe", "fn": _touch}, (1,), {}, what="probe") == 1 << 18
            finally:
                again.kill()
            assert zygote.pid != first
            assert any(said in incident for incident in zygote.incidents), zygote.incidents
    finally:
        zygote.close(kill=True)


def _files_reached(paths: dict) -> dict:
    found = {}
    for what, (path, mode) in paths.items():
        try:
            with open(path, mode) as fh:
                if "w" in mode or "a" in mode:
                    fh.write("written by a worker\n")
                else:
                    fh.read(1)
            found[what] = "done"
        except OSError as exc:
            found[what] = type(exc).__name__
    return found


@needs_namespaces
def test_worker_without_landlock_sees_no_hidden_check_and_writes_only_its_scratch(zygote, tmp_path):
    """Without Landlock (an older kernel, gVisor) the worker's mount namespace still holds: the
    grader's checkout is covered (no hidden check, no solution to read), and what is bound back
    for it (its submission, the grader's package, the Python installation) is read-only; only its
    scratch folder takes writes."""
    import grader

    marker = f"torch-grader-test-{uuid.uuid4().hex}"
    package = Path(grader.__file__).resolve().parent
    paths = {"hidden check": (str(ROOT / "exercises" / "tensors" / "05_broadcast_bias" / "test_hidden.py"), "r"),
             "solution": (str(ROOT / "solutions" / "tensors" / "05_broadcast_bias" / "broadcast_bias.py"), "r"),
             "own submission": (str(DATA / "sandbox_subject.py"), "r"),
             "grader package": (str(package / "__init__.py"), "r"),
             "write grader package": (str(package / marker), "w"),
             "write submission folder": (str(DATA / marker), "w"),
             "write python": (os.path.join(sys.prefix, marker), "w"),
             "write scratch": (marker, "w")}
    covered = [str(ROOT), *namespaces.hidden_folders()]
    if not any(os.path.realpath(sys.prefix).startswith(c.rstrip("/") + "/") for c in covered):
        del paths["write python"]  # a Python installation left in place: its files' modes decide
    found = run_probe(zygote, _files_reached, paths, use_landlock=False)
    assert found == {"hidden check": "FileNotFoundError", "solution": "FileNotFoundError", "own submission": "done",
                     "grader package": "done", "write grader package": "OSError",
                     "write submission folder": "OSError", "write scratch": "done",
                     **({"write python": "OSError"} if "write python" in paths else {})}, found
    assert not (package / marker).exists() and not (DATA / marker).exists()


def _open_files() -> list[str]:
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            found.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            pass
    return found


def _exit_with(code: int) -> None:
    os._exit(code)


def _status(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/status") as fh:
        return dict(line.split(":", 1) for line in fh if ":" in line)


@pytest.fixture(params=["made by the fork server", "split by the worker"])
def pidns_zygote(request, tmp_path, monkeypatch):
    """A fork server that makes each namespaced worker's PID namespace as it forks it (root), or
    one that leaves it to the worker (GRADER_PIDNS_FORK=0: what another user's workers do)."""
    from grader.sandbox.client import Zygote

    made = request.param == "made by the fork server"
    if made and os.geteuid() != 0:
        pytest.skip("only root's fork server makes its workers' PID namespaces")
    monkeypatch.setenv("GRADER_PIDNS_FORK", "1" if made else "0")
    z = Zygote(str(tmp_path))
    z.start()
    yield z, made
    z.close()


@needs_namespaces
def test_fork_server_reads_and_kills_the_process_running_the_candidates_code(pidns_zygote):
    """In private namespaces the candidate's code runs as PID 1 of the worker's own PID namespace:
    forked so by the fork server (root: one fork), or the fork server's child only waits and the
    code runs in its child (another user: two forks). Memory is read from that process (its peak
    mark reset and read there), the kill is aimed at it, and its end is reported. The fork
    server's next worker outside namespaces is forked in the fork server's own PID namespace."""
    zygote, made = pidns_zygote
    worker = Worker(zygote, str(DATA / "sandbox_subject.py"), "sandbox_subject", Limits(), landlock=True,
                    profile="namespaces", deadline=time.monotonic() + 120, network="loopback")
    worker.start()
    try:
        process = zygote.process(worker.pid)
        assert process is not None and (process == worker.pid) == made
        status = _status(process)
        depth = len(_status(zygote.pid)["NSpid"].split())
        assert status["NSpid"].split()[-1] == "1" and len(status["NSpid"].split()) == depth + 1, status["NSpid"]
        assert int(status["PPid"]) == (zygote.pid if made else worker.pid), status["PPid"]
        assert os.path.isdir(worker.scratch) and worker.scratch.endswith(f"w{worker.pid}"), worker.scratch
        assert not [fd for fd in call_remote(worker, {"op": "probe", "fn": _open_files}, (), {}, what="probe")
                    if fd.startswith("pid:")]  # no handle on the fork server's PID namespace
        before = zygote.peak_memory(worker.pid, reset=True)
        call_remote(worker, {"op": "probe", "fn": _touch}, (64,), {}, what="probe")
        after = zygote.peak_memory(worker.pid)
        assert after["hwm"] - before["rss"] >= 64 << 20, (before, after)
        with pytest.raises(Exception, match="exited with status 7"):
            call_remote(worker, {"op": "probe", "fn": _exit_with}, (7,), {}, what="probe")
    finally:
        worker.kill()
    assert not os.path.exists(f"/proc/{process}")
    plain = Worker(zygote, str(DATA / "sandbox_subject.py"), "sandbox_subject", Limits(), profile="restricted",
                   deadline=time.monotonic() + 120)
    plain.start()
    try:
        assert len(_status(plain.pid)["NSpid"].split()) == depth  # not in a namespace left from the last
        assert RemoteHandle(plain, Ref(0, "module", "sandbox_subject"), "sandbox_subject").CONSTANT == 42
    finally:
        plain.kill()


def _touch(mib: int) -> int:
    import numpy as np

    return int(np.ones(mib << 18, dtype=np.float32).sum())


def _memory_accounting_locks() -> dict:
    import ctypes

    from grader.sandbox.privileges import PR_SET_CHILD_SUBREAPER, PR_SET_THP_DISABLE

    libc = ctypes.CDLL(None, use_errno=True)
    found = {}
    for what, option, arg in (("stop being a subreaper", PR_SET_CHILD_SUBREAPER, 0), ("enable huge pages", PR_SET_THP_DISABLE, 0)):
        found[what] = "allowed" if libc.prctl(option, arg, 0, 0, 0) == 0 else os.strerror(ctypes.get_errno())
    found["set its name"] = "allowed" if libc.prctl(15, b"ax-name", 0, 0, 0) == 0 else "refused"  # PR_SET_NAME
    found["is a subreaper"] = (lambda v: (libc.prctl(37, ctypes.byref(v), 0, 0, 0), v.value)[1])(ctypes.c_int())
    found["huge pages disabled"] = libc.prctl(42, 0, 0, 0, 0)  # PR_GET_THP_DISABLE
    return found


def test_worker_cannot_hide_memory_from_the_fault_count(zygote):
    """A measured call's children are counted by their page faults (treemem.children_faults):
    the worker adopts orphans and has no transparent huge pages (one fault for 2 MiB), and its
    seccomp filter refuses undoing either; other prctl options still work."""
    found = run_probe(zygote, _memory_accounting_locks)
    assert found == {"stop being a subreaper": "Operation not permitted", "enable huge pages": "Operation not permitted",
                     "set its name": "allowed", "is a subreaper": 1, "huge pages disabled": 1}, found


def _orphan_writes(mib: int) -> int:
    import numpy as np

    if os.fork() == 0:
        if os.fork() == 0:
            np.ones(mib << 18, dtype=np.float32)  # touched, then the orphan exits unreaped
        os._exit(0)
    os.wait()
    import time

    time.sleep(0.3)
    return mib


def test_children_faults_count_an_orphan_that_exited(zygote):
    """What an orphaned grandchild wrote before exiting unreaped is counted: it comes back to the
    worker (a subreaper) and its zombie's faults are read. A call that starts no process counts
    nothing."""
    worker = Worker(zygote, str(DATA / "sandbox_subject.py"), "sandbox_subject", Limits(), landlock=True,
                    profile="namespaces", deadline=time.monotonic() + 120, network="loopback")
    worker.start()
    try:
        counted = []
        for mib in (0, 96):
            before = zygote.peak_memory(worker.pid, reset=True)
            if mib:
                call_remote(worker, {"op": "probe", "fn": _orphan_writes}, (mib,), {}, what="probe")
            else:
                call_remote(worker, {"op": "probe", "fn": len}, ([],), {}, what="probe")
            counted.append(zygote.peak_memory(worker.pid)["child_faults"] - before["child_faults"])
    finally:
        worker.kill()
    assert counted[0] == 0, f"{counted[0]} bytes counted for a call that started no process"
    assert 96 << 20 <= counted[1] < 140 << 20, f"{counted[1] >> 20} MiB counted for an orphan that wrote 96 MiB"


# --- what real PyTorch does in a worker --------------------------------------------------------------

def _data_loader(method: str) -> list:
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    data = TensorDataset(torch.arange(32, dtype=torch.float32).reshape(16, 2))
    loader = DataLoader(data, batch_size=4, num_workers=2, multiprocessing_context=method)
    return [float(batch[0].sum()) for batch in loader]


@needs_namespaces
@pytest.mark.parametrize("method", ["fork", pytest.param("spawn", marks=pytest.mark.slow)])
def test_data_loader_workers_run_in_a_worker(zygote, method):
    expected = [float(sum(range(i * 8, i * 8 + 8))) for i in range(4)]
    assert run_probe(zygote, _data_loader, method) == expected


def _gloo_all_reduce() -> list:
    import socket as s

    import torch.multiprocessing as mp

    with s.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_gloo_rank, args=(rank, port, queue)) for rank in range(2)]
    for p in procs:
        p.start()
    results = sorted(queue.get(timeout=60) for _ in procs)
    for p in procs:
        p.join(30)
    return results


def _gloo_rank(rank: int, port: int, queue) -> None:
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
    t = torch.tensor([float(rank + 1)])
    dist.all_reduce(t)
    dist.destroy_process_group()
    queue.put((rank, float(t)))


@needs_namespaces
def test_gloo_process_group_on_loopback_runs_in_a_worker(zygote):
    assert run_probe(zygote, _gloo_all_reduce) == [(0, 3.0), (1, 3.0)]


def test_memory_of_the_whole_process_tree_is_limited(zygote):
    """Five children holding 200 MiB each under a 0.5 GiB limit (each one under the per-process
    rlimit): the worker is killed, and says why."""
    from grader.sandbox.client import WorkerFailure

    with pytest.raises(WorkerFailure, match=r"memory limit 0\.5 GiB exceeded .*process tree"):
        run_probe(zygote, _children_hold_memory, 5, 200, limits=Limits(memory_bytes=GiB // 2), timeout=60)


def _children_hold_memory(n: int, mib: int) -> None:
    import time as t

    for _ in range(n):
        if os.fork() == 0:
            try:
                block = bytearray(mib << 20)
                block[::4096] = b"x" * len(block[::4096])
                t.sleep(60)
            finally:
                os._exit(0)
    t.sleep(60)


# --- torch.compile ---------------------------------------------------------------------------------

def _compile_in_subject(mod) -> dict:
    return mod.compiled_sine(8)


@pytest.mark.slow
@needs_namespaces
def test_torch_compile_runs_in_a_worker(zygote):
    """Inductor's default backend on CPU, compiling the candidate module's own code (dynamo reads
    the traced code's source file: a test-defined function would not be readable in the worker):
    C++ compiled with the machine's g++, caches in the worker's scratch."""
    found = run_probe(zygote, _compile_in_subject, MODULE, timeout=300)
    print(f"torch.compile in a worker: {found['seconds']} s")
    assert found["right"] and found["cache_in_scratch"] and found["cached"], found


# --- gpu = "required" --------------------------------------------------------------------------------

def _exercise(root: Path, toml_extra: str, tests: str, gpu: str = "optional") -> Path:
    ex = root / "exercises" / "demo" / "01_scaler"
    ex.mkdir(parents=True)
    (ex / "exercise.toml").write_text(f'title = "Scale"\ntrack = "demo"\ndifficulty = "easy"\ngpu = "{gpu}"\n'
                                      f'sources = []\n{toml_extra}')
    (ex / "README.md").write_text("# Scale\n")
    (ex / "scaler.py").write_text("def scale(x):\n    return x * 2\n")
    (ex / "test_public.py").write_text("")
    (ex / "test_hidden.py").write_text("import torch\nfrom grader.testing import check\n\n\n" + tests)
    return ex


def test_exercise_requiring_a_gpu_is_not_run_without_one(tmp_path):
    """An exercise declaring gpu = "required" is not graded on a machine without CUDA: every check
    is "not run" with the reason, the run carries a note, and nothing counts against the candidate."""
    import torch

    from grader.grading import grade

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: the exercise is graded")
    ex = _exercise(tmp_path, "", "@check('value')\ndef test_scale(sub):\n"
                                 "    assert torch.equal(sub.scale(torch.ones(2)), torch.full((2,), 2.0))\n",
                   gpu="required")
    run = grade([ex / "scaler.py"], runtime="local", root=tmp_path, exercises=["01"])
    (result,) = run.submissions[0].exercises
    (only,) = result.checks
    assert only.outcome == "not_run"
    assert only.message == 'needs a GPU: 01_scaler declares gpu = "required" and CUDA is not available here'
    assert result.score == 0 and result.not_run == 1
    assert any("01_scaler requires a GPU" in note for note in run.environment.notes), run.environment.notes


# --- per-exercise needs: network and [limits] in exercise.toml ---------------------------------------

def test_exercise_toml_network_and_limits_are_validated(tmp_path):
    from grader.catalog import load_exercise
    from grader.errors import ExerciseDefinitionError

    ex = _exercise(tmp_path, 'network = "none"\n[limits]\nmemory_mb = 512\nfile_size_mb = 500\nprocesses = 8\n', "")
    loaded = load_exercise(ex, tmp_path / "solutions")
    assert loaded.network == "none"
    assert loaded.limits == {"memory_bytes": 512 << 20, "file_size_bytes": 500 << 20, "processes": 8}
    for bad, message in (('network = "internet"', "field 'network' must be one of none, loopback"),
                         ("[limits]\nmemory = 5", "unknown field 'limits.memory'"),
                         ('[limits]\nprocesses = "8"', "field 'limits.processes' must be int"),
                         ("[limits]\nmemory_mb = 0", "field 'limits.memory_mb' must be positive")):
        (ex / "exercise.toml").write_text('title = "Scale"\ntrack = "demo"\ndifficulty = "easy"\ngpu = "no"\n'
                                          f'sources = []\n{bad}\n')
        with pytest.raises(ExerciseDefinitionError, match=message.replace("(", r"\(")):
            load_exercise(ex, tmp_path / "solutions")


def test_limits_resolve_cli_over_exercise_over_default():
    exercise = {"memory_bytes": 512 << 20, "processes": 8}
    assert Limits().for_exercise(exercise) == Limits(memory_bytes=512 << 20, processes=8)
    from_cli = Limits(memory_bytes=2 * GiB, explicit=("memory_bytes",))
    assert from_cli.for_exercise(exercise) == Limits(memory_bytes=2 * GiB, processes=8, explicit=("memory_bytes",))
    assert Limits().for_exercise({}) == Limits()


def test_exercise_memory_limit_applies_to_its_workers(tmp_path):
    from grader.grading import grade

    ex = _exercise(tmp_path, "[limits]\nmemory_mb = 300\n",
                   "@check('value')\ndef test_big(sub):\n    sub.scale(torch.ones(2))\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "scaler.py").write_text(
        "import time\n\ndef scale(x):\n    block = bytearray(600 << 20)\n    block[::4096] = b'x' * len(block[::4096])\n"
        "    time.sleep(30)\n")
    run = grade([tmp_path / "sub" / "scaler.py"], runtime="local", root=tmp_path, exercises=["01"], timeout_s=20)
    (check,) = run.submissions[0].exercises[0].checks
    assert check.outcome == "failed"
    assert re.search(r"memory limit 0\.3 GiB exceeded|out of memory: the worker's memory limit is 0\.3 GiB",
                     check.message), check.message
    assert ex.is_dir()


@needs_namespaces
def test_network_none_leaves_unix_sockets_only(zygote):
    assert run_probe(zygote, _try_socket, socket.AF_UNIX, network="none") == "made"
    assert run_probe(zygote, _try_socket, socket.AF_INET, network="none") == "PermissionError"
    assert run_probe(zygote, _try_socket, socket.AF_INET, network="loopback") == "made"


# --- real PyTorch machinery, graded end to end on both runtimes ------------------------------------

IMAGE = os.environ.get("GRADER_TEST_IMAGE", "torch-grader:latest")


@pytest.mark.parametrize("runtime", ["local", pytest.param("docker", marks=pytest.mark.docker)])
def test_data_loader_workers_and_gloo_grade_in_full(runtime, request):
    """tests/data/real_pytorch answers 05 through DataLoader workers (fork) and a gloo process
    group: those checks pass only if that machinery runs in the worker."""
    from grader.grading import grade

    options = {}
    if runtime == "docker":
        from grader.image import docker_client

        try:
            docker_client().images.get(IMAGE)
        except Exception as exc:  # noqa: BLE001
            if os.environ.get("CI"):
                raise
            pytest.skip(f"no grading image {IMAGE}: {exc}")
        options = {"image": IMAGE, "gpus": "none"}
    elif NAMESPACES is not None:
        pytest.skip(f"no namespaces here: {NAMESPACES}")
    run = grade([DATA / "real_pytorch"], exercises=["05"], visibility="public", runtime=runtime, timeout_s=90,
                runtime_options=options)
    (ex,) = run.submissions[0].exercises
    assert {c.name: c.outcome for c in ex.checks} == dict.fromkeys(
        ("test_feature_bias_example", "test_sample_bias_example", "test_pairwise_example"), "passed"), \
        [(c.name, c.message[:500]) for c in ex.checks]


# --- the verifier worker: candidate-made artifacts parsed outside the judge ------------------------

VERIFIER_CHECKS = '''
def _load(raw):
    import io as _io
    import os as _os
    import sys as _sys

    import torch as _torch

    state = _torch.load(_io.BytesIO(raw), weights_only=True)
    return {"shapes": {k: list(v.shape) for k, v in state.items()}, "pid": _os.getpid(),
            "submission_imported": "scaler" in _sys.modules}


def _run_script(raw):
    import io as _io

    import torch as _torch

    return _torch.jit.load(_io.BytesIO(raw))(_torch.ones(3))


@check("state")
def test_state_dict_checked_in_the_verifier(sub):
    sub.save_state("model.pt")
    raw = sub.read_file("model.pt")
    found = sub.verify(_load, raw)
    assert found["shapes"] == {"weight": [2, 3], "bias": [2]}
    assert found["submission_imported"] is False  # a process that never imported the candidate's code


@check("value")
def test_torchscript_run_in_the_verifier(sub):
    sub.save_script("net.pt")
    out = sub.verify(_run_script, sub.read_file("net.pt"))
    assert torch.equal(out, torch.full((3,), 2.0))


@check("value")
def test_written_file_reaches_the_candidate(sub):
    sub.write_file("input.txt", b"21")
    assert sub.read_input("input.txt") == 42


@check("state")
def test_read_file_is_capped(sub):
    sub.save_state("model.pt")
    sub.read_file("model.pt", max_bytes=10)


@check("state")
def test_read_file_stays_in_scratch(sub):
    sub.read_file("../../../etc/hostname")


@check("state")
def test_verifier_returns_data_only(sub):
    sub.verify(lambda: (lambda: 1))
'''

VERIFIER_SUBMISSION = '''
import torch


def scale(x):
    return x * 2


def save_state(path):
    torch.save(torch.nn.Linear(3, 2).state_dict(), path)


def save_script(path):
    class Twice(torch.nn.Module):
        def forward(self, x):
            return x * 2
    torch.jit.save(torch.jit.script(Twice()), path)


def read_input(path):
    with open(path) as fh:
        return int(fh.read()) * 2
'''


@pytest.mark.skipif(landlock.abi_version() <= 0, reason="no Landlock on this kernel")
def test_verifier_loads_artifacts_without_the_submission(tmp_path):
    from grader.grading import grade

    _exercise(tmp_path, "", VERIFIER_CHECKS)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "scaler.py").write_text(VERIFIER_SUBMISSION)
    run = grade([tmp_path / "sub" / "scaler.py"], runtime="local", root=tmp_path, exercises=["01"], timeout_s=120)
    checks = {c.name: c for c in run.submissions[0].exercises[0].checks}
    for name in ("test_state_dict_checked_in_the_verifier", "test_torchscript_run_in_the_verifier",
                 "test_written_file_reaches_the_candidate"):
        assert checks[name].outcome == "passed", (name, checks[name].message)
    assert "model.pt is" in checks["test_read_file_is_capped"].message
    assert "more than the 10 bytes a check may read" in checks["test_read_file_is_capped"].message
    assert "is outside the worker's scratch folder" in checks["test_read_file_stays_in_scratch"].message
    assert "a verifier function returns plain data" in checks["test_verifier_returns_data_only"].message
