"""A node's shared judge template: one template process that every grading process of this user on
this machine connects to, and that outlives them for a while (a Ray node's workers).

    template = SharedTemplate(python, env)       # connects, or starts the template and connects
    template.fork(...)                           # as grader.runtimes.template.JudgeTemplate
    template.close()                             # hangs up: the judges it asked for are killed

Why: a Ray worker process grades one submission after another with its local runtime, whose judge
template (grader.runtimes.template: torch, pytest and the judge imported once, 2.5-4 CPU-s) the
process's pool keeps (grader.runtimes.template_pool). But a node runs several Ray workers at once,
and every new job (each `grader grade --runtime ray`) gets new ones: each paid for a template of
its own. Here they share one, started by the first of them and kept GRADER_TEMPLATE_IDLE_S seconds
(default 300: template_pool.SHARED_IDLE_S) after the last one hangs up.

What it shares is what a process's pool already shares between runtimes: the template reads no
spec, exercise or submission, so no job learns anything of another through it, and each judge and
fork server is forked fresh from it. It is found by a key of the interpreter, the judge's
environment and the grader's own source files (their sizes and modification times): a changed
checkout or environment starts another template, never a stale one.

Where it lives: a Unix socket in a folder of this user's only (mode 0700, owned by this uid, not a
link, in a folder where nobody else may rename it; GRADER_TEMPLATE_DIR, else
`torch-grader-UID/templates` in the temporary folder), with the template's log beside it. Workers cannot reach it: their mount namespace covers /tmp and /run
(grader.sandbox.namespaces), and where they have no namespaces they may make no socket at all. A
folder inside what the namespace shows them again (the Python installation, the grader's checkout)
is refused.
Starting is serialised by a lock file: the first process binds the socket, hands it to the template
it starts (so a grader can connect at once and wait for its ready message), and the others connect.
A socket left by a template that died (refused) is replaced.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import select
import socket
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from grader.runtimes.template import PAD_VARIABLE, PADDING, JudgeTemplate, TemplateUnavailable

_GRADER = Path(__file__).resolve().parent.parent


def template_dir() -> Path:
    """The user's folder of shared templates, made if missing; TemplateUnavailable if it is not
    this user's alone."""
    base = os.environ.get("GRADER_TEMPLATE_DIR") or os.path.join(tempfile.gettempdir(),
                                                                  f"torch-grader-{os.getuid()}", "templates")
    path = Path(base)
    real = os.path.realpath(path)
    for seen in (sys.prefix, sys.base_prefix, sys.exec_prefix, str(_GRADER.parent)):
        root = os.path.realpath(seen)
        if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
            raise TemplateUnavailable(f"{path} is inside {root}, which every worker can read: shared judge "
                                      f"templates are not kept there; set GRADER_TEMPLATE_DIR to a folder "
                                      f"outside the Python installation and the grader's checkout")
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(path)
    except OSError as exc:
        raise TemplateUnavailable(f"no folder for shared judge templates at {path}: {exc}") from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise TemplateUnavailable(f"{path} is not a folder of this user's alone (mode 0700): shared judge "
                                  f"templates are not kept there; remove it or set GRADER_TEMPLATE_DIR")
    # nor may anyone else swap it, or a folder above it, for another: every folder above it is this
    # user's or root's, and others may not rename in it (not writable by them, or sticky as /tmp is)
    for folder in Path(os.path.realpath(path)).parents:
        above = os.stat(folder)
        if above.st_uid not in (0, os.getuid()) or (above.st_mode & 0o022 and not above.st_mode & stat.S_ISVTX):
            raise TemplateUnavailable(f"{folder} is writable by other users: shared judge templates are not "
                                      f"kept under it; remove it or set GRADER_TEMPLATE_DIR")
    return path


def source_stamp() -> str:
    """The grader's own source files as they are now (path, size, modification time)."""
    h = hashlib.sha256()
    for file in sorted(_GRADER.rglob("*.py")):
        try:
            info = file.stat()
        except OSError:
            continue
        h.update(f"{file.relative_to(_GRADER)}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return h.hexdigest()


def template_key(python: str, env: dict[str, str]) -> str:
    text = json.dumps([python, sorted(env.items()), str(_GRADER), source_stamp()])
    return hashlib.sha256(text.encode()).hexdigest()[:16]  # a socket path has 107 bytes at most


class SharedTemplate(JudgeTemplate):
    """A connection to the node's shared template for (python, env); the JudgeTemplate interface."""

    def __init__(self, python: str, env: dict[str, str], idle_s: float = 60.0):
        self.owner_pid = os.getpid()
        self._lock = threading.Lock()
        self.ready = False
        self.state = {}
        folder = template_dir()
        key = template_key(python, env)
        self.path = str(folder / f"{key}.sock")
        self.log_path = folder / f"{key}.log"
        self._log = open(os.devnull, "rb")  # JudgeTemplate reads its log on failure: this one is beside the socket
        self.ctrl = self._connect()
        if self.ctrl is None:
            with open(folder / f"{key}.lock", "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                self.ctrl = self._connect() or self._start(python, env, idle_s)

    def _connect(self) -> socket.socket | None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            sock.connect(self.path)
        except OSError:  # none yet, or a dead one's socket (refused)
            sock.close()
            return None
        return sock

    def _start(self, python: str, env: dict[str, str], idle_s: float) -> socket.socket:
        """Bind the socket, start the template on it, connect (under the lock)."""
        try:
            os.unlink(self.path)  # a dead template's
        except FileNotFoundError:
            pass
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            listener.bind(self.path)
            listener.listen(64)
            with open(self.log_path, "wb") as log:
                proc = subprocess.Popen(
                    [python, "-m", "grader.runtimes.template", "--listen", str(listener.fileno()), str(idle_s), PADDING],
                    pass_fds=[listener.fileno()], env={**env, "PYTHONHASHSEED": "0", PAD_VARIABLE: PADDING},
                    cwd="/", stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
            proc.wait()  # it forks the template and exits at once (the template is not our child)
        except OSError as exc:
            raise TemplateUnavailable(f"could not start a shared judge template at {self.path}: {exc}") from None
        finally:
            listener.close()
        sock = self._connect()
        if sock is None:
            raise TemplateUnavailable(f"the shared judge template at {self.path} did not accept")
        return sock

    def alive(self) -> bool:
        """While the connection is: the template hangs up only by ending."""
        ctrl = self.ctrl
        if ctrl is None:
            return False
        poller = select.poll()
        poller.register(ctrl, select.POLLHUP | select.POLLERR)
        return not poller.poll(0)

    def _await_ready(self) -> None:
        try:
            super()._await_ready()
        except TemplateUnavailable as exc:
            try:
                log = self.log_path.read_bytes()[-2000:].decode(errors="replace")
            except OSError:
                log = ""
            raise TemplateUnavailable(f"{exc} {log}".strip()) from None

    def close(self) -> None:
        """Hang up: the template kills the judges this connection asked for, and goes on serving
        the others (it ends itself once idle)."""
        if os.getpid() != self.owner_pid:
            return
        with self._lock:
            ctrl, self.ctrl = self.ctrl, None
        if ctrl is not None:
            ctrl.close()
        self._log.close()
