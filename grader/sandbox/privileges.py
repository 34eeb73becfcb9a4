"""Two more locks the worker puts on itself before importing the candidate's code (Linux only).

- `drop_capabilities`: a worker started by root (the local runtime run as root, as in CI) would
  otherwise keep every capability: reboot the machine, load kernel modules, lift its own rlimits,
  open raw sockets. Landlock restricts none of these. Dropping the whole set (and the bounding
  set, and locking root's capability regain on execve) leaves uid 0 with no more power than any
  user's. A no-op for other users.
- `install_filter`: a seccomp filter that refuses io_uring (which can open sockets behind
  seccomp's back), syscalls of another architecture (i386's socketcall on x86_64), System V IPC
  objects and the kernel keyring (both outlive the worker; the keyring holds the user's secrets),
  lowering its own CPU priority (a self-starved worker would look like an overloaded machine),
  the two prctl options that would hide a measured call's memory (no longer a child subreaper,
  transparent huge pages back on: see treemem.children_faults),
  and socket(2): for every family where nothing hides the host (`deny_new_sockets`), for all but
  Unix, IP and netlink where the worker's own namespaces or its container do (see `namespaces`).
  Landlock (ABI <= 7) governs TCP only: without this a local worker could send UDP anywhere (DNS
  exfiltration of what it sees of the hidden checks), or connect to a named Unix socket such as
  /var/run/docker.sock, which is root on the host. The worker keeps the sockets it was handed
  (its channel to the judge) and may still make socketpair(2)s.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct

from grader.sandbox.libc import libc as _libc

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_PR_CAPBSET_DROP, _PR_SET_SECUREBITS = 24, 28
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
_SECBIT_NOROOT, _SECBIT_NOROOT_LOCKED = 1 << 0, 1 << 1
_CAP_VERSION_3 = 0x20080522

# (seccomp audit arch, socket, io_uring_setup, io_uring_enter, io_uring_register)
_ARCHES = {"x86_64": (0xC000003E, 41, 425, 426, 427), "aarch64": (0xC00000B7, 198, 425, 426, 427)}
# System V IPC objects (shmget, msgget, semget: what creates or finds one) and the kernel keyring
# (add_key, request_key, keyctl). Neither torch nor CUDA uses them; both outlive the worker.
# Also what lowers the worker's own CPU priority (nice, SCHED_IDLE...): a worker that starves itself
# behind the other processes would pass for one on an overloaded machine, whose checks are not
# the candidate's failures (grader.sandbox.client.Overloaded).
_DENIED = {"x86_64": {"shmget": 29, "semget": 64, "msgget": 68, "add_key": 248, "request_key": 249, "keyctl": 250,
                      "setpriority": 141, "sched_setparam": 142, "sched_setscheduler": 144, "sched_setattr": 314},
           "aarch64": {"msgget": 186, "semget": 190, "shmget": 194, "add_key": 217, "request_key": 218,
                       "keyctl": 219, "sched_setparam": 118, "sched_setscheduler": 119, "setpriority": 140,
                       "sched_setattr": 274}}
# prctl(2) options a worker may not use: both would hide memory a measured call writes from the
# fork server's count (see treemem.children_faults), which sets them before the worker starts.
_PRCTL = {"x86_64": 157, "aarch64": 167}
PR_SET_CHILD_SUBREAPER, PR_SET_THP_DISABLE = 36, 41
_X32_SYSCALL_BIT = 0x40000000
AF_UNIX, AF_INET, AF_INET6, AF_NETLINK = 1, 2, 10, 16
# Socket families a worker may open where its namespaces (or its container) hide the host.
PRIVATE_NETWORK_FAMILIES = (AF_UNIX, AF_INET, AF_INET6, AF_NETLINK)

_BPF_LD_W_ABS, _BPF_JEQ_K, _BPF_JGE_K, _BPF_RET_K = 0x20, 0x15, 0x35, 0x06
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def seccomp_supported() -> bool:
    return platform.system() == "Linux" and platform.machine() in _ARCHES


def _filter_program(socket_families: tuple[int, ...] = ()) -> bytes:
    """The BPF program: foreign ABIs, io_uring, SysV IPC and the keyring refused; socket(2)
    refused unless its family is one of `socket_families`; everything else allowed."""
    arch, sys_socket, *uring = _ARCHES[platform.machine()]
    deny_socket = _RET_ERRNO | errno.EACCES  # what socket(2) answers when policy forbids it
    deny_other = _RET_ERRNO | errno.ENOSYS
    deny_ipc = _RET_ERRNO | errno.EPERM
    program = [
        (_BPF_LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        (_BPF_JEQ_K, 1, 0, arch),
        (_BPF_RET_K, 0, 0, deny_other),  # a foreign ABI (i386 on x86_64): nothing
        (_BPF_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
    ]
    if platform.machine() == "x86_64":
        program += [(_BPF_JGE_K, 0, 1, _X32_SYSCALL_BIT), (_BPF_RET_K, 0, 0, deny_other)]
    for nr in uring:
        program += [(_BPF_JEQ_K, 0, 1, nr), (_BPF_RET_K, 0, 0, deny_other)]
    for nr in _DENIED[platform.machine()].values():
        program += [(_BPF_JEQ_K, 0, 1, nr), (_BPF_RET_K, 0, 0, deny_ipc)]
    # prctl: the two options refused by their first argument; then the syscall number is loaded
    # again for what follows (the accumulator held the argument)
    program += [
        (_BPF_JEQ_K, 0, 4, _PRCTL[platform.machine()]),
        (_BPF_LD_W_ABS, 0, 0, 16),  # seccomp_data.args[0] (low word)
        (_BPF_JEQ_K, 1, 0, PR_SET_CHILD_SUBREAPER),
        (_BPF_JEQ_K, 0, 1, PR_SET_THP_DISABLE),
        (_BPF_RET_K, 0, 0, deny_ipc),
        (_BPF_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
    ]
    if socket_families:
        # not socket(2): skip to the final allow; else load args[0] (the family, low word) and
        # allow it only when listed
        program.append((_BPF_JEQ_K, 0, len(socket_families) + 2, sys_socket))
        program.append((_BPF_LD_W_ABS, 0, 0, 16))  # seccomp_data.args[0]
        for i, family in enumerate(socket_families):
            program.append((_BPF_JEQ_K, len(socket_families) - i, 0, family))
        program.append((_BPF_RET_K, 0, 0, deny_socket))
    else:
        program += [(_BPF_JEQ_K, 0, 1, sys_socket), (_BPF_RET_K, 0, 0, deny_socket)]
    program.append((_BPF_RET_K, 0, 0, _RET_ALLOW))
    return b"".join(struct.pack("<HBBI", *insn) for insn in program)


def install_filter(socket_families: tuple[int, ...] = ()) -> None:
    """Install the filter (irreversibly, inherited by children). `socket_families`: those socket(2)
    may still open (none: no new sockets at all). Raises OSError on failure."""
    if not seccomp_supported():
        raise OSError(errno.ENOSYS, f"seccomp filter not available on {platform.system()} {platform.machine()}")
    libc = _libc()
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    code = ctypes.create_string_buffer(_filter_program(tuple(socket_families)))
    prog = _SockFprog(len(code.raw) // 8, ctypes.addressof(code))
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "installing the seccomp filter failed")


def deny_new_sockets() -> None:
    """The filter with no socket family allowed (where nothing hides the host's sockets)."""
    install_filter(())


def drop_capabilities() -> None:
    """Give up every capability of this process for good. Raises OSError on failure."""
    if platform.system() != "Linux":
        return
    libc = _libc()
    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    if libc.capget(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capget failed")
    if not any(data):
        return  # an ordinary user (or a container's worker): nothing to give up
    # While CAP_SETPCAP is still held: root must not regain capabilities by execve, and the
    # bounding set is emptied (errors past the last capability the kernel knows are expected).
    libc.prctl(_PR_SET_SECUREBITS, _SECBIT_NOROOT | _SECBIT_NOROOT_LOCKED, 0, 0, 0)
    for cap in range(64):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    if libc.capset(header, (ctypes.c_uint32 * 6)()) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def protections(sockets: bool = False) -> list[str]:
    """What the worker applies here, in words (for reports). `sockets`: the worker's namespaces or
    container hide the host, so Unix and loopback sockets are allowed."""
    if not seccomp_supported():
        return ["capabilities dropped (root's included)"]
    return ["capabilities dropped (root's included)",
            "seccomp: no io_uring, no System V IPC, no kernel keyring, no lowered priority, "
            + ("sockets of the Unix, IP and netlink families only" if sockets else "no new sockets (UDP, Unix sockets)")]
