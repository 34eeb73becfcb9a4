"""Framing and small shared types for the judge <-> worker channel.

Messages are length-prefixed byte strings on a Unix socket. Judge -> worker: cloudpickle (the
worker trusts the judge). Worker -> judge: `codec` (the judge trusts nothing from the worker).
"""

from __future__ import annotations

import collections
import select
import socket
import struct
import time
from dataclasses import dataclass
from typing import Any

MAX_MESSAGE = 1 << 31  # 2 GiB: a bigger answer from the worker is refused


class ChannelClosed(Exception):
    """The other end went away (worker died, or the judge hung up)."""


class ChannelTimeout(Exception):
    """No complete message before the deadline."""


class MessageTooLarge(Exception):
    pass


def rebuild_tensor(dtype: Any, shape: tuple[int, ...], data: bytes) -> Any:
    """A plain CPU tensor of a request (`grader.sandbox.requests`): a new contiguous tensor that
    owns its storage, as torch's own unpickling rebuilds it, without its torch.save and
    torch.load of every storage (about 170 us a tensor between the two ends)."""
    import torch

    if data:
        tensor = torch.frombuffer(bytearray(data), dtype=dtype).reshape(shape).clone()
    else:
        tensor = torch.empty(shape, dtype=dtype)
    torch.autograd.graph.increment_version(tensor)  # torch's rebuild (`set_`) leaves it at 1
    return tensor


def send_msg(sock: socket.socket, payload: bytes) -> None:
    if len(payload) < 65536:
        sock.sendall(struct.pack("<Q", len(payload)) + payload)
    else:
        sock.sendall(struct.pack("<Q", len(payload)))
        sock.sendall(payload)


def _recv_exact(sock: socket.socket, n: int, deadline: float | None, poll=None) -> bytearray:
    # The buffer grows with what has arrived (doubling), never to the size announced: a worker
    # that announces 2 GiB and sends nothing must not make the judge allocate 2 GiB.
    buf = bytearray(min(n, 1 << 20))
    view = memoryview(buf)
    got = 0
    while got < n:
        if got == len(buf):
            view.release()
            buf.extend(bytes(min(len(buf), n - len(buf))))
            view = memoryview(buf)
        if deadline is not None:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise ChannelTimeout()
                ready, _, _ = select.select([sock], [], [], min(remaining, 0.05))
                if ready:
                    break
                if poll is not None:
                    poll()
        chunk = sock.recv_into(view[got:], len(buf) - got)
        if chunk == 0:
            raise ChannelClosed()
        got += chunk
    return buf


def recv_msg(sock: socket.socket, deadline: float | None = None, max_size: int = MAX_MESSAGE, poll=None) -> bytearray:
    """Receive one message. `poll` is called every 50 ms while waiting (memory watchdog, etc.)."""
    (size,) = struct.unpack("<Q", _recv_exact(sock, 8, deadline, poll))
    if size > max_size:
        raise MessageTooLarge(f"message of {size} bytes exceeds the {max_size}-byte cap")
    return _recv_exact(sock, size, deadline, poll)


@dataclass
class GradLeaf:
    """A judge tensor that requires grad, sent to the worker to become a fresh leaf there."""

    index: int
    tensor: Any  # torch.Tensor


def _is_namedtuple(obj: Any) -> bool:
    return isinstance(obj, tuple) and hasattr(type(obj), "_fields")


def _is_container(obj: Any) -> bool:
    return type(obj) in (list, tuple, dict, collections.OrderedDict) or _is_namedtuple(obj)


def flatten_tensors(obj: Any, out: list | None = None, depth: int = 0) -> list:
    """Tensors inside lists, tuples and dicts, in a fixed order shared by judge and worker."""
    import torch  # here, not at the top: the judge starts the fork server before importing torch

    out = [] if out is None else out
    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif depth <= 64 and _is_container(obj):
        for item in (obj.values() if isinstance(obj, dict) else obj):
            flatten_tensors(item, out, depth + 1)
    return out


def replace_tensors(obj: Any, fn, depth: int = 0) -> Any:
    """Rebuild containers with every tensor t replaced by fn(t), visiting in `flatten_tensors` order."""
    import torch
    if isinstance(obj, torch.Tensor):
        return fn(obj)
    if depth > 64 or not _is_container(obj):
        return obj
    if isinstance(obj, dict):
        return type(obj)((k, replace_tensors(v, fn, depth + 1)) for k, v in obj.items())
    items = [replace_tensors(v, fn, depth + 1) for v in obj]
    if _is_namedtuple(obj):
        return type(obj)(*items)
    return type(obj)(items)
