"""Attack: System V IPC, the kernel keyring and POSIX shared memory, all of which outlive a
process: a 1 GiB SysV segment left on the host (and state carried from one check to the next),
the grading user's keyring read into the report (or a key added to it), 16 MiB left in /dev/shm.
Honest baseline: pairwise_sq_dists (it answers right after writing to /dev/shm).
Expected: shmget/semget/msgget and add_key/keyctl are refused ("Operation not permitted"); the
/dev/shm file lands in a /dev/shm of the worker's own (local: its mount namespace; docker: its
container) and nothing is left on the machine.
"""
import ctypes
import os

KEY = 0x7AC0FFEE
NR = {"x86_64": {"add_key": 248, "keyctl": 250}, "aarch64": {"add_key": 217, "keyctl": 219}}[os.uname().machine]
libc = ctypes.CDLL(None, use_errno=True)


def _outcome(what, result):
    return f"{what}: {'allowed' if result >= 0 else os.strerror(ctypes.get_errno())}"


def add_feature_bias(x, bias):
    found = [_outcome("shmget", libc.shmget(KEY, 1 << 30, 0o1666)),  # IPC_CREAT | 0666
             _outcome("semget", libc.semget(KEY, 1, 0o1666)),
             _outcome("msgget", libc.msgget(KEY, 0o1666))]
    raise PermissionError("; ".join(found))


def add_sample_bias(x, bias):
    buf = ctypes.create_string_buffer(4096)
    found = [_outcome("add_key", libc.syscall(NR["add_key"], b"user", b"torch-grader-attack", b"planted", 7, -4)),
             # KEYCTL_READ (11) of the user keyring (-4): the grading user's secrets
             _outcome("keyctl read", libc.syscall(NR["keyctl"], 11, -4, buf, 4096))]
    raise PermissionError("; ".join(found))


def pairwise_sq_dists(a, b):
    with open("/dev/shm/torch-grader-attack-shm", "wb") as fh:
        fh.write(b"x" * (16 << 20))
    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)
