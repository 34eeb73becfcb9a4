"""The verifier worker: a fork-server child that never imports the submission, where checks load
what the candidate's code saved (state dicts, TorchScript, ONNX) without parsing it in the judge.

`torch.jit.load`, an ONNX parser or an unpickler given candidate-made bytes run code paths the
candidate chose; in the judge that would be code execution next to the hidden checks. Here they
run in a process forked from the clean fork server, sandboxed like any worker (namespaces,
seccomp, Landlock: it reads Python and its own scratch only), holding nothing of the candidate's
but the bytes it is sent. The judge sends a trusted function (shipped by value) and its
arguments; the answer comes back as plain data through the codec, or as an error.

Also here: reading and writing files in a candidate worker's scratch (`read_file`,
`write_file`), the two ends of `sub.read_file` / `sub.write_file`.
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile
from typing import Any

from grader.sandbox import codec
from grader.sandbox.protocol import ChannelClosed, recv_msg, send_msg
from grader.sandbox.serving import RequestUnpickler, error_answer, keep_frames_under
from grader.sandbox.worker_setup import apply_limits, compile_caches, ensure_seeded, enter_sandbox

MAX_FILE = 256 << 20  # the most `read_file` returns, whatever the caller asks


def _inside(scratch: str, path: str) -> str:
    full = os.path.realpath(os.path.join(scratch, path))
    root = os.path.realpath(scratch)
    if full != root and not full.startswith(root + os.sep):
        raise PermissionError(f"{path!r} is outside the worker's scratch folder")
    return full


def read_file(scratch: str, path: str, max_bytes: int) -> bytes:
    """The bytes of `path` (relative to the worker's scratch, where the candidate's code runs),
    refused past `max_bytes`."""
    limit = min(int(max_bytes), MAX_FILE)
    with open(_inside(scratch, path), "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > limit:
            raise ValueError(f"{path} is {size} bytes, more than the {limit} bytes a check may read")
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{path} is more than the {limit} bytes a check may read")
    return data


def write_file(scratch: str, path: str, data: bytes) -> None:
    full = _inside(scratch, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as fh:
        fh.write(data)


def _refuse(obj: Any) -> codec.Ref:
    raise TypeError(f"a verifier function returns plain data (tensors, numbers, strings, containers), "
                    f"not {type(obj).__name__}")


def serve(sock: socket.socket, config: dict) -> None:
    """Run in the forked child: limits, sandbox, then run the judge's functions on what it sends."""
    scratch = config["scratch"]
    os.chdir(scratch)
    os.environ.update({"HOME": scratch, "TMPDIR": scratch, **compile_caches(scratch)})
    tempfile.tempdir = scratch
    keep_frames_under(scratch)  # tracebacks keep no frame of the judge's function (a hidden check's)
    apply_limits(config.get("rlimits", {}))
    # nothing of the candidate's to read: its "submission" is its own scratch
    sandbox = enter_sandbox({**config, "candidate": os.path.join(scratch, "none.py"), "submission_root": scratch})
    ensure_seeded(config)
    sys.dont_write_bytecode = True
    send_msg(sock, codec.encode({"ready": True, "scratch": scratch, "sandbox": sandbox}, _refuse))
    while True:
        try:
            raw = recv_msg(sock)
        except ChannelClosed:
            return
        try:
            req = RequestUnpickler(bytes(raw), {}).load()
            if req.get("op") != "verify":
                raise ValueError(f"the verifier runs functions only, not {req.get('op')!r}")
            answer = {"ok": req["fn"](*req.get("args", ()), **req.get("kwargs", {}))}
            payload = codec.encode(answer, _refuse)
        except BaseException as exc:  # noqa: BLE001 - reported to the judge as the check's failure
            payload = codec.encode(error_answer(exc), _refuse)
        send_msg(sock, payload)
