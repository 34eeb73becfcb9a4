"""A forked process's command line, rewritten in place so that `ps` and /proc/PID/cmdline say
what it has become (a judge, a fork server) rather than the template it was forked from.

The kernel reads /proc/PID/cmdline from the memory the process's arguments were copied to at exec
(`arg_start` to `arg_end` in /proc/PID/stat); the new text is written there, cut to that room and
padded with NULs. The template starts with a long padding argument to leave the room. Where
/proc says nothing of that range (old kernels, gVisor), the command line stays as it was.
"""

from __future__ import annotations

import ctypes


def _range(index: int) -> tuple[int, int] | None:
    try:
        with open("/proc/self/stat", "rb") as fh:
            stat = fh.read()
        fields = stat[stat.rfind(b")") + 2:].split()
        start, end = int(fields[index]), int(fields[index + 1])
    except (OSError, IndexError, ValueError):
        return None
    return (start, end) if 0 < start < end else None


def _overwrite(index: int, items: list[str]) -> bool:
    where = _range(index)
    if where is None:
        return False
    start, end = where
    room = end - start
    data = b"\0".join(a.encode(errors="replace") for a in items)[:room - 1]
    ctypes.memmove(start, data.ljust(room, b"\0"), room)
    return True


def set_cmdline(args: list[str]) -> bool:
    """Make /proc/self/cmdline read as `args` (cut to the room there is); True when it was done."""
    return _overwrite(45, args)  # fields 48 and 49 of /proc/PID/stat: arg_start, arg_end


def set_environ(env: dict[str, str]) -> bool:
    """Make /proc/self/environ read as `env` (what os.environ holds is set apart, with putenv):
    nothing of the template's own environment is left there. Cut to the room there is."""
    return _overwrite(47, [f"{k}={v}" for k, v in env.items()])  # fields 50 and 51: env_start, env_end
