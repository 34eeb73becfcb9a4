"""The grading image's entry point (runs as root with CAP_SETUID, CAP_SETGID and CAP_CHOWN only).

    python3 -m grader.judge.container /out/spec.json

It imports torch, pytest and the judge once, then forks the fork server (which becomes the
`worker` user) and the judge (the `judge` user), joined by a socket pair, and waits: as the local
runtime's judge template does (grader.runtimes.template), where started as two fresh interpreters
they imported torch twice, a second of CPU on every submission. So that the fork server (and with
it every worker) inherits nothing of the job, root reads only the spec (paths and labels) and
judges the warm-ups from the exercises' files (hidden checks among them) in a child that exits.

The results folder belongs to `judge` (mode 0700) while checks run, so the candidate's code
cannot read or forge it; at the end it is handed to the host's user so the CLI can read it and
clean up. Root itself runs no candidate code and keeps no secrets.
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

from grader.judge.run import main_forked, preload, warm_ups
from grader.sandbox.libc import prctl
from grader.sandbox.zygote_client import scrubbed_env  # torch-free: torch is imported by `main` only

PR_SET_DUMPABLE = 4


def _drop_to(user: pwd.struct_passwd) -> None:
    os.setgroups([])
    os.setgid(user.pw_gid)
    os.setuid(user.pw_uid)
    if os.getuid() == 0 or os.geteuid() == 0:  # pragma: no cover - setuid must not fail silently
        raise SystemExit("could not drop privileges")
    # The change of user made the process undumpable (its /proc files root's), which exec used to
    # undo: the fork server must write its workers' /proc/PID/clear_refs (memory checks).
    prctl(PR_SET_DUMPABLE, 1)


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


def _warm_ups_apart(spec: dict) -> set[str]:
    """`warm_ups(spec)`, judged in a child process: reading the exercises' files leaves their text
    in freed memory, which the fork server forked from here (and every worker) would inherit."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read)
            os.write(write, ",".join(warm_ups(spec)).encode())
        finally:
            os._exit(0)
    os.close(write)
    data = b""
    while chunk := os.read(read, 4096):
        data += chunk
    os.close(read)
    os.waitpid(pid, 0)
    return {w for w in data.decode().split(",") if w}


def _become_judge(spec_path: Path, judge: pwd.struct_passwd, judge_home: Path, zygote_fd: int) -> str:
    """In the forked child: become `python -B -m grader.judge SPEC` run by `judge` in its home."""
    _drop_to(judge)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update({"GRADER_ZYGOTE_FD": str(zygote_fd), "HOME": str(judge_home), "TMPDIR": str(judge_home),
                "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    os.environ.clear()
    os.environ.update(env)
    import tempfile

    tempfile.tempdir = None  # TMPDIR is the judge's home now
    sys.dont_write_bytecode = True  # -B
    os.chdir(judge_home)
    sys.path[0] = str(judge_home)  # as `python -m` run there would have it
    return str(spec_path)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if os.environ.get("PYTHONHASHSEED") != "0":
        # the workers' string hashes must not vary from run to run (set order in a candidate's
        # code); forked from here, they keep this interpreter's seed
        os.execve(sys.executable, [sys.executable, "-m", "grader.judge.container", *argv],
                  {**os.environ, "PYTHONHASHSEED": "0"})
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

    warm = _warm_ups_apart(spec)  # as root: the worker user cannot see exercises/
    preload(warm)
    parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    zygote_pid = os.fork()
    if zygote_pid == 0:
        try:
            parent.close()
            _drop_to(worker)
            from grader.sandbox.zygote import serve_forked

            serve_forked(child, scratch_root, warm, scrubbed_env(scratch_root), sys.stdout.fileno())
        finally:
            os._exit(70)
    child.close()

    judge_pid = os.fork()
    if judge_pid == 0:
        main_forked(lambda: _become_judge(spec_path, judge, judge_home, parent.fileno()))
    parent.close()

    _, status = os.waitpid(judge_pid, 0)
    _end(zygote_pid)
    _hand_back(out_dir, host_uid, host_gid)
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    raise SystemExit(main())
