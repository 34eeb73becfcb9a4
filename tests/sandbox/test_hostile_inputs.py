"""Hostile inputs that once cost a whole batch, or its availability (issue 43, sections 4 and 5).

- text from a submission that cannot be encoded (a lone surrogate in an exception message, a tar
  member whose path is not UTF-8) is made safe where results are built, and a report that fails
  anyway costs only itself (exit 1, named), never the other reports;
- whatever an archive does wrong is that submission's error, never the batch's;
- a tar bomb and a notebook of 400,000 cells are refused in seconds, before decompressing or
  validating them (timed by CPU time, with a generous wall-clock backstop);
- a submission's name cannot write escape sequences or GitHub workflow commands to stderr, and
  the Markdown summary has no autolink (`www.`, e-mail addresses).

The batch is graded once (module fixture) through the real CLI in a subprocess, with the local
runtime, against exercise 05 only; every other test is in-process and cheap.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import resource
import shutil
import struct
import subprocess
import sys
import tarfile
import time
import warnings
import zipfile
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.errors import SubmissionError
from grader.results import (
    CheckResult,
    Environment,
    ExerciseResult,
    Flag,
    GradeRun,
    SubmissionResult,
    safe_text,
)
from grader.submissions import opened

ROOT = Path(__file__).resolve().parents[2]
PILOT = "tensors/05_broadcast_bias"
REFERENCE = (ROOT / "solutions" / PILOT / "broadcast_bias.py").read_bytes()
EVIL_NAME = "x\x1b[2J\x1b]0;pwned\x07\n::notice title=graded::FORGED 10 of 10 (100 %)"
REPORTS = {"--json": "report.json", "--junit": "junit.xml", "--gradescope": "results.json",
           "--markdown": "summary.md", "--html": "report.html"}


def _cpu() -> float:
    return time.process_time()


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss << 10  # KiB on Linux


@contextlib.contextmanager
def _timed(cpu_limit_s: float, wall_backstop_s: float = 120.0, memory_limit: int | None = None):
    """Assert that the block used under `cpu_limit_s` of this process's CPU time (what the work
    costs, whatever else the machine runs), with a generous wall-clock backstop; and, with
    `memory_limit`, that this process's peak resident size grew by less than that."""
    t0, w0, m0 = _cpu(), time.monotonic(), _peak_rss()
    yield
    cpu, wall, grown = _cpu() - t0, time.monotonic() - w0, _peak_rss() - m0
    assert cpu < cpu_limit_s, f"took {cpu:.1f} s of CPU (the limit is {cpu_limit_s} s)"
    assert wall < wall_backstop_s, f"took {wall:.0f} s of wall-clock time"
    assert memory_limit is None or grown < memory_limit, f"its peak memory grew by {grown >> 20} MiB"


def _refusal(path: Path, cpu_limit_s: float, memory_limit: int | None = None) -> str:
    """Open `path`, which must be refused within the limits; the refusal's message."""
    with _timed(cpu_limit_s, memory_limit=memory_limit), pytest.raises(SubmissionError) as caught:
        with opened(path):
            pass
    return str(caught.value)


# --- hostile archives, made here ---------------------------------------------------------------------

def tar_gz(path: Path, members: dict[bytes, bytes]) -> Path:
    """A .tar.gz whose member names are raw bytes (not necessarily UTF-8)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.GNU_FORMAT, encoding="utf-8",
                      errors="surrogateescape") as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name.decode("utf-8", "surrogateescape"))
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    path.write_bytes(buf.getvalue())
    return path


def zip_with_bad_utf8_flag(path: Path) -> Path:
    """A zip whose member name has the UTF-8 flag set over bytes that are not UTF-8."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("broadcast_bias.py", REFERENCE)
    data = bytearray(buf.getvalue().replace(b"broadcast_bias.py", b"broadcast_bia\xff.py"))
    local, central = data.find(b"PK\x03\x04"), data.find(b"PK\x01\x02")
    data[local + 7] |= 0x08  # general purpose flag bit 11: names are UTF-8
    data[central + 9] |= 0x08
    path.write_bytes(bytes(data))
    return path


def zero_stream_tar_gz(path: Path, header: bytes, zero_mib: int) -> Path:
    """`header` (tar header blocks) then `zero_mib` MiB of zeros, gzip-compressed without compressing
    them one by one: after a full flush the deflate stream of 1 MiB of zeros is the same bytes
    every time, so a 16 GiB bomb is written in about a second. The trailer's CRC does not match:
    a reader that gets that far has already decompressed everything."""
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(path, "wb") as out:
        out.write(c.compress(header) + c.flush(zlib.Z_FULL_FLUSH))
        chunk = c.compress(bytes(1 << 20)) + c.flush(zlib.Z_FULL_FLUSH)
        assert c.compress(bytes(1 << 20)) + c.flush(zlib.Z_FULL_FLUSH) == chunk
        for _ in range(zero_mib):
            out.write(chunk)
        out.write(c.flush())
    return path


def _header(name: str, size: int, kind: bytes = tarfile.REGTYPE, fmt: int = tarfile.GNU_FORMAT) -> bytes:
    info = tarfile.TarInfo(name)
    info.size, info.type = size, kind
    return info.tobuf(format=fmt)


# --- one batch, graded once through the CLI ----------------------------------------------------------

@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("root")
    shutil.copytree(ROOT / "exercises" / PILOT, root / "exercises" / PILOT)
    shutil.copytree(ROOT / "solutions" / PILOT, root / "solutions" / PILOT)
    return root


@pytest.fixture(scope="module")
def batch(root, tmp_path_factory):
    """victim (the reference), a submission whose exception carries a lone surrogate, a tar.gz with
    a member path that is not UTF-8 (the reference), a zip with the UTF-8 flag over invalid bytes,
    a tar.gz whose pax header makes tarfile raise ValueError, and the reference under a name with
    escape sequences, a newline and a workflow command: graded with every report."""
    subs = tmp_path_factory.mktemp("subs")
    (subs / "victim.py").write_bytes(REFERENCE)
    evil = REFERENCE.decode().replace("return x + bias\n", "raise ValueError('boom \\ud800 here')\n", 1)
    assert evil != REFERENCE.decode()
    (subs / "surrogate.py").write_text(evil)
    tar_gz(subs / "nonutf8.tar.gz", {b"sub\xff/broadcast_bias.py": REFERENCE})
    zip_with_bad_utf8_flag(subs / "badflag.zip")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.PAX_FORMAT) as tf:
        info = tarfile.TarInfo("broadcast_bias.py")
        info.size, info.pax_headers = len(REFERENCE), {"GNU.sparse.map": "a,b", "GNU.sparse.size": "10"}
        tf.addfile(info, io.BytesIO(REFERENCE))
    (subs / "sparse.tar.gz").write_bytes(buf.getvalue())
    (subs / f"{EVIL_NAME}.py").write_bytes(REFERENCE)
    out = tmp_path_factory.mktemp("out")
    args = [sys.executable, "-m", "grader", "grade", *sorted(str(p) for p in subs.iterdir()), "-e", "05",
            "--runtime", "local", "-j", "2"]
    for flag, name in REPORTS.items():
        args += [flag, str(out / name)]
    env = {**os.environ, "GRADER_ROOT": str(root), "COLUMNS": "120"}
    env.pop("NO_COLOR", None)
    proc = subprocess.run(args, cwd=root, env=env, capture_output=True, timeout=600)
    written = out / "report.json"
    report = json.loads(written.read_text(encoding="utf-8")) if written.exists() and written.stat().st_size else None
    return proc, out, report


def _sub(report: dict | None, name: str) -> dict:
    assert report is not None, "the JSON report was not written"
    (sub,) = [s for s in report["submissions"] if s["name"] == name]
    return sub


def _file_of(report: dict, name: str) -> str | None:
    (ex,) = [e for e in report["exercises"] if e["submission"] == name]
    return ex["file"]


def test_a_lone_surrogate_costs_no_report_and_no_victim(batch):
    proc, out, report = batch
    stderr = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0, stderr[-3000:]
    assert "Traceback" not in stderr
    texts = {name: (out / name).read_bytes().decode("utf-8") for name in REPORTS.values()}  # valid UTF-8
    assert all(text.strip() for text in texts.values())  # every report written
    for name in ("junit.xml", "report.html"):
        assert "boom \\ud800 here" in texts[name], name
    outputs = [t["output"] for t in json.loads(texts["results.json"])["tests"]]
    assert any("boom \\ud800 here" in o for o in outputs)
    assert _sub(report, "victim")["score"] == _sub(report, "victim")["max_score"] == 10
    messages = [c["message"] for e in report["exercises"] if e["submission"] == "surrogate" for c in e["checks"]]
    assert any("boom \\ud800 here" in m for m in messages)  # shown as an escape: nothing lost silently
    assert 0 < _sub(report, "surrogate")["score"] < 10


def test_a_tar_member_path_that_is_not_utf8_is_graded_and_shown_escaped(batch):
    proc, out, report = batch
    assert _sub(report, "nonutf8")["error"] is None
    assert _sub(report, "nonutf8")["score"] == 10
    assert _file_of(report, "nonutf8") == "sub\\xff/broadcast_bias.py"


def test_a_zip_with_the_utf8_flag_over_invalid_bytes_is_that_archive_s_error(batch):
    proc, out, report = batch
    error = _sub(report, "badflag")["error"]
    assert "badflag.zip: not a readable zip archive (a member's name is not valid UTF-8" in error
    assert "sparse.tar.gz: not a readable tar archive (ValueError" in _sub(report, "sparse")["error"]
    assert _sub(report, "victim")["score"] == 10  # the others are graded all the same
    assert "not a readable zip archive" in (out / "summary.md").read_text(encoding="utf-8")


def test_a_name_with_escape_sequences_and_a_workflow_command_is_printed_inert(batch):
    proc, out, report = batch
    stderr = proc.stderr.decode("utf-8")
    assert "\x1b" not in stderr and "\x07" not in stderr
    lines = stderr.splitlines()
    assert not [line for line in lines if line.lstrip().startswith("::")], stderr
    assert any("x\\x1b[2J\\x1b]0;pwned\\x07\\x0a: :notice title=graded: :FORGED" in line and "10/10" in line
               for line in lines), stderr  # the progress line, escaped
    shown = safe_text(EVIL_NAME, newlines=False)
    assert _sub(report, shown)["score"] == 10  # graded under its escaped name
    for name in REPORTS.values():
        assert "\x1b" not in (out / name).read_text(encoding="utf-8")


def test_every_string_of_the_result_model_is_made_safe_where_it_is_built():
    hostile = "a\ud800b\udcffc\x1b[2J\r\nd\u202e"
    check = CheckResult(name=hostile, kind="value", weight=1.0, visibility="public", outcome="failed",
                        message=hostile, duration_s=0.0, file=hostile, line=1, output=hostile)
    assert check.message == "a\\ud800b\\xffc\\x1b[2J\nd\\u202e"  # newlines kept in messages
    assert check.name == check.file == "a\\ud800b\\xffc\\x1b[2J\\x0d\\x0ad\\u202e"  # one line
    assert safe_text(check.message) == check.message  # idempotent
    assert safe_text("\ud83d\ude00") == "\U0001f600"  # a surrogate pair is the character it encodes
    ex = ExerciseResult(id="05_broadcast_bias", title="t", track="tensors", difficulty="easy", points=10.0,
                        file=hostile, checks=(check,), problem=hostile, flags=(Flag(1, hostile, cell=None),))
    sub = SubmissionResult(name=hostile, path=hostile, exercises=(ex,), error=hostile)
    run = GradeRun(submissions=(sub,), environment=Environment(runtime="local", notes=(hostile,)),
                   started_at="", duration_s=1.0, tool_version="0",
                   extra={"progress": {hostile: [{"time": hostile, "exercise": "05", "event": hostile,
                                                  "passed": 1, "total": 2, "hints": 0}]}})
    strings = json.dumps(run.to_dict(), ensure_ascii=False) + json.dumps(run.extra, ensure_ascii=False)
    assert not any(0xD800 <= ord(ch) <= 0xDFFF or ch == "\x1b" for ch in strings)
    from grader.reports import render_report

    for kind in ("json", "junit", "gradescope", "markdown", "html"):
        render_report(kind, run).encode("utf-8")  # nothing that cannot be encoded


# --- a failing report costs only itself --------------------------------------------------------------

def test_a_report_that_fails_costs_only_itself(root, tmp_path, monkeypatch):
    from grader.cli import cli
    from grader.reports import markdown

    def broken(run, **options):
        raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")

    monkeypatch.setattr(markdown, "render", broken)
    sub = tmp_path / "victim.py"
    sub.write_bytes(REFERENCE)
    args = ["grade", str(sub), "-e", "05", "--runtime", "local", "-q"]
    for flag, name in REPORTS.items():
        args += [flag, str(tmp_path / "out" / name)]
    with contextlib.chdir(root):
        result = CliRunner().invoke(cli, args, env={"GRADER_ROOT": str(root)}, prog_name="grader")
    assert result.exit_code == 1, result.output
    assert "could not write --markdown" in result.output and "UnicodeEncodeError" in result.output
    assert "(the other reports were written)" in result.output
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert report["score"] == 10
    for name in ("junit.xml", "results.json", "report.html"):
        assert (tmp_path / "out" / name).read_text(encoding="utf-8").strip()


# --- every archive error is that archive's error -----------------------------------------------------

def _zip_bytes(data: bytes, method: int = zipfile.ZIP_DEFLATED) -> bytearray:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=method) as zf:
        zf.writestr("a.py", data)
    return bytearray(buf.getvalue())


def _zip_flag(data: bytearray, field: str, value: int) -> bytes:
    """Set a field of the member's local and central headers: the compression method or the flags."""
    local, central = data.find(b"PK\x03\x04"), data.find(b"PK\x01\x02")
    offsets = {"flags": (6, 8), "method": (8, 10)}[field]
    struct.pack_into("<H", data, local + offsets[0], value)
    struct.pack_into("<H", data, central + offsets[1], value)
    return bytes(data)


def _zip_garbled(method: int) -> bytes:
    """A member whose compressed bytes are garbage (its headers intact)."""
    data = _zip_bytes(b"x = 1\n" * 500, method)
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as zf:
        info = zf.infolist()[0]
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start:start + info.compress_size] = b"\xff" * info.compress_size
    return bytes(data)


def _tar_gz_bytes(members: dict[str, bytes], fmt: int = tarfile.GNU_FORMAT, pax: dict | None = None) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=fmt) as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.pax_headers = pax or {}
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


HOSTILE_ARCHIVES = {
    # what zipfile raises for each: NotImplementedError, RuntimeError, lzma.LZMAError, OSError (bz2),
    # zlib.error, UnicodeDecodeError; tarfile: ReadError, BadGzipFile, EOFError, ValueError
    "unsupported_method.zip": lambda: _zip_flag(_zip_bytes(b"x = 1\n" * 50), "method", 99),
    "encrypted.zip": lambda: _zip_flag(_zip_bytes(b"x = 1\n" * 50), "flags", 1),
    "garbled_lzma.zip": lambda: _zip_garbled(zipfile.ZIP_LZMA),
    "garbled_bz2.zip": lambda: _zip_garbled(zipfile.ZIP_BZIP2),
    "garbled_deflate.zip": lambda: _zip_garbled(zipfile.ZIP_DEFLATED),
    "bad_utf8_flag.zip": None,  # written by zip_with_bad_utf8_flag
    "truncated.tar.gz": lambda: _tar_gz_bytes({"a.py": os.urandom(5000)})[:-600],
    "not_gzip.tar.gz": lambda: b"PK\x03\x04" + b"\0" * 100,
    "garbage.tar.gz": lambda: b"\x1f\x8b\x08\x00" + b"garbage" * 20,
    "sparse_map.tar.gz": lambda: _tar_gz_bytes({"a.py": b"x"}, tarfile.PAX_FORMAT,
                                               {"GNU.sparse.map": "a,b", "GNU.sparse.size": "10"}),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_ARCHIVES))
def test_whatever_zipfile_or_tarfile_raise_is_a_submission_error(tmp_path, name):
    path = tmp_path / name
    if name == "bad_utf8_flag.zip":
        zip_with_bad_utf8_flag(path)
    else:
        path.write_bytes(HOSTILE_ARCHIVES[name]())
    with pytest.raises(SubmissionError, match=r"re-create|refused|could not unpack") as caught:
        with opened(path):
            pass
    assert "\n" not in str(caught.value)


def test_a_member_name_with_control_characters_is_unpacked_under_a_safe_name(tmp_path):
    path = tar_gz(tmp_path / "ctl.tar.gz", {b"a\x1b[2J\n/broadcast_bias.py": REFERENCE})
    with opened(path) as root:
        (found,) = [p for p in root.rglob("broadcast_bias.py")]
        assert found.relative_to(root).as_posix() == "a\\x1b[2J\\x0a/broadcast_bias.py"


# --- availability: refused in seconds, before the expensive part ------------------------------------

def test_a_tar_gz_declaring_16_gib_is_refused_in_seconds(tmp_path):
    bomb = zero_stream_tar_gz(tmp_path / "bomb.tar.gz", _header("m0.bin", 16 << 30), 16 << 10)
    assert 15 << 20 < bomb.stat().st_size < 20 << 20  # about 17 MB, as in the issue
    assert "refused: 'm0.bin' declares 16384 MiB (the limit is 200 MiB)" in _refusal(bomb, cpu_limit_s=10.0)


@pytest.mark.parametrize("kind", ["pax", "longname", "ratio", "many"])
def test_other_tar_bombs_are_refused_in_seconds(tmp_path, kind):
    path = tmp_path / f"{kind}.tar.gz"
    if kind == "pax":  # a pax record tarfile would read whole into memory
        zero_stream_tar_gz(path, _header("././@PaxHeader", 1 << 30, tarfile.XHDTYPE, tarfile.USTAR_FORMAT), 1024)
    elif kind == "longname":  # a GNU long name, read whole too
        zero_stream_tar_gz(path, _header("././@LongLink", 1 << 30, tarfile.GNUTYPE_LONGNAME), 1024)
    elif kind == "ratio":  # under the size cap, but 1000 times its archive
        zero_stream_tar_gz(path, _header("big.bin", 150 << 20), 150)
    else:  # many members, each small
        zero_stream_tar_gz(path, b"".join(_header(f"f{i}", 0) for i in range(6000)), 0)
    # pax and long-name records are read whole: the stream cap must stop them before memory does
    assert "refused" in _refusal(path, cpu_limit_s=10.0, memory_limit=256 << 20)


def test_an_archive_over_the_size_cap_is_refused_unread(tmp_path, monkeypatch):
    from grader import submissions

    monkeypatch.setattr(submissions, "MAX_ARCHIVE_BYTES", 1 << 20)
    big = tmp_path / "big.tar.gz"
    big.write_bytes(os.urandom(2 << 20))
    with pytest.raises(SubmissionError, match=r"refused: the archive is 2 MiB \(the limit is 1 MiB\)"):
        with opened(big):
            pass


def test_a_zip_whose_member_list_is_huge_is_refused_before_it_is_parsed(tmp_path):
    name = b"a"
    entry = struct.pack(zipfile.structCentralDir, zipfile.stringCentralDir, 20, 3, 20, 0, 0, 0, 0, 0, 0, 0, 0,
                        len(name), 0, 0, 0, 0, 0, 0) + name
    count = 1_000_000  # 44 MiB: ZipFile would take seconds and hundreds of MiB to parse it
    end = struct.pack(zipfile.structEndArchive, zipfile.stringEndArchive, 0, 0, 0xFFFF, 0xFFFF, len(entry) * count,
                      0, 0)
    path = tmp_path / "directory.zip"
    path.write_bytes(entry * count + end)
    assert "its list of members takes" in _refusal(path, cpu_limit_s=1.0, memory_limit=128 << 20)


def test_a_honest_archive_still_unpacks(tmp_path):
    members = {f"sub/tensors/05_broadcast_bias/f{i}.py".encode(): b"x = 1\n" * 100 for i in range(200)}
    members[b"sub/tensors/05_broadcast_bias/broadcast_bias.py"] = REFERENCE
    path = tar_gz(tmp_path / "honest.tar.gz", members)
    with opened(path) as root:
        assert (root / "sub/tensors/05_broadcast_bias/broadcast_bias.py").read_bytes() == REFERENCE
        assert len(list(root.rglob("*.py"))) == 201


def _notebook(path: Path, cells: int, cell_type: str = "raw", source: str = "") -> Path:
    cell = {"cell_type": cell_type, "id": "a", "metadata": {}, "source": source}
    if cell_type == "code":
        cell |= {"outputs": [], "execution_count": None}
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell] * cells}
    path.write_text(json.dumps(nb, separators=(",", ":")))
    return path


def test_a_notebook_of_400000_cells_is_refused_before_nbformat_runs(tmp_path):
    from grader.notebooks import NotebookProblem, read_cells

    nb = _notebook(tmp_path / "broadcast_bias.ipynb", 400_000)
    assert 20 << 20 < nb.stat().st_size < 32 << 20  # about 22 MB: under the size cap, as in the issue
    with warnings.catch_warnings(record=True) as seen, _timed(cpu_limit_s=5.0):
        warnings.simplefilter("always")
        with pytest.raises(NotebookProblem, match="has 400000 cells"):
            read_cells(nb)
    assert not seen


def test_a_notebook_with_duplicate_cell_ids_is_read_without_a_warning_per_cell(tmp_path):
    from grader.notebooks import read_cells

    nb = _notebook(tmp_path / "broadcast_bias.ipynb", 5000, "code", "x = 1")
    with warnings.catch_warnings(record=True) as seen, _timed(cpu_limit_s=5.0):
        warnings.simplefilter("always")
        cells = read_cells(nb)
    assert len(cells) == 5000 and not seen


def test_the_notebooks_of_one_submission_share_a_cell_budget(tmp_path):
    from grader.catalog import Catalog
    from grader.notebooks import locate
    from grader.notebooks.cells import MAX_SUBMISSION_CELLS
    from grader.submissions import IGNORED_DIRS

    for i in range(3):
        _notebook(tmp_path / f"a{i}.ipynb", MAX_SUBMISSION_CELLS // 2 - 10)
    _notebook(tmp_path / "broadcast_bias.ipynb", 30, "code", "x = 1")  # read last (sorted): over the budget
    ex = Catalog.load(ROOT).get("05")
    found = locate(tmp_path, [ex], True, {}, IGNORED_DIRS)
    assert "notebooks hold more than" in found[ex.id].problem


def test_a_notebook_of_huge_source_lists_is_refused_before_nbformat_runs(tmp_path):
    from grader.notebooks import NotebookProblem, read_cells

    cell = {"cell_type": "code", "id": "a", "metadata": {}, "source": ["x\n"] * 1_500_000, "outputs": [],
            "execution_count": None}
    nb = tmp_path / "broadcast_bias.ipynb"
    nb.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell]}))
    with _timed(cpu_limit_s=5.0), pytest.raises(NotebookProblem, match="lines of cell source"):
        read_cells(nb)


# --- output injection --------------------------------------------------------------------------------

def test_the_live_progress_prints_names_and_errors_without_markup_or_escapes():
    from rich.console import Console

    from grader.progress import LiveProgress, PlainProgress
    from grader.resultstore import Graded

    label = "[bold red]x[/] [/]\x1b[2J"
    graded = Graded(SubmissionResult(name=label, path="/p", exercises=(), error="[/] boom\n::error::FORGED"))
    console = Console(file=io.StringIO(), force_terminal=True, width=200, color_system=None)
    live = LiveProgress(console=console)
    live.start(total=1, resumed=[])
    live.finished(label, graded)  # a stray [/] in the name or the error must not crash the batch
    live.close()
    out = console.file.getvalue()
    assert "[bold red]x[/] [/]\\x1b[2J" in out and "\x1b[2J" not in out
    stream = io.StringIO()
    plain = PlainProgress(stream)
    plain.start(total=1, resumed=[])
    plain.finished(label, graded)
    assert "\x1b" not in stream.getvalue()
    assert not any(line.startswith("::") for line in stream.getvalue().splitlines())


def test_a_usage_error_naming_a_hostile_path_is_printed_inert(root, tmp_path):
    evil = tmp_path / "y\x1b]0;pwned\x07\n::error::FORGED.txt"
    evil.write_text("hi")
    env = {**os.environ, "GRADER_ROOT": str(root)}
    proc = subprocess.run([sys.executable, "-m", "grader", "grade", str(evil), "-e", "05", "--runtime", "local"],
                          cwd=root, env=env, capture_output=True, timeout=300)
    stderr = proc.stderr.decode("utf-8")
    assert proc.returncode == 2, stderr
    assert "\x1b" not in stderr and "\x07" not in stderr
    assert not any(line.startswith("::") for line in stderr.splitlines()), stderr
    assert "y\\x1b]0;pwned\\x07\\x0a: :error: :FORGED.txt" in stderr


def _run_with_flag(message: str, name: str = "alice") -> GradeRun:
    check = CheckResult(name="test_x", kind="value", weight=1.0, visibility="public", outcome="failed",
                        message=message, duration_s=0.0, file="exercises/x/test_public.py", line=3,
                        score=0.0, max_score=1.0)
    ex = ExerciseResult(id="05_broadcast_bias", title="t", track="tensors", difficulty="easy", points=1.0,
                        file="x.py", checks=(check,), flags=(Flag(2, message),))
    other = SubmissionResult(name="bob", path="/b", exercises=(ex,))
    return GradeRun(submissions=(SubmissionResult(name=name, path="/a", exercises=(ex,)), other),
                    environment=Environment(runtime="local"), started_at="", duration_s=1.0, tool_version="0")


@pytest.mark.parametrize("details", [True, False])
def test_markdown_has_no_autolink(details):
    from grader.reports import markdown

    quoted = ("calls www.example.com then WWW.Example.org, mails user@example.com and mailto:me@host.io, "
              "xmpp:a@b.cd, https://evil.example and ftp://x.y")
    run = _run_with_flag(quoted, name="www.evil.com user@evil.com")
    text = markdown.render(run, limit=markdown.STEP_SUMMARY_LIMIT if details else 1500)
    assert ("<pre>" in text) == details
    # inside <pre> (an HTML block) GitHub links nothing; everywhere else the text is escaped
    outside = re.sub(r"<pre>.*?</pre>", "", text, flags=re.S)
    assert "www&#46;example.com" in text and "&#58;//" in text
    for raw in ("www.example.com", "WWW.Example.org", "user@example.com", "me@host.io", "a@b.cd", "://",
                "www.evil.com", "user@evil.com"):
        assert raw not in outside, raw
    assert "www&#46;example.com" in outside and "user&#64;<wbr>example.com" in outside  # the same text, shown
    try:
        import cmarkgfm
        from cmarkgfm.cmark import Options
    except ImportError:  # GitHub's renderer, where it is installed: nothing links
        return
    html = cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE)
    assert "<a " not in html, html
