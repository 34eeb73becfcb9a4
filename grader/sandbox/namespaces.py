"""Private namespaces for a local worker, entered by the worker itself right after the fork.

Real PyTorch needs sockets: the CUDA driver's initialisation makes an AF_UNIX socket, DataLoader
workers pass batches through `multiprocessing.resource_sharer` (AF_UNIX), gloo talks TCP over
loopback. Allowing those sockets on the host would let a worker reach the host's services (a
Unix socket such as /var/run/docker.sock is root on the host; an ssh-agent; D-Bus; anything
listening on 127.0.0.1). So the worker first moves into namespaces of its own:

- network: a fresh one with only a loopback interface (brought up here): gloo works between the
  worker's own processes, nothing of the host (its loopback services, its abstract Unix
  sockets, the internet) is reachable;
- IPC: System V objects and POSIX message queues of its own, gone when the worker's last process
  exits;
- PID: the worker runs as the first process (PID 1) of a namespace of its own, with /proc mounted
  afresh for it where the kernel allows: no process outside (its judge, the judge template, other
  candidates' judges and workers) can be named, so none can be signalled, traced or read through
  /proc, even where Landlock cannot scope signals (ABI < 6, gVisor, no Landlock at all). A new PID
  namespace holds only the children of the process that made it. Where the fork server may make
  one (as root: `PidNamespaces`), it does so before each such fork, and the worker it forks is PID 1
  at once. Elsewhere (another user: the namespace needs the worker's own user namespace) the worker
  forks once more after `unshare` (`_split`), and the fork server's child stays outside as a small
  waiter (it reports the worker's pid to the fork server, then ends as the worker ends): a second
  fork of a process holding torch, about a quarter of a worker's start. As PID 1, the worker takes only
  the signals it has a handler for from inside its namespace (its own `kill(getpid(), SIGSTOP)` does
  nothing); from outside, SIGKILL always works, and when it ends every process it started ends too;
- mount: the folders where a machine keeps Unix sockets and shared files (/run, /var/run, /tmp,
  /var/tmp, /home, /root, /mnt, /media), and the grader's checkout (its hidden checks and
  solutions), are covered by empty tmpfs mounts, with only the paths the worker needs (its
  submission, its scratch, the Python installation and the grader's package when they live there)
  bound back, read-only but for the scratch folder (the covers are read-only too): without
  Landlock too, the worker reads no hidden check and writes nothing outside its scratch;
  /dev/shm is a private tmpfs of bounded size, gone with the worker.

As root this needs nothing more; as another user it takes a user namespace (mapped onto the
same uid and gid, so files keep their owners), which most kernels allow. Where neither works
(a container's default seccomp profile refuses unshare) `enter` says why and changes nothing:
the worker then keeps the socket ban (see `privileges`). Everything here is Linux only.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import signal
import socket
import struct
from collections.abc import Iterable

from grader.sandbox.libc import libc as _libc

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWUSER = 0x00020000, 0x08000000, 0x40000000, 0x10000000
CLONE_NEWPID = 0x20000000
MS_BIND, MS_REC, MS_PRIVATE, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x1000, 0x4000, 0x40000, 0x2, 0x4, 0x8
MS_RDONLY, MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 0x1, 0x20, 0x400, 0x800, 0x200000
# statvfs's f_flag bits that a remount must repeat (a user namespace may not clear them), and
# ST_RELATIME, whose mount flag differs
_KEPT_FLAGS, _ST_RELATIME = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME, 0x1000
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 1, 4, 36
FLAGS = CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWPID
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1

# Where machines keep sockets (docker.sock, ssh-agent, D-Bus, X11, systemd) and shared scratch.
HIDDEN = ("/run", "/var/run", "/tmp", "/var/tmp", "/home", "/root", "/mnt", "/media")


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(_libc().mount(source.encode() if source else None, target.encode(), fstype.encode() if fstype else None,
                         ctypes.c_ulong(flags), data.encode() if data else None), f"mount {target}")


def _write(path: str, text: str) -> None:
    with open(path, "w") as fh:
        fh.write(text)


def _loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        ifreq = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(sock, SIOCGIFFLAGS, ifreq))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


def _outermost(paths: Iterable[str]) -> list[str]:
    """The paths not inside another one of them (binding those covers the rest)."""
    unique = sorted({os.path.normpath(p) for p in paths})
    kept: list[str] = []
    for path in unique:
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return kept


def hidden_folders(hidden: Iterable[str] = HIDDEN, extra: Iterable[str] = ()) -> list[str]:
    """The folders of `hidden` and `extra` that exist here as real folders (a link such as
    /var/run -> /run is covered through its target), the outermost only (one inside another is
    covered with it)."""
    return _outermost(p for p in (*hidden, *extra) if os.path.isdir(p) and not os.path.islink(p))


def rebinds(keep: Iterable[str], hidden: Iterable[str]) -> dict[str, list[str]]:
    """For each hidden folder, the paths of `keep` inside it that must be bound back."""
    result: dict[str, list[str]] = {}
    for path in _outermost(os.path.abspath(p) for p in keep if os.path.exists(p)):
        for folder in hidden:
            if path == folder or path.startswith(folder.rstrip("/") + "/"):
                result.setdefault(folder, []).append(path)
                break
    return result


def _read_only(path: str) -> None:
    """Make the bind mount at `path` read-only, repeating the flags it has (a user namespace may
    not clear them). Best effort: a kernel that refuses leaves it as it was (Landlock, where there
    is one, still limits writes to the scratch folder)."""
    try:
        flags = os.statvfs(path).f_flag
        _mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | (flags & _KEPT_FLAGS)
               | (MS_RELATIME if flags & _ST_RELATIME else 0))
    except OSError:
        pass


def _hide(keep: list[str], shm_bytes: int, extra: Iterable[str] = (), writable: Iterable[str] = ()) -> None:
    hidden = hidden_folders(HIDDEN, extra)
    plan = rebinds(keep, hidden)
    writable = {os.path.normpath(p) for p in writable}
    fds = {path: os.open(path, os.O_PATH | os.O_CLOEXEC) for paths in plan.values() for path in paths}
    try:
        for folder in hidden:
            _mount("tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=1m")
            for path in plan.get(folder, []):
                if os.path.isdir(f"/proc/self/fd/{fds[path]}"):
                    os.makedirs(path, exist_ok=True)
                else:
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    open(path, "a").close()  # noqa: SIM115 - a mount point for a file
                _mount(f"/proc/self/fd/{fds[path]}", path, None, MS_BIND | MS_REC)
                if path not in writable:  # only the scratch folder is the worker's to write
                    _read_only(path)
            # nothing to write in the cover either (a file the judge would have had there, as a
            # path the worker may guess, must not appear to be written). Best effort, as
            # `_read_only`: a kernel that refuses (gVisor?) leaves a private 1 MiB cover writable,
            # rather than the worker without namespaces, hence without the sockets CUDA needs.
            try:
                _mount(None, folder, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
            except OSError:
                pass
        if os.path.isdir("/dev/shm"):
            _mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, f"mode=1777,size={max(shm_bytes, 1 << 20)}")
    finally:
        for fd in fds.values():
            os.close(fd)


def _wait_and_mirror(child: int, report_fd: int) -> None:
    """The fork server's child once the worker (`child`) runs in the new PID namespace: tell the
    fork server the worker's pid (as the fork server sees it: this process is outside the
    namespace), hold nothing of the worker's, wait for it and end as it ended (the exit status the
    fork server reports to the judge). Never returns."""
    code = 70
    try:
        try:
            os.write(report_fd, str(child).encode())
        finally:
            # the channel to the judge and the output pipe are the worker's: the judge sees their
            # end when the worker's ends, not this process's
            os.closerange(3, 1 << 16)
        # not traceable, and its /proc files not readable, by the worker (same user, same user
        # namespace, no capabilities left: being non-dumpable is what stops it)
        _libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        while True:
            try:
                _, status = os.waitpid(child, 0)
                break
            except InterruptedError:
                continue
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            try:
                signal.signal(sig, signal.SIG_DFL)
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
            except (OSError, ValueError):
                pass
            os.kill(os.getpid(), sig)
            code = 128 + sig  # a signal whose default is not to end a process
        elif os.WIFEXITED(status):
            code = os.WEXITSTATUS(status)
    finally:
        os._exit(code)


class PidNamespaces:
    """The fork server's side of a worker's PID namespace: `fork()` is os.fork() whose
    child is PID 1 of a namespace of its own, where this process may make one (as root, and
    where unshare is not refused); else a plain fork (`made` False: the worker makes its own, `_split`).

    `unshare(CLONE_NEWPID)` sets the namespace of this process's next children only (this process
    stays where it is); right after the fork the setting goes back to this process's own namespace
    (`setns`), so nothing else this process forks lands in the worker's. `GRADER_PIDNS_FORK=0` in
    the fork server's environment leaves it to the workers (to compare, and to test that way)."""

    def __init__(self) -> None:
        self._own: int | None = None
        self.usable = os.geteuid() == 0 and os.path.exists("/proc/self/ns/pid_for_children") and \
            os.environ.get("GRADER_PIDNS_FORK", "1") != "0"
        if self.usable:
            try:
                self._own = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                self.usable = False

    def fork(self) -> tuple[int, bool]:
        """os.fork(); (pid, made): `made` when the child is PID 1 of a new PID namespace."""
        made = False
        if self.usable:
            made = _libc().unshare(ctypes.c_int(CLONE_NEWPID)) == 0
            self.usable = made  # refused here (a seccomp profile, a limit): workers split as elsewhere
        try:
            pid = os.fork()
        except BaseException:
            if made:
                self._restore()
            raise
        if pid == 0:
            self.close()  # the worker keeps no handle on the fork server's namespace
        elif made:
            self._restore()
        return pid, made

    def _restore(self) -> None:
        if self._own is None or _libc().setns(ctypes.c_int(self._own), ctypes.c_int(CLONE_NEWPID)) != 0:
            err = ctypes.get_errno()  # never seen: a process may always go back to its own namespace
            raise OSError(err, f"setns back to the fork server's PID namespace: {os.strerror(err)}")

    def close(self) -> None:
        if self._own is not None:
            os.close(self._own)
            self._own = None


def outer_pid() -> int:
    """This process's pid as the host (the fork server) knows it: /proc still mounted for the
    fork server's PID namespace names it so, where getpid() says 1 inside the worker's own."""
    try:
        return int(os.readlink("/proc/self"))
    except (OSError, ValueError):
        return os.getpid()


def _mount_proc() -> None:
    """/proc of this namespace: the host's processes vanish from it. The kernel refuses where the
    host's /proc is partly covered (a container's masked paths): the host's stays, and the PID
    namespace still keeps every process outside from being signalled or traced."""
    try:
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except OSError:
        pass


def _split(report_fd: int) -> None:
    """Fork the worker into the PID namespace `unshare` made for this process's children: the
    child (PID 1 there) returns and goes on as the worker; this process stays outside as its waiter
    (`_wait_and_mirror`)."""
    libc = _libc()
    child = os.fork()
    if child:
        _wait_and_mirror(child, report_fd)
    os.close(report_fd)
    # a process group of its own: kill(0, ...) or killpg of its own group from the worker reaches
    # the worker's processes only, not its waiter outside (whose stop would hold up the reaping)
    os.setpgid(0, 0)
    # dies with its waiter (the fork server kills the waiter's session, or the waiter dies with the
    # fork server), and adopts its own orphans (as PID 1 it does anyway; not inherited by fork)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    _mount_proc()


def enter(keep: Iterable[str], shm_bytes: int, report_fd: int | None = None, hide: Iterable[str] = (),
          writable: Iterable[str] = (), pid_namespace_made: bool = False) -> None:
    """Move the calling process (single-threaded, just forked) into private network, IPC, mount
    and PID namespaces as described above. `keep`: paths the worker needs that may sit in a hidden
    folder, bound back read-only but for those in `writable`. `hide`: folders to cover besides
    `HIDDEN` (the grader's checkout: its hidden checks and solutions). `report_fd`: where the
    waiter left outside writes the worker's pid (see `_split`); closed in the worker.
    `pid_namespace_made`: the fork server forked this process as PID 1 of a PID namespace of its
    own (`PidNamespaces`): no second fork, no waiter. Raises OSError (nothing changed, or the
    process must not go on: the caller decides)."""
    uid, gid = os.geteuid(), os.getegid()
    flags = FLAGS & ~CLONE_NEWPID if pid_namespace_made else FLAGS
    if uid != 0:
        flags |= CLONE_NEWUSER
    _check(_libc().unshare(ctypes.c_int(flags)), "unshare")
    if uid != 0:  # the same ids inside: files keep their owners; capabilities within the namespace only
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing mounted here reaches the host, nor back
    _hide(list(keep), shm_bytes, hide, writable)
    _loopback_up()
    if pid_namespace_made:  # already PID 1 there: the fork server learns nothing more from the pipe
        if report_fd is not None:
            os.close(report_fd)
        _mount_proc()
        return
    if report_fd is None:
        report_fd = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
    _split(report_fd)


def available() -> str | None:
    """None when this process's children can enter the namespaces `enter` uses, else why not.
    Tried in a forked child (a multi-threaded process may not enter a user namespace)."""
    if not os.path.isdir("/proc/self/ns"):
        return "not Linux"
    flags = FLAGS | (CLONE_NEWUSER if os.geteuid() != 0 else 0)
    libc = _libc()  # loaded before the fork: the child takes no lock another thread may hold
    pid = os.fork()
    if pid == 0:
        code = 255
        try:
            code = 0 if libc.unshare(ctypes.c_int(flags)) == 0 else min(ctypes.get_errno(), 254)
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return None if code == 0 else f"unshare refused ({os.strerror(code) if 0 < code < 255 else code})"


def protections() -> list[str]:
    """What `enter` gives, in words (for reports)."""
    return ["private network namespace (loopback only: sockets allowed, nothing of the host reachable)",
            "private IPC namespace",
            "private PID namespace (no process outside the worker's own can be signalled or traced)",
            f"host socket folders hidden ({', '.join(HIDDEN)}), private /dev/shm",
            "the grader's checkout hidden; what is bound back for the worker read-only but its scratch folder"]
