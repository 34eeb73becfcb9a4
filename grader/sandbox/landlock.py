"""A small ctypes binding to Linux Landlock, the unprivileged sandbox the local runtime's worker
applies to itself after the fork and before importing the candidate's code.

The worker may then read only the folders it is given (its submission, the Python installation,
site-packages, system libraries), write only its scratch folder, make no TCP connection and bind
no TCP port (ABI >= 4), and send no signal nor reach any abstract Unix socket outside its own
sandbox (ABI >= 6). Landlock also stops it from ptrace-ing or reading /proc/<pid>/environ of any
process outside the sandbox. Where Landlock is missing (old kernels, macOS) `restrict` says so and
changes nothing: the caller reports which protections were active.
"""

from __future__ import annotations

import ctypes
import os
import platform
from collections.abc import Iterable

from grader.sandbox.libc import libc as _libc

# syscall numbers are the same on x86_64 and aarch64 (generic table)
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1 << 0
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1

READ = EXECUTE | READ_FILE | READ_DIR
WRITE = (WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO | MAKE_SYM
         | REFER | TRUNCATE)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def abi_version() -> int:
    """The kernel's Landlock ABI version, or 0 when Landlock is unavailable."""
    if platform.system() != "Linux":
        return 0
    try:
        version = _libc().syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


def _fs_mask(abi: int) -> int:
    mask = READ | WRITE | MAKE_CHAR | MAKE_BLOCK
    if abi < 2:
        mask &= ~REFER
    if abi < 3:
        mask &= ~TRUNCATE
    if abi >= 5:
        mask |= IOCTL_DEV
    return mask


def protections(abi: int, tcp: bool = True) -> list[str]:
    """What `restrict` enforces at this ABI, in words (for reports)."""
    if abi <= 0:
        return []
    found = [f"Landlock ABI {abi}: filesystem limited to the submission, Python and scratch"]
    if abi >= 4 and tcp:
        found.append("Landlock: no TCP connect or bind")
    if abi >= 6:
        found.append("Landlock: no signals or abstract sockets outside the sandbox")
    return found


def restrict(read_paths: Iterable[str], write_paths: Iterable[str], tcp: bool = True) -> int:
    """Sandbox the calling process (irreversibly). Returns the ABI used, 0 when unavailable.
    `tcp`: also refuse every TCP connect and bind (False where the worker's network is private,
    so gloo can use loopback).

    Paths that do not exist are skipped. Raises OSError when Landlock is there but fails."""
    abi = abi_version()
    if abi <= 0:
        return 0
    libc = _libc()
    fs_mask = _fs_mask(abi)
    attr = _RulesetAttr(fs_mask, (NET_BIND_TCP | NET_CONNECT_TCP) if abi >= 4 and tcp else 0,
                        (SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL) if abi >= 6 else 0)
    size = ctypes.sizeof(_RulesetAttr) if abi >= 6 else (16 if abi >= 4 else 8)
    ruleset = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        rules = [(p, READ & fs_mask) for p in read_paths] + [(p, fs_mask & ~(MAKE_CHAR | MAKE_BLOCK)) for p in write_paths]
        for path, access in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                if not os.path.isdir(path):  # rules on files take file rights only
                    access &= EXECUTE | READ_FILE | WRITE_FILE | TRUNCATE | IOCTL_DEV
                rule = _PathBeneath(access, fd)
                if libc.syscall(_SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH),
                                ctypes.byref(rule), ctypes.c_uint32(0)) < 0:
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if libc.syscall(_SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) < 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)
    return abi
