"""Fingerprints: Python source normalized with the standard tokenizer, winnowed with copydetect.

Normalization follows copydetect's own filter (every name becomes `V`, every string `S`, comments
and whitespace go) but uses `tokenize` instead of pygments, about ten times faster; a file that does
not tokenize (a syntax error) falls back to copydetect's pygments filter. Each normalized character
keeps its position in the original text, so matching regions map back exactly. Winnowing, overlap
and slices are copydetect's (`copydetect.utils`).
"""

from __future__ import annotations

import importlib.util
import io
import keyword
import tokenize
from dataclasses import dataclass
from functools import cache

import numpy as np

from grader.errors import GraderError

NOISE_T = 25  # k: matches shorter than this many normalized characters are ignored
GUARANTEE_T = 30  # matches at least this long are always found (window = GUARANTEE_T - NOISE_T + 1)
_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER,
         tokenize.ENCODING}


@cache
def winnowing():
    """copydetect's utilities. Loaded from its file when possible: importing the copydetect package
    also imports matplotlib (seconds), which its winnowing does not use."""
    try:
        import copydetect
    except ImportError:
        raise GraderError("grader similarity needs copydetect: pip install 'torch-grader[similarity]'") from None
    return copydetect.utils


def _utils_without_matplotlib():
    spec = importlib.util.find_spec("copydetect")
    if spec is None or not spec.submodule_search_locations:
        return None
    location = next(iter(spec.submodule_search_locations))
    utils_spec = importlib.util.spec_from_file_location("_grader_copydetect_utils", f"{location}/utils.py")
    if utils_spec is None or utils_spec.loader is None:
        return None
    module = importlib.util.module_from_spec(utils_spec)
    try:
        utils_spec.loader.exec_module(module)
    except Exception:  # noqa: BLE001 - another copydetect layout: use the package import
        return None
    return module if all(hasattr(module, n) for n in ("get_document_fingerprints", "find_fingerprint_overlap",
                                                      "get_copied_slices", "filter_code")) else None


@cache
def utils():
    return _utils_without_matplotlib() or winnowing()


@dataclass
class Fingerprint:
    hashes: set  # winnowed k-gram hashes (the stub's removed)
    hash_idx: dict  # hash -> positions in the normalized text
    positions: np.ndarray  # normalized character -> where its token starts in the original text
    ends: np.ndarray  # ... and where it ends
    length: int  # of the original text


def normalize(text: str) -> tuple[str, np.ndarray, np.ndarray]:
    """The normalized text and, for each of its characters, where the text it stands for starts
    and ends in `text`."""
    starts = np.cumsum([0] + [len(line) + 1 for line in text.split("\n")])  # as StringIO.readline splits
    out: list[str] = []
    where: list[int] = []
    until: list[int] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in _SKIP:
                continue
            offset = int(starts[tok.start[0] - 1]) + tok.start[1] if tok.start[0] - 1 < len(starts) else len(text)
            if tok.type == tokenize.NAME and not keyword.iskeyword(tok.string):
                piece = "V"
            elif tok.type == tokenize.STRING or tok.type in _FSTRING:
                piece = "S"
            else:
                piece = tok.string
            out.append(piece)
            if piece == tok.string:
                where += range(offset, offset + len(piece))
                until += range(offset + 1, offset + len(piece) + 1)
            else:
                where.append(offset)
                until.append(offset + len(tok.string) if tok.start[0] == tok.end[0] else offset + 1)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return _pygments(text)
    return "".join(out), np.array(where, dtype=np.int64), np.array(until, dtype=np.int64)


_FSTRING = {getattr(tokenize, n) for n in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END") if hasattr(tokenize, n)}


def _pygments(text: str) -> tuple[str, np.ndarray, np.ndarray]:
    """copydetect's own filter, for text the tokenizer refuses; positions are approximate."""
    filtered, _ = utils().filter_code(text, "file.py", "python")
    scale = len(text) / max(len(filtered), 1)
    where = np.minimum((np.arange(len(filtered)) * scale).astype(np.int64), max(len(text) - 1, 0))
    return filtered, where, where + 1


def fingerprint(text: str, boilerplate: np.ndarray | None = None) -> Fingerprint:
    normalized, positions, ends = normalize(text)
    hashes, idx = utils().get_document_fingerprints(normalized, NOISE_T, GUARANTEE_T - NOISE_T + 1,
                                                    boilerplate if boilerplate is not None else [])
    return Fingerprint({int(h) for h in hashes}, {int(h): v for h, v in idx.items()}, positions, ends,
                       len(text))


def matches(a: Fingerprint, b: Fingerprint) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Character ranges of `a`'s and `b`'s texts covered by their shared fingerprints."""
    u = utils()
    idx_a, idx_b = u.find_fingerprint_overlap(a.hashes, b.hashes, a.hash_idx, b.hash_idx)
    return _ranges(u.get_copied_slices(idx_a, NOISE_T), a), _ranges(u.get_copied_slices(idx_b, NOISE_T), b)


def _ranges(slices, fp: Fingerprint) -> list[tuple[int, int]]:
    if not len(slices) or not len(slices[0]) or not len(fp.positions):
        return []
    last = len(fp.positions) - 1
    return [(int(fp.positions[min(int(s), last)]), int(fp.ends[min(int(e) - 1, last)]))
            for s, e in zip(*slices)]
