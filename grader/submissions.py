"""Opening submissions and finding the candidate's file for each exercise.

A submission is a folder, a single .py file, or a .zip / .tar.gz archive (unpacked safely: no
absolute paths, no `..`, no links, no devices; caps on the archive's own size, on size, file count
and compression ratio, checked on what each member declares before it is decompressed, and on
what is actually decompressed). Whatever an archive does wrong, or whatever zipfile / tarfile raise
on it, is that submission's `SubmissionError`, never the batch's. Member names are made safe as
they are unpacked (`grader.results.safe_text`: a byte that is not UTF-8 becomes a visible `\\xNN`,
control characters an escape), so no file name downstream holds a surrogate or a control.
Candidate files are found by the exercise layout (`<track>/<NN_name>/<name>.py`, at any depth) or,
failing that, by a unique `<name>.py` anywhere in the submission. Jupyter notebooks are accepted
wherever a .py file is (`<name>.ipynb`, or cells marked for exercises): see `grader.notebooks`.
"""

from __future__ import annotations

import gzip
import os
import stat
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from grader import notebooks
from grader.candidate_file import CandidateFile
from grader.catalog import Exercise
from grader.errors import SubmissionError, UsageError
from grader.results import safe_text

MAX_TOTAL_BYTES = 200 * 1024 * 1024
MAX_ARCHIVE_BYTES = MAX_TOTAL_BYTES  # the archive file itself
MAX_FILES = 5000
MAX_RATIO = 200  # uncompressed / compressed: per member (zip), over the whole stream (tar.gz)
RATIO_FLOOR = 1 << 20  # under this much unpacked, no ratio is a bomb
MAX_ZIP_DIRECTORY = MAX_FILES * 1024  # a zip's central directory (names, extra fields), parsed whole by ZipFile
# a tar stream holds headers (and pax / long-name records, padding) besides the members' data
MAX_TAR_STREAM = MAX_TOTAL_BYTES + MAX_FILES * 4 * 512 + (1 << 20)
IGNORED_DIRS = {".git", "__pycache__", ".venv", "venv", "node_modules", ".ipynb_checkpoints", "mistakes"}


def _shown(path: Path | str) -> str:
    """A path as messages quote it: on one line, nothing in it that a terminal or a report would
    act on (`safe_text`)."""
    return safe_text(str(path), newlines=False)


def submission_name(path: Path) -> str:
    """The submission's name from its file or folder name, made safe to print and to encode (a
    non-UTF-8 byte, an escape sequence or a newline in a file name is shown escaped)."""
    name = path.name
    for suffix in (".tar.gz", ".tgz", ".zip", ".py", ".ipynb"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return safe_text(name, newlines=False)


@contextmanager
def opened(path: Path) -> Iterator[Path]:
    """Yield a folder (or a single .py or .ipynb file) holding the submission; archives are unpacked to a
    temporary folder removed afterwards."""
    path = Path(path)
    if not path.exists():
        raise UsageError(f"submission not found: {_shown(path)}")
    if path.is_dir() or path.suffix in (".py", ".ipynb"):
        if path.is_file():
            _check_readable(path)
        yield path.resolve()
        return
    name = path.name
    if not (name.endswith((".zip", ".tar.gz", ".tgz"))):
        raise UsageError(f"{_shown(path)}: a submission is a folder, a .py file, a notebook (.ipynb), a .zip or a .tar.gz "
                         f"archive")
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise SubmissionError(f"{_shown(path)}: cannot be read ({exc.strerror or exc})") from None
    if size > MAX_ARCHIVE_BYTES:
        raise SubmissionError(f"{_shown(path)}: refused: the archive is {size >> 20} MiB (the limit is "
                              f"{MAX_ARCHIVE_BYTES >> 20} MiB)")
    with tempfile.TemporaryDirectory(prefix="grader-submission-") as tmp:
        dest = Path(tmp) / submission_name(path)
        dest.mkdir()
        if name.endswith(".zip"):
            _unzip(path, dest)
        else:
            _untar(path, dest)
        yield dest


def _check_readable(path: Path) -> None:
    if not os.access(path, os.R_OK):
        raise UsageError(f"{_shown(path)}: not readable (check its permissions)")


def _safe_member(name: str, archive: Path) -> PurePosixPath:
    """Where member `name` is unpacked, relative to the submission: `\\` is a folder separator, and
    the name is made safe (`safe_text`); refused when it would land outside the submission."""
    member = PurePosixPath(safe_text(name.replace("\\", "/"), newlines=False))
    if member.is_absolute() or ".." in member.parts or (member.parts and ":" in member.parts[0]):
        raise SubmissionError(f"{_shown(archive)}: refused: member {name!r} would be written outside the submission")
    return member


def _reason(exc: BaseException) -> str:
    """One line saying what zipfile / tarfile raised (some messages are multi-line dumps)."""
    lines = str(exc).strip().splitlines()
    first = lines[0].rstrip(":") if lines else ""
    return f"{type(exc).__name__}: {first[:200]}" if first else type(exc).__name__


def _zip_directory_size(archive: Path) -> int:
    """The size its end record gives the zip's central directory (0 when it cannot be read: the
    ZipFile that follows says why): ZipFile parses the whole directory before any cap applies."""
    end_record = getattr(zipfile, "_EndRecData", None)
    if end_record is None:
        return 0
    try:
        with open(archive, "rb") as fh:
            record = end_record(fh)
    except Exception:  # noqa: BLE001 - judged by ZipFile next
        return 0
    return int(record[zipfile._ECD_SIZE]) if record else 0


def _unzip(archive: Path, dest: Path) -> None:
    directory = _zip_directory_size(archive)
    if directory > MAX_ZIP_DIRECTORY:
        raise SubmissionError(f"{_shown(archive)}: refused: its list of members takes {directory >> 20} MiB (the limit is "
                              f"{MAX_ZIP_DIRECTORY >> 20} MiB, for at most {MAX_FILES} members)")
    try:
        zf = zipfile.ZipFile(archive)
    except UnicodeDecodeError:
        raise SubmissionError(f"{_shown(archive)}: not a readable zip archive (a member's name is not valid UTF-8 although "
                              f"the archive says it is): re-create it and try again") from None
    except Exception as exc:  # noqa: BLE001 - hostile bytes: whatever zipfile raises is this archive's error
        raise SubmissionError(f"{_shown(archive)}: not a readable zip archive ({_reason(exc)}): re-create it and try "
                              f"again") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > MAX_FILES:
            raise SubmissionError(f"{_shown(archive)}: refused: {len(infos)} members (the limit is {MAX_FILES})")
        total = 0
        for info in infos:
            member = _safe_member(info.filename, archive)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise SubmissionError(f"{_shown(archive)}: refused: {info.filename!r} is a symbolic link")
            if info.is_dir():
                (dest / member).mkdir(parents=True, exist_ok=True)
                continue
            total += info.file_size
            if total > MAX_TOTAL_BYTES:
                raise SubmissionError(f"{_shown(archive)}: refused: unpacks to more than {MAX_TOTAL_BYTES >> 20} MiB")
            if info.file_size > 1 << 20 and info.file_size > MAX_RATIO * max(info.compress_size, 1):
                raise SubmissionError(f"{_shown(archive)}: refused: {info.filename!r} looks like a decompression bomb")
            target = dest / member
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                with zf.open(info) as src, open(target, "wb") as out:
                    _copy_capped(src, out, info.file_size, archive)
            except SubmissionError:
                raise
            except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as exc:
                raise SubmissionError(f"{_shown(archive)}: corrupt member {info.filename!r} ({exc}): re-create the "
                                      f"archive and try again") from None
            except NotImplementedError as exc:  # a compression method zipfile lacks
                raise SubmissionError(f"{_shown(archive)}: member {info.filename!r} cannot be unpacked ({exc}): re-create "
                                      f"the archive with plain zip compression and try again") from None
            except RuntimeError as exc:  # encrypted
                raise SubmissionError(f"{_shown(archive)}: member {info.filename!r} cannot be unpacked ({exc}): re-create "
                                      f"the archive without a password and try again") from None
            except Exception as exc:  # noqa: BLE001 - hostile bytes (lzma/bz2 errors, a name that is not UTF-8...)
                raise SubmissionError(f"{_shown(archive)}: corrupt member {info.filename!r} ({_reason(exc)}): re-create "
                                      f"the archive and try again") from None


def _copy_capped(src, out, declared: int, archive: Path) -> None:
    written = 0
    while chunk := src.read(1 << 20):
        written += len(chunk)
        if written > declared or written > MAX_TOTAL_BYTES:
            raise SubmissionError(f"{_shown(archive)}: refused: a member unpacks to more than it declares")
        out.write(chunk)


def _untar(archive: Path, dest: Path) -> None:
    """Unpack a .tar.gz member by member as the stream is read (never `getmembers()` first, which
    decompresses the whole archive): each member's declared size is checked against the caps and
    the ratio to the archive's own size before its data is decompressed, and the decompressed
    stream itself is capped (long-name and pax records are read whole by tarfile)."""
    size = archive.stat().st_size
    try:
        with open(archive, "rb") as raw, gzip.GzipFile(fileobj=raw, mode="rb") as gz:
            stream = _CappedStream(gz, archive, size)
            try:
                tf = tarfile.TarFile(fileobj=stream, mode="r")
            except SubmissionError:
                raise
            except Exception as exc:  # noqa: BLE001 - not gzip, not tar, truncated, bad headers...
                raise SubmissionError(f"{_shown(archive)}: not a readable tar archive ({_reason(exc)}): re-create it "
                                      f"(e.g. tar czf submission.tar.gz FOLDER) and try again") from None
            with tf:
                _extract_tar(tf, archive, dest, size)
    except SubmissionError:
        raise
    except Exception as exc:  # noqa: BLE001 - hostile bytes: whatever tarfile or gzip raise is this archive's error
        raise SubmissionError(f"{_shown(archive)}: corrupt tar archive ({_reason(exc)}): re-create it (e.g. tar czf "
                              f"submission.tar.gz FOLDER) and try again") from None


def _extract_tar(tf: tarfile.TarFile, archive: Path, dest: Path, archive_size: int) -> None:
    count = total = 0
    for m in tf:  # reads one header at a time: nothing is decompressed past a refused member
        count += 1
        if count > MAX_FILES:
            raise SubmissionError(f"{_shown(archive)}: refused: more than {MAX_FILES} members, the limit for a submission")
        member = _safe_member(m.name, archive)
        if m.issym() or m.islnk():
            raise SubmissionError(f"{_shown(archive)}: refused: {m.name!r} is a link")
        if not (m.isfile() or m.isdir()):
            raise SubmissionError(f"{_shown(archive)}: refused: {m.name!r} is not a regular file or folder")
        if m.size > MAX_TOTAL_BYTES:
            raise SubmissionError(f"{_shown(archive)}: refused: {m.name!r} declares {m.size >> 20} MiB (the limit is "
                                  f"{MAX_TOTAL_BYTES >> 20} MiB)")
        total += m.size
        if total > MAX_TOTAL_BYTES:
            raise SubmissionError(f"{_shown(archive)}: refused: unpacks to more than {MAX_TOTAL_BYTES >> 20} MiB")
        if total > RATIO_FLOOR and total > MAX_RATIO * max(archive_size, 1):
            raise SubmissionError(f"{_shown(archive)}: refused: its members declare {total >> 20} MiB from a "
                                  f"{archive_size >> 10} KiB archive: it looks like a decompression bomb")
        m.name = str(member)  # a safe name (`_safe_member`): no surrogate, no control character
        try:
            tf.extract(m, dest, filter="data")
        except SubmissionError:
            raise
        except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
            raise SubmissionError(f"{_shown(archive)}: could not unpack {m.name!r} ({_reason(exc)})") from None


class _CappedStream:
    """The decompressed bytes of a .tar.gz as tarfile reads them (read, seek, tell), refused past
    MAX_TAR_STREAM or past MAX_RATIO times the archive's size: skipping a member's data, reading a
    pax or long-name record whole, or padding, all decompress, and none of it may go on unbounded."""

    def __init__(self, raw: gzip.GzipFile, archive: Path, archive_size: int):
        self.raw, self.archive = raw, archive
        self.cap = min(MAX_TAR_STREAM, max(RATIO_FLOOR, MAX_RATIO * archive_size))

    def _check(self, end: int) -> None:
        if end > self.cap:
            what = (f"more than {MAX_TOTAL_BYTES >> 20} MiB" if self.cap == MAX_TAR_STREAM else
                    f"more than {MAX_RATIO} times its size: it looks like a decompression bomb")
            raise SubmissionError(f"{_shown(self.archive)}: refused: it unpacks to {what}")

    def read(self, size: int = -1) -> bytes:
        pos = self.raw.tell()
        if size is None or size < 0:
            data = self.raw.read(self.cap - pos + 1)
            self._check(pos + len(data))
            return data
        self._check(pos + size)
        return self.raw.read(size)

    def seek(self, offset: int, whence: int = 0) -> int:
        target = offset if whence == 0 else (self.raw.tell() + offset if whence == 1 else None)
        if target is None:  # from the end: the stream's length is unknown until decompressed
            raise OSError("seeking from the end of a compressed tar stream")
        self._check(target)
        return self.raw.seek(target)

    def tell(self) -> int:
        return self.raw.tell()


def _walk_py(root: Path) -> list[Path]:
    found = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS)
        for fname in sorted(filenames):
            if fname.endswith(".py"):
                found.append(Path(dirpath) / fname)
    return found


def locate(root: Path, exercises: list[Exercise], explicit: bool) -> dict[str, CandidateFile]:
    """Find each exercise's candidate file under `root` (a folder or a single .py file).

    Returns an entry for every exercise that has a file, and — when `explicit` (the user named the
    exercises) — an entry with a problem for every exercise that has none."""
    result: dict[str, CandidateFile] = {}
    if root.is_file() and root.suffix == ".ipynb":
        return notebooks.locate(root, exercises, explicit, result, IGNORED_DIRS)
    if root.is_file():
        matching = [ex for ex in exercises if f"{ex.name}.py" == root.name]
        if not matching and len(exercises) == 1 and explicit:
            matching = exercises
        for ex in matching:
            result[ex.id] = CandidateFile(ex.id, root)
        if explicit:
            for ex in exercises:
                result.setdefault(ex.id, CandidateFile(ex.id, None, f"the submission is the single file {_shown(root.name)}, "
                                                       f"which is not {ex.name}.py"))
        return result
    files = [f for f in _walk_py(root) if not f.is_symlink()]
    links = {f.name: f for f in _walk_py(root) if f.is_symlink()}
    for ex in exercises:
        layout = [f for f in files if f.as_posix().endswith("/" + ex.layout_path)
                  or f.relative_to(root).as_posix() == ex.layout_path]
        if not layout:
            layout = [f for f in files if f.parent.name == ex.id and f.name == f"{ex.name}.py"]
        by_name = [f for f in files if f.name == f"{ex.name}.py"]
        if len(layout) == 1:
            result[ex.id] = CandidateFile(ex.id, layout[0])
        elif len(layout) > 1:
            result[ex.id] = CandidateFile(ex.id, None, _ambiguous(ex, layout, root))
        elif len(by_name) == 1:
            result[ex.id] = CandidateFile(ex.id, by_name[0])
        elif len(by_name) > 1:
            result[ex.id] = CandidateFile(ex.id, None, _ambiguous(ex, by_name, root))
        elif f"{ex.name}.py" in links:
            # Never a link: the judge reads the candidate's file (static checks), and a link could
            # point at the reference solution or a hidden check on the grader's side.
            result[ex.id] = CandidateFile(ex.id, None, f"{_shown(links[ex.name + '.py'].relative_to(root))} is a symbolic "
                                          f"link: refused; submit the file itself")
        elif explicit:
            result[ex.id] = CandidateFile(ex.id, None, f"no {ex.name}.py in the submission (expected at "
                                          f"{ex.layout_path} or anywhere as a unique {ex.name}.py)")
    return notebooks.locate(root, exercises, explicit, result, IGNORED_DIRS)


def _ambiguous(ex: Exercise, paths: list[Path], root: Path) -> str:
    shown = ", ".join(_shown(p.relative_to(root)) for p in paths[:4])
    return f"several files could be {ex.name}.py ({shown}): keep one, or use the layout {ex.layout_path}"

