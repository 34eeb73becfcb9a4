"""The grading image's entry point (runs as root with CAP_SETUID, CAP_SETGID and CAP_CHOWN only).

    python3 -m grader.judge.container /out/spec.json

It starts the fork server as the `worker` user and the judge as the `judge` user, joined by a
socket pair, then waits. The results folder belongs to `judge` (mode 0700) while checks run, so
the candidate's code cannot read or forge it; at the end it is handed to the host's user so the
CLI can read it and clean up. Root itself runs no candidate code and keeps no secrets.
"""

from __future__ import annotations

import json
import os
import pwd
import signal
import socket
import sys
import time
from pathlib import Path

from grader.judge.run import warm_ups
from grader.sandbox.zygote_client import scrubbed_env  # torch-free: root imports no torch


def _drop_to(user: pwd.struct_passwd) -> None:
    os.setgroups([])
    os.setgid(user.pw_gid)
    os.setuid(user.pw_uid)
    if os.getuid() == 0 or os.geteuid() == 0:  # pragma: no cover - setuid must not fail silently
        raise SystemExit("could not drop privileges")


def _hand_back(folder: Path, uid: int, gid: int) -> None:
    # Without CAP_FOWNER root may only chmod what it owns: take ownership, set modes, hand over.
    for path in [folder, *folder.rglob("*")]:
        if path.is_symlink():
            continue
        try:
            os.chown(path, 0, 0)
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
            os.chown(path, uid, gid)
        except OSError:
            pass


def _end(zygote_pid: int) -> None:
    """Reap the fork server, which exits once the judge says so. Without CAP_KILL root may not
    signal the worker's user: PermissionError here used to abort the entry point before the
    results were handed back (unreadable for a CLI not run as root). A fork server that does not
    exit (a worker stopped it) dies with this process, PID 1 of the container."""
    try:
        os.kill(zygote_pid, signal.SIGKILL)
    except OSError:
        pass
    for _ in range(50):
        try:
            if os.waitpid(zygote_pid, os.WNOHANG)[0]:
                return
        except ChildProcessError:
            return
        time.sleep(0.05)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    spec_path = Path(argv[0])
    spec = json.loads(spec_path.read_text())
    judge, worker = pwd.getpwnam("judge"), pwd.getpwnam("worker")
    out_dir = Path(spec["results_path"]).parent
    host_uid, host_gid = spec.get("host_uid", 0), spec.get("host_gid", 0)
    scratch_root = spec["scratch_root"]
    os.chown(out_dir, 0, 0)
    os.chmod(out_dir, 0o700)
    os.chown(out_dir, judge.pw_uid, judge.pw_gid)
    # The judge's home and temporary files: a folder of its own, made before any worker exists.
    # /tmp is shared (sticky, 1777; Docker copies the image's mode onto the tmpfs) and, where
    # Landlock is missing, a worker could plant files there in the judge's way (caches, links).
    judge_home = Path("/tmp/judge")
    judge_home.mkdir(mode=0o700)
    os.chown(judge_home, judge.pw_uid, judge.pw_gid)

    features = ",".join(warm_ups(spec)) or "none"  # read as root: the worker user cannot see exercises/
    parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    zygote_pid = os.fork()
    if zygote_pid == 0:
        try:
            parent.close()
            _drop_to(worker)
            os.set_inheritable(child.fileno(), True)
            os.chdir(scratch_root)
            os.execve(sys.executable, [sys.executable, "-I", "-B", "-m", "grader.sandbox.zygote",
                                       str(child.fileno()), scratch_root, features], scrubbed_env(scratch_root))
        finally:
            os._exit(70)
    child.close()

    judge_pid = os.fork()
    if judge_pid == 0:
        try:
            _drop_to(judge)
            os.set_inheritable(parent.fileno(), True)
            env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
            env.update({"GRADER_ZYGOTE_FD": str(parent.fileno()), "HOME": str(judge_home), "TMPDIR": str(judge_home),
                        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
            os.chdir(judge_home)
            os.execve(sys.executable, [sys.executable, "-B", "-m", "grader.judge", str(spec_path)], env)
        finally:
            os._exit(70)
    parent.close()

    _, status = os.waitpid(judge_pid, 0)
    _end(zygote_pid)
    _hand_back(out_dir, host_uid, host_gid)
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    raise SystemExit(main())
