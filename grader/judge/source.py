"""The candidate's source as Python will run it, read in the judge, with bounds.

The judge's static checks must see the program the worker will execute. Python decodes a source
file with the encoding its PEP 263 declaration names (`# coding: unicode_escape` turns a "comment"
into code), so a file that declares anything but UTF-8 is refused: the check fails with a clear
message and the worker never imports it. Parsing is bounded too: a file too large, or nested so
deeply that `ast.parse` raises RecursionError / MemoryError, fails its own checks with a message
instead of crashing the judge for every submission.
"""

from __future__ import annotations

import ast
import codecs
import io
import tokenize
from pathlib import Path

MAX_SOURCE_BYTES = 4 << 20  # a candidate's file; honest answers are a few kB
UTF8_NAMES = {"utf-8", "utf-8-sig"}


class SourceProblem(ValueError):
    """The file cannot be read as the worker would run it; the message says what to do."""


def decode(path: Path, data: bytes) -> str:
    """The text of `data` as Python reads it, provided that is UTF-8 (with or without a BOM, with
    or without a `coding: utf-8` declaration). Raises SourceProblem for any other declared coding,
    invalid UTF-8 or an oversized file."""
    if len(data) > MAX_SOURCE_BYTES:
        raise SourceProblem(f"{path.name} is {len(data) >> 10} KiB: the grader reads candidate files of at most "
                            f"{MAX_SOURCE_BYTES >> 20} MiB")
    try:
        declared, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # an unknown coding, or a BOM that contradicts the declaration
        raise SourceProblem(f"{path.name}: {exc.msg if hasattr(exc, 'msg') else exc}; save it as UTF-8 "
                            f"without a coding declaration") from None
    try:
        name = codecs.lookup(declared).name
    except LookupError:
        name = declared
    if name not in UTF8_NAMES:
        raise SourceProblem(f"{path.name} declares the source encoding {declared!r} (PEP 263): the grader "
                            f"accepts UTF-8 only, so that its checks read the code Python runs; remove the "
                            f"coding line and save the file as UTF-8")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceProblem(f"{path.name} is not valid UTF-8 ({exc.reason} at byte {exc.start}): "
                            f"save it as UTF-8") from None


def read(path: Path) -> str:
    """`decode` of the file at `path` (read at most one byte past the size cap)."""
    with open(path, "rb") as fh:
        data = fh.read(MAX_SOURCE_BYTES + 1)
    return decode(path, data)


def parse(path: Path, source: str) -> ast.Module:
    """`ast.parse`, with the judge's own failures (too deep, too big) turned into SourceProblem.
    A SyntaxError is raised as is (the caller reports its line)."""
    try:
        return ast.parse(source, filename=str(path))
    except (RecursionError, MemoryError):
        raise SourceProblem(f"{path.name} is nested too deeply for the grader to parse (an expression or "
                            f"block thousands of levels deep): simplify it") from None
    except ValueError as exc:  # null bytes
        raise SourceProblem(f"{path.name} cannot be parsed: {exc}") from None
