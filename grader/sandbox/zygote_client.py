"""Judge side of the fork server: starting it (or attaching to one the container started), asking
it for workers, and having it kill and reap them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile

from grader.sandbox.protocol import ChannelClosed


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
    }
    for key in ("CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "CUBLAS_WORKSPACE_CONFIG"):
        if key in os.environ:
            env[key] = os.environ[key]
    return env


class Zygote:
    """The fork server process. Started early; its readiness is awaited on first use.

    `attach_fd`: the control socket of a fork server someone else started (the container's entry
    point starts it as the worker user); such a one cannot be restarted from here."""

    def __init__(self, scratch_root: str, attach_fd: int | None = None):
        self.scratch_root = scratch_root
        self.proc: subprocess.Popen | None = None
        self.ctrl: socket.socket | None = None
        self.ready = False
        self.restarts = 0
        self.attached = attach_fd is not None
        if attach_fd is not None:
            self.ctrl = socket.socket(fileno=attach_fd)
        self._log = tempfile.TemporaryFile()

    def start(self) -> None:
        if self.attached:
            return
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-B", "-m", "grader.sandbox.zygote", str(child.fileno()), self.scratch_root],
            pass_fds=[child.fileno()], env=scrubbed_env(self.scratch_root), cwd=self.scratch_root,
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log,
        )
        child.close()
        self.ctrl, self.ready = parent, False

    def _answer(self, timeout: float) -> dict:
        assert self.ctrl is not None
        self.ctrl.settimeout(timeout)
        try:
            data = self.ctrl.recv(65536)
        except (TimeoutError, OSError) as exc:
            raise ChannelClosed(str(exc)) from None
        if not data:
            raise ChannelClosed("zygote closed its channel")
        return json.loads(data)

    def ensure_ready(self) -> None:
        if self.attached:
            if self.ctrl is None:
                raise RuntimeError("the worker fork server has died and cannot be restarted here")
        elif self.proc is None or self.proc.poll() is not None:
            if self.proc is not None:
                self.restarts += 1
            self.start()
        if not self.ready:
            try:
                self._answer(timeout=120)
            except ChannelClosed:
                self._log.seek(0)
                log = self._log.read()[-2000:].decode(errors="replace")
                raise RuntimeError(f"the worker fork server did not start: {log}") from None
            self.ready = True

    def fork(self, config: dict, fds: list[int]) -> int:
        for attempt in range(2):
            self.ensure_ready()
            try:
                assert self.ctrl is not None
                socket.send_fds(self.ctrl, [json.dumps({"op": "fork", **config}).encode()], fds)
                return int(self._answer(timeout=30)["pid"])
            except (ChannelClosed, OSError):
                # a previous worker may have killed the zygote: start a new one and retry once
                if attempt or self.attached:
                    self.ctrl = None if self.attached else self.ctrl
                    raise RuntimeError("the worker fork server died (a worker may have killed it)") from None
                self.close()
        raise AssertionError("unreachable")

    def wait(self, pid: int) -> dict:
        try:
            assert self.ctrl is not None
            self.ctrl.send(json.dumps({"op": "wait", "pid": pid}).encode())
            return self._answer(timeout=30)
        except (ChannelClosed, OSError, AssertionError):
            return {"exit": None, "zygote_lost": True}

    def close(self) -> None:
        if self.ctrl is not None:
            try:
                self.ctrl.send(b'{"op": "exit"}')
            except OSError:
                pass
            self.ctrl.close()
            self.ctrl = None
        if self.proc is not None:
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.ready = False
