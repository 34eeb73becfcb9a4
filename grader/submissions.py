"""Opening submissions and finding the candidate's file for each exercise.

A submission is a folder, a single .py file, or a .zip / .tar.gz archive (unpacked safely: no
absolute paths, no `..`, no links, no devices; caps on size, file count and compression ratio).
Candidate files are found by the exercise layout (`<track>/<NN_name>/<name>.py`, at any depth) or,
failing that, by a unique `<name>.py` anywhere in the submission. Jupyter notebooks are accepted
wherever a .py file is (`<name>.ipynb`, or cells marked for exercises): see `grader.notebooks`.
"""

from __future__ import annotations

import os
import stat
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from grader import notebooks
from grader.catalog import Exercise
from grader.errors import SubmissionError, UsageError
from grader.notebooks import NotebookSource

MAX_TOTAL_BYTES = 200 * 1024 * 1024
MAX_FILES = 5000
MAX_RATIO = 200  # uncompressed / compressed, per member
IGNORED_DIRS = {".git", "__pycache__", ".venv", "venv", "node_modules", ".ipynb_checkpoints", "mistakes"}


@dataclass(frozen=True)
class CandidateFile:
    """Where one exercise's candidate file is, or why there is none."""

    exercise: str
    path: Path | None
    problem: str | None = None
    notebook: NotebookSource | None = None  # set when the code comes from a notebook (grader.notebooks)

    def to_spec(self) -> dict:
        return {"path": str(self.path) if self.path else None, "problem": self.problem}


def submission_name(path: Path) -> str:
    name = path.name
    for suffix in (".tar.gz", ".tgz", ".zip", ".py", ".ipynb"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


@contextmanager
def opened(path: Path) -> Iterator[Path]:
    """Yield a folder (or a single .py or .ipynb file) holding the submission; archives are unpacked to a
    temporary folder removed afterwards."""
    path = Path(path)
    if not path.exists():
        raise UsageError(f"submission not found: {path}")
    if path.is_dir() or path.suffix in (".py", ".ipynb"):
        if path.is_file():
            _check_readable(path)
        yield path.resolve()
        return
    name = path.name
    if not (name.endswith((".zip", ".tar.gz", ".tgz"))):
        raise UsageError(f"{path}: a submission is a folder, a .py file, a notebook (.ipynb), a .zip or a .tar.gz "
                         f"archive")
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
        raise UsageError(f"{path}: not readable (check its permissions)")


def _safe_member(name: str, archive: Path) -> PurePosixPath:
    member = PurePosixPath(name.replace("\\", "/"))
    if member.is_absolute() or ".." in member.parts or (member.parts and ":" in member.parts[0]):
        raise SubmissionError(f"{archive}: refused: member {name!r} would be written outside the submission")
    return member


def _unzip(archive: Path, dest: Path) -> None:
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as exc:
        raise SubmissionError(f"{archive}: not a readable zip archive ({exc}): re-create it and try again") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > MAX_FILES:
            raise SubmissionError(f"{archive}: refused: {len(infos)} members (the limit is {MAX_FILES})")
        total = 0
        for info in infos:
            member = _safe_member(info.filename, archive)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise SubmissionError(f"{archive}: refused: {info.filename!r} is a symbolic link")
            if info.is_dir():
                (dest / member).mkdir(parents=True, exist_ok=True)
                continue
            total += info.file_size
            if total > MAX_TOTAL_BYTES:
                raise SubmissionError(f"{archive}: refused: unpacks to more than {MAX_TOTAL_BYTES >> 20} MiB")
            if info.file_size > 1 << 20 and info.file_size > MAX_RATIO * max(info.compress_size, 1):
                raise SubmissionError(f"{archive}: refused: {info.filename!r} looks like a decompression bomb")
            target = dest / member
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                with zf.open(info) as src, open(target, "wb") as out:
                    _copy_capped(src, out, info.file_size, archive)
            except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as exc:
                raise SubmissionError(f"{archive}: corrupt member {info.filename!r} ({exc}): re-create the "
                                      f"archive and try again") from None


def _copy_capped(src, out, declared: int, archive: Path) -> None:
    written = 0
    while chunk := src.read(1 << 20):
        written += len(chunk)
        if written > declared or written > MAX_TOTAL_BYTES:
            raise SubmissionError(f"{archive}: refused: a member unpacks to more than it declares")
        out.write(chunk)


def _untar(archive: Path, dest: Path) -> None:
    try:
        # by its name: "r:*" tries every compression and reports each failure (a multi-line dump)
        tf = tarfile.open(archive, "r:gz" if archive.name.endswith((".tar.gz", ".tgz")) else "r:*")
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        reason = str(exc).splitlines()[0].rstrip(":") or type(exc).__name__
        raise SubmissionError(f"{archive}: not a readable tar archive ({reason}): re-create it (e.g. "
                              f"tar czf submission.tar.gz FOLDER) and try again") from None
    with tf:
        try:
            members = tf.getmembers()
        except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
            raise SubmissionError(f"{archive}: corrupt tar archive ({exc})") from None
        if len(members) > MAX_FILES:
            raise SubmissionError(f"{archive}: refused: {len(members)} members (the limit is {MAX_FILES})")
        total = 0
        for m in members:
            _safe_member(m.name, archive)
            if m.issym() or m.islnk():
                raise SubmissionError(f"{archive}: refused: {m.name!r} is a link")
            if not (m.isfile() or m.isdir()):
                raise SubmissionError(f"{archive}: refused: {m.name!r} is not a regular file or folder")
            total += m.size
            if total > MAX_TOTAL_BYTES:
                raise SubmissionError(f"{archive}: refused: unpacks to more than {MAX_TOTAL_BYTES >> 20} MiB")
        try:
            tf.extractall(dest, members=members, filter="data")
        except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
            raise SubmissionError(f"{archive}: could not unpack ({exc})") from None


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
                result.setdefault(ex.id, CandidateFile(ex.id, None, f"the submission is the single file {root.name}, "
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
            result[ex.id] = CandidateFile(ex.id, None, f"{links[ex.name + '.py'].relative_to(root)} is a symbolic "
                                          f"link: refused; submit the file itself")
        elif explicit:
            result[ex.id] = CandidateFile(ex.id, None, f"no {ex.name}.py in the submission (expected at "
                                          f"{ex.layout_path} or anywhere as a unique {ex.name}.py)")
    return notebooks.locate(root, exercises, explicit, result, IGNORED_DIRS)


def _ambiguous(ex: Exercise, paths: list[Path], root: Path) -> str:
    shown = ", ".join(str(p.relative_to(root)) for p in paths[:4])
    return f"several files could be {ex.name}.py ({shown}): keep one, or use the layout {ex.layout_path}"

