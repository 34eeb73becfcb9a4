"""The warm judge of `grader watch`: a judge process that stays up between reruns.

    python -m grader.practice.server SCRATCH_ROOT WARM_UPS

It imports pytest, torch and the judge's plugin once and keeps one fork server (zygote) running;
for each rerun it forks a child that runs the judge's pytest session (the same command line and
plugin as `python -m grader.judge`), so a rerun costs a fork and the checks themselves instead of
an interpreter start, imports and a fork server start (seconds).

Protocol: JSON lines. Requests on stdin: {"op": "run", "spec": SPEC, "log": PATH} (one at a time)
and {"op": "cancel"}; EOF ends the server. Events on stdout: {"event": "ready"},
{"event": "started", "pid": N}, {"event": "done", "status": N} and {"event": "cancelled"}.

Cancelling (a newer save) kills the child, then has the fork server kill every worker it forked,
so nothing of the old run keeps running. A fork server that died (a worker may kill it) is
replaced after the run. The server, its child and the fork server die with `grader watch`
(parent-death signals), and the fork server's workers die with it.
"""

from __future__ import annotations

import gc
import json
import os
import selectors
import signal
import sys
import tempfile
from pathlib import Path

from grader.sandbox.libc import PR_SET_PDEATHSIG, prctl


def _send(out, event: dict) -> None:
    out.write(json.dumps(event) + "\n")
    out.flush()


class WarmServer:
    def __init__(self, scratch_root: str, warm_ups: list[str], out):
        from grader.sandbox.zygote_client import Zygote

        self.scratch_root = scratch_root
        self.warm_ups = warm_ups
        self.out = out
        self.zygote = Zygote(scratch_root, warm_ups=warm_ups)
        self.zygote.start()  # its torch import overlaps with ours
        self.child: int | None = None
        self.child_pipe: int | None = None
        self.sel = selectors.DefaultSelector()

    def warm(self) -> None:
        import cloudpickle  # noqa: F401
        import numpy  # noqa: F401
        import pytest  # noqa: F401
        import torch  # noqa: F401

        import grader.judge.plugin  # noqa: F401
        import grader.testing  # noqa: F401

        # What the checks' first call would otherwise import in every run child: assert_close's
        # first call imports torch.distributed.tensor (2 s on a loaded 2-core machine).
        torch.testing.assert_close(torch.zeros(2, 3), torch.zeros(2, 3))
        torch.testing.assert_close(torch.zeros(2, dtype=torch.float64), torch.zeros(2, dtype=torch.float64))
        _warm_pytest()
        self.zygote.ensure_ready()

    # --- a run -----------------------------------------------------------------------------------

    def start(self, spec: dict, log_path: str) -> None:
        if self.child is not None:
            self.cancel(reply=False)
        self.ensure_zygote()
        # Everything imported so far is permanent: the child's collections (pytest runs gc.collect
        # several times at exit) then skip it instead of touching, and so copying, every page.
        gc.freeze()
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: one judge session
            code = 1
            try:
                os.close(read_end)
                prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
                code = _run_child(spec, log_path, self.zygote)
            finally:
                os._exit(code)
        os.close(write_end)
        self.child, self.child_pipe = pid, read_end
        self.sel.register(read_end, selectors.EVENT_READ, "child")
        _send(self.out, {"event": "started", "pid": pid})

    def reap(self) -> int:
        """The child ended (its pipe closed): reap it; answer its status."""
        assert self.child is not None
        _, status = os.waitpid(self.child, 0)
        self._forget_child()
        self.ensure_zygote()
        return os.waitstatus_to_exitcode(status)

    def _forget_child(self) -> None:
        if self.child_pipe is not None:
            self.sel.unregister(self.child_pipe)
            os.close(self.child_pipe)
        self.child = self.child_pipe = None

    def cancel(self, reply: bool = True) -> None:
        if self.child is not None:
            try:
                os.kill(self.child, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self.child, 0)
            self._forget_child()
            self.kill_workers()
        if reply:
            _send(self.out, {"event": "cancelled"})

    def kill_workers(self) -> None:
        """Have the fork server kill the cancelled run's workers; answers the child never read are
        dropped. A fork server that does not answer is replaced."""
        from grader.sandbox.protocol import ChannelClosed

        z = self.zygote
        try:
            assert z.ctrl is not None
            z._send({"op": "kill_all"})  # the child's ids are its own: recognise the answer by its key
            for _ in range(100):
                if "killed" in z._answer(timeout=10):
                    return
        except (ChannelClosed, OSError, AssertionError, ValueError):
            pass
        self.restart_zygote()

    def ensure_zygote(self) -> None:
        z = self.zygote
        if z.proc is None or z.proc.poll() is not None or z._state() is not None:
            self.restart_zygote()

    def restart_zygote(self) -> None:
        from grader.sandbox.zygote_client import Zygote

        self.zygote.close(kill=True)
        self.zygote = Zygote(self.scratch_root, warm_ups=self.warm_ups)
        self.zygote.start()
        self.zygote.ensure_ready()

    # --- the loop --------------------------------------------------------------------------------

    def serve(self, requests) -> None:
        self.sel.register(requests, selectors.EVENT_READ, "requests")
        buffer = b""
        while True:
            for key, _ in self.sel.select():
                if key.data == "child":
                    if os.read(self.child_pipe, 64):
                        continue
                    status = self.reap()
                    _send(self.out, {"event": "done", "status": status})
                    continue
                chunk = os.read(requests.fileno(), 65536)
                if not chunk:
                    return
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    request = json.loads(line)
                    if request.get("op") == "run":
                        self.start(request["spec"], request["log"])
                    elif request.get("op") == "cancel":
                        self.cancel()

    def close(self) -> None:
        if self.child is not None:
            self.cancel(reply=False)
        self.zygote.close(kill=True)


def _warm_pytest() -> None:
    """One throw-away pytest session, so that each run child finds pytest's own plugins imported."""
    import contextlib
    import io

    import pytest

    with tempfile.TemporaryDirectory(prefix="grader-watch-warm-") as tmp:
        test = Path(tmp) / "test_warm.py"
        test.write_text("def test_warm():\n    assert 1 + 1 == 2\n")
        (Path(tmp) / "warm.ini").write_text("[pytest]\n")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            pytest.main([str(test), "-q", "-p", "no:cacheprovider", "--noconftest", "--rootdir", tmp,
                         "-c", str(Path(tmp) / "warm.ini"), "--import-mode=importlib"])


class _BorrowedProcess:
    """The fork server seen from the run child: the server's child, not the run's, so `Popen.poll`
    (waitpid) cannot tell whether it lives; /proc can."""

    def __init__(self, pid: int):
        self.pid = pid

    def poll(self) -> int | None:
        try:
            with open(f"/proc/{self.pid}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            return -9
        return -9 if stat[stat.rfind(b")") + 2:][:1] in (b"Z", b"X") else None

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def wait(self, timeout: float | None = None) -> int:
        return -9


def _run_child(spec: dict, log_path: str, zygote) -> int:
    """One judge session in the forked child: the judge's own pytest command line and plugin."""
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115 - the child's whole life
    sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
    import pytest

    from grader.judge.plugin import JudgePlugin
    from grader.judge.run import pytest_args

    if zygote.proc is not None:
        zygote.proc = _BorrowedProcess(zygote.proc.pid)
    plugin = JudgePlugin(spec, zygote)
    with tempfile.TemporaryDirectory(prefix="grader-watch-run-") as tmp:
        code = int(pytest.main(pytest_args(spec, Path(tmp)), plugins=[plugin]))
    sys.stdout.flush()
    sys.stderr.flush()
    return code


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    scratch_root, warm_ups = argv[0], [w for w in argv[1].split(",") if w and w != "none"]
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # dies with `grader watch`, and its fork server with it
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    os.environ.pop("PYTEST_ADDOPTS", None)
    os.environ.pop("PYTEST_PLUGINS", None)
    out = os.fdopen(os.dup(1), "w")  # events go here; stray prints of the judge go to stderr (a log)
    os.dup2(2, 1)
    server = WarmServer(scratch_root, warm_ups, out)
    try:
        server.warm()
        _send(out, {"event": "ready"})
        server.serve(sys.stdin.buffer)
    finally:
        server.close()


if __name__ == "__main__":
    main()
