"""What every forked child that serves the judge (a worker, the verifier) does with its channel's
messages: requests unpickled with remote handles restored, exceptions answered as data."""

from __future__ import annotations

import io
import os
import pickle
import traceback
from typing import Any

MAX_TRACEBACK = 4000
_frames_root: str | None = None


class RequestUnpickler(pickle.Unpickler):
    """Judge requests: ordinary pickles in which remote handles stand as persistent ids."""

    def __init__(self, data: bytes, objects: dict[int, Any]):
        super().__init__(io.BytesIO(data))
        self.objects = objects

    def persistent_load(self, pid: Any) -> Any:
        kind, ref = pid
        if kind != "handle" or ref not in self.objects:
            raise LookupError(f"stale handle {ref}")
        return self.objects[ref]


def keep_frames_under(folder: str) -> None:
    """Keep only frames of files under `folder` (an absolute path: the candidate's folder) in the
    tracebacks `error_answer` reports."""
    global _frames_root
    _frames_root = folder


def error_answer(exc: BaseException) -> dict:
    """The exception as data. Only frames of the candidate's own files are kept: a probe is the
    judge's code, shipped from a hidden test, and its lines must not reach a report."""
    frames = traceback.extract_tb(exc.__traceback__)
    if _frames_root is not None:
        frames = traceback.StackSummary.from_list(
            [f for f in frames if os.path.abspath(f.filename).startswith(_frames_root + os.sep)])
    where = "".join(frames.format())
    tb = where + "".join(traceback.format_exception_only(type(exc), exc))
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001
        message = "<unprintable>"
    return {"error": {"type": type(exc).__name__, "message": message[:MAX_TRACEBACK],
                      "traceback": tb[-MAX_TRACEBACK:], "where": where[-MAX_TRACEBACK:]}}
