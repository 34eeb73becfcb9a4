"""Judge side of the fork server: starting it (or attaching to one the container started), asking
it for workers, and having it kill and reap them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time

from grader.sandbox.protocol import ChannelClosed


class AnswerLate(ChannelClosed):
    """The fork server looks alive but has not answered yet (busy: a tree walk, a reaping)."""


def scrubbed_env(scratch_root: str) -> dict[str, str]:
    """The worker's environment: nothing of the judge's (no secrets), only what torch needs."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": scratch_root,
        "TMPDIR": scratch_root,
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        # torch.cuda.is_available() / device_count() through NVML, not the CUDA runtime: asking the
        # runtime initialises the driver, and a driver initialised before fork fails in every child.
        "PYTORCH_NVML_BASED_CUDA_CHECK": "1",
    }
    for key in ("CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS", "OMP_WAIT_POLICY", "MKL_NUM_THREADS", "CUBLAS_WORKSPACE_CONFIG",
                "GRADER_HUGEPAGES", "GRADER_PIDNS_FORK"):  # the fork server's, read before any worker exists
        if key in os.environ:
            env[key] = os.environ[key]
    return env


class _Forked:
    """A fork server forked from this process (see `Zygote.fork_here`), with what the client uses
    of `subprocess.Popen`."""

    def __init__(self, pid: int):
        self.pid, self.returncode = pid, None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                self.returncode = -9
                return self.returncode
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def kill(self) -> None:
        if self.poll() is None:
            try:
                os.kill(self.pid, 9)
            except ProcessLookupError:
                pass

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(["fork server"], timeout or 0)
            time.sleep(0.005)
        return self.returncode  # type: ignore[return-value]


_PREFORKED: Zygote | None = None


def take_preforked(scratch_root: str) -> Zygote | None:
    """The fork server forked for this judge before it read its job (`Zygote.fork_here`), once."""
    global _PREFORKED
    zygote, _PREFORKED = _PREFORKED, None
    return zygote if zygote is not None and zygote.scratch_root == scratch_root else None


class Zygote:
    """The fork server process. Started early; its readiness is awaited on first use.

    `attach_fd`: the control socket of a fork server someone else started (the container's entry
    point starts it as the worker user); such a one cannot be restarted from here.

    A worker may kill or stop (SIGSTOP) its fork server where nothing forbids it (no Landlock
    signal scoping). That is noticed within a quarter of a second, recorded in `incidents` for
    the report, and the fork server is replaced when this process started it."""

    def __init__(self, scratch_root: str, attach_fd: int | None = None,
                 warm_ups: tuple[str, ...] | list[str] = ("autograd", "optim")):
        self.scratch_root = scratch_root
        self.warm_ups = list(warm_ups)
        self.proc: subprocess.Popen | None = None
        self.ctrl: socket.socket | None = None
        self.ready = False
        self.pid: int | None = None
        self.live: set[int] = set()  # workers forked and not yet waited for (a check's worker, its verifier)
        self.state: dict = {}  # what the fork server said of itself when ready (see zygote.fork_server_state)
        self.lost: str | None = None  # why the fork server stopped answering
        self.incidents: list[str] = []  # for the report; the judge drains it after each check
        self.attached = attach_fd is not None
        if attach_fd is not None:
            self.ctrl = socket.socket(fileno=attach_fd)
        self._log = tempfile.TemporaryFile()
        self._seq = 0  # request ids: an answer to a request given up on is dropped when it comes

    def _send(self, request: dict, fds: list[int] | None = None) -> int:
        assert self.ctrl is not None
        self._seq += 1
        data = json.dumps({**request, "id": self._seq}).encode()
        if fds:
            socket.send_fds(self.ctrl, [data], fds)
        else:
            self.ctrl.send(data)
        return self._seq

    def start(self) -> None:
        if self.attached:
            return
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-B", "-m", "grader.sandbox.zygote", str(child.fileno()), self.scratch_root,
             ",".join(self.warm_ups) or "none"],
            pass_fds=[child.fileno()], env=scrubbed_env(self.scratch_root), cwd=self.scratch_root,
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log,
        )
        child.close()
        self.ctrl, self.ready, self.pid, self.lost = parent, False, self.proc.pid, None

    def fork_here(self) -> None:
        """Start the fork server as a fork of this process, which must hold nothing of a job yet
        (a judge just forked from the judge template, grader.runtimes.template): torch and the
        workers' modules are imported already, so it is ready in milliseconds. Later restarts
        (a worker killed it) start a fresh interpreter, as `start` does."""
        global _PREFORKED
        env = scrubbed_env(self.scratch_root)
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            try:
                parent.close()
                from grader.sandbox.zygote import serve_forked

                serve_forked(child, self.scratch_root, set(self.warm_ups), env, self._log.fileno())
            finally:
                os._exit(70)
        child.close()
        self.proc = _Forked(pid)  # type: ignore[assignment]
        self.ctrl, self.ready, self.pid, self.lost = parent, False, pid, None
        _PREFORKED = self

    def _state(self) -> str | None:
        """Why the fork server cannot answer (stopped, gone), or None while it looks alive."""
        if self.pid is None:
            return None
        try:
            with open(f"/proc/{self.pid}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            return "is gone" if os.path.isdir("/proc/self") else None
        state = stat[stat.rfind(b")") + 2:][:1]
        if state in (b"T", b"t"):
            return "was stopped (SIGSTOP)"
        if state in (b"Z", b"X"):
            return "was killed"
        return None

    def _answer(self, timeout: float, want: int | None = None) -> dict:
        """The next answer (to request `want`: earlier answers, to requests given up on, are
        dropped); AnswerLate after `timeout` s, ChannelClosed when the fork server is stopped or gone."""
        assert self.ctrl is not None
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AnswerLate(f"did not answer within {timeout:g} s")
            self.ctrl.settimeout(min(remaining, 0.25))
            try:
                data = self.ctrl.recv(65536)
            except TimeoutError:
                why = self._state()
                if why:
                    raise ChannelClosed(why) from None
                continue
            except OSError as exc:
                raise ChannelClosed(str(exc)) from None
            if not data:
                raise ChannelClosed(self._state() or "was killed")
            answer = json.loads(data)
            if want is not None and isinstance(answer, dict) and answer.get("id") != want:
                continue
            return answer

    def _lose(self, why: str) -> None:
        if self.lost is None:
            self.lost = why
            self.incidents.append(f"the worker fork server {why}" + (
                ": it cannot be restarted inside the container, so the later checks of this submission fail"
                if self.attached else ": it is restarted for the next check"))

    def ensure_ready(self) -> None:
        if self.attached:
            if self.lost or self.ctrl is None:
                raise RuntimeError(f"the worker fork server {self.lost or 'has died'} (a worker of this submission "
                                   f"may have signalled it) and cannot be restarted inside the container: "
                                   f"this check could not run")
        elif self.lost or self.proc is None or self.proc.poll() is not None:
            if self.proc is not None:
                self._lose("died")
                self.close(kill=True)
            self.start()
        if not self.ready:
            try:
                ready = self._answer(timeout=120)
            except ChannelClosed:
                self._log.seek(0)
                log = self._log.read()[-2000:].decode(errors="replace")
                raise RuntimeError(f"the worker fork server did not start: {log}") from None
            self.pid = ready.get("pid", self.pid) if isinstance(ready.get("pid"), int) else self.pid
            self.state = {k: v for k, v in ready.items() if k not in ("ready", "pid")}
            self.ready = True

    def fork(self, config: dict, fds: list[int]) -> int:
        for attempt in range(2):
            self.ensure_ready()
            try:
                assert self.ctrl is not None
                rid = self._send({"op": "fork", **config}, fds)
                pid = int(self._answer(timeout=30, want=rid)["pid"])
                self.live.add(pid)
                return pid
            except (ChannelClosed, OSError) as exc:
                # a previous worker may have killed or stopped the fork server: replace it, once
                self._lose(str(exc) if isinstance(exc, ChannelClosed) else self._state() or "closed its channel")
                if attempt or self.attached:
                    raise RuntimeError(f"the worker fork server {self.lost} (a worker may have signalled it)") from None
        raise AssertionError("unreachable")

    def wait(self, pid: int, detach: bool = False) -> dict:
        """Have the fork server kill worker `pid` (and its session) and reap it; answer how it
        ended. `detach`: answer as soon as the kill is sent (how it ended is not known then)."""
        self.live.discard(pid)
        if self.lost:
            return {"exit": None, "zygote_lost": self.lost}
        try:
            assert self.ctrl is not None
            rid = self._send({"op": "wait", "pid": pid, **({"detach": True} if detach else {})})
            return self._answer(timeout=30, want=rid)
        except (ChannelClosed, OSError, AssertionError) as exc:
            self._lose(str(exc) if isinstance(exc, ChannelClosed) and str(exc) else self._state() or "closed its channel")
            return {"exit": None, "zygote_lost": self.lost}

    def peak_memory(self, pid: int, reset: bool = False) -> dict:
        """{"rss": bytes, "hwm": bytes} of a worker, read by the fork server (its parent, outside
        the worker's sandbox); `reset` first resets the peak mark. {"error": why} otherwise."""
        if self.lost or self.ctrl is None:
            return {"error": f"the worker fork server {self.lost or 'is not running'}"}
        try:
            rid = self._send({"op": "peak", "pid": pid, "reset": reset})
            return self._answer(timeout=30, want=rid)
        except (ChannelClosed, OSError) as exc:
            self._lose(str(exc) if isinstance(exc, ChannelClosed) and str(exc) else self._state() or "closed its channel")
            return {"error": f"the worker fork server {self.lost}"}

    def process(self, pid: int) -> int | None:
        """The pid of the process that runs worker `pid`'s code (in a PID namespace of its own, the
        worker's child: see grader.sandbox.zygote.Workers); None while the worker has not said yet,
        or when the fork server cannot answer."""
        if self.lost or self.ctrl is None:
            return None
        try:
            answer = self._answer(timeout=2, want=self._send({"op": "process", "pid": pid}))
        except AnswerLate:
            return None
        except (ChannelClosed, OSError) as exc:
            self._lose(str(exc) if isinstance(exc, ChannelClosed) and str(exc) else self._state() or "closed its channel")
            return None
        process = answer.get("process")
        return process if isinstance(process, int) else None

    def hugepages(self) -> str:
        """What the fork server has collapsed into huge pages so far (it does so while idle)."""
        if self.lost or self.ctrl is None:
            return f"the worker fork server {self.lost or 'is not running'}"
        try:
            return str(self._answer(timeout=30, want=self._send({"op": "hugepages"})).get("hugepages", ""))
        except (ChannelClosed, OSError) as exc:
            return f"no answer: {exc}"

    def tree_memory(self, pid: int) -> tuple[int | None, int]:
        """(bytes, processes) over worker `pid`'s process tree, measured by the fork server (see
        `grader.sandbox.treemem`); (None, 0) when it cannot answer or the worker is gone. Asked
        while a check runs, so it waits 2 s at most: a busy fork server must not hold the check
        past its time limit (its late answer is dropped)."""
        if self.lost or self.ctrl is None:
            return None, 0
        try:
            rid = self._send({"op": "tree", "pid": pid})
            answer = self._answer(timeout=2, want=rid)
        except AnswerLate:
            return None, 0
        except (ChannelClosed, OSError) as exc:
            self._lose(str(exc) if isinstance(exc, ChannelClosed) and str(exc) else self._state() or "closed its channel")
            return None, 0
        if answer.get("used") is None:
            return None, 0
        return int(answer["used"]), int(answer.get("count", 1))

    def close(self, kill: bool = False) -> None:
        kill = kill or not self.ready  # still starting (importing torch): it has no workers to wait for
        if self.ctrl is not None:
            try:
                if not kill:
                    self.ctrl.send(b'{"op": "exit"}')
            except OSError:
                pass
            self.ctrl.close()
            self.ctrl = None
        if self.proc is not None:
            if kill:
                self.proc.kill()  # SIGKILL also ends a stopped process
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.ready = False
