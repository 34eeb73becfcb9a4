"""`grader submit`: the archive a candidate sends by mail, for take-homes without pull requests.

    from grader.practice.submit import make_submission
    made = make_submission(root, Path("submission.zip"))   # made.files, made.rows

It holds the candidate's work and nothing else, by an allowlist: for each exercise of the tree,
its file (`exercises/<track>/<NN_name>/<name>.py`) and its notebook (`<name>.ipynb`) when there
is one, at the bundle's layout, so that `grader grade submission.zip` finds them. Nothing of
`.grader/` (practice state, pristine stubs), no check (public or hidden), no backup (`*.bak`);
the progress record (`exercises/.grader-progress.jsonl`) only in a bundle exported with
`--record-progress`, whose README tells the candidate. Symbolic links are refused (the grader
refuses them too). Once written, the archive is read back with the grader's own safe reader and
located as `grader grade` would: every exercise file that went in must be found.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from grader.catalog import Catalog, Exercise
from grader.errors import UsageError
from grader.practice.reset import pristine_stub_path
from grader.practice.state import PracticeState, progress_path, records_progress
from grader.practice.views import status_text
from grader.progress_record import PROGRESS_FILE

DEFAULT_NAME = "submission.zip"
MAX_FILE_BYTES = 32 << 20  # one exercise file or notebook: far above any answer, under the grader's caps


@dataclass(frozen=True)
class Submitted:
    path: Path  # the archive written
    files: tuple[str, ...]  # its members
    rows: tuple[tuple[str, str, str], ...]  # (exercise, what went in, status)
    progress: bool  # the progress record went in
    untouched: tuple[str, ...]  # exercises whose file is still the stub as exported


def exercise_files(ex: Exercise) -> list[Path]:
    """The candidate's files of `ex` that are submitted: its .py and its notebook, where they exist."""
    return [p for p in (ex.stub, ex.stub.with_suffix(".ipynb")) if p.exists() or p.is_symlink()]


def make_submission(root: Path, out: Path | None = None) -> Submitted:
    """Write the submission archive of the exercise tree at `root` to `out` (default:
    `<root>/submission.zip`, replaced when it exists). Raises UsageError when `out` would land among
    the files it packs, when a file is a link or too large, or when there is nothing to send."""
    root = Path(root).resolve()
    catalog = Catalog.load(root, allow_missing_stub=True)
    if not catalog.exercises:
        raise UsageError(f"no exercises under {root / 'exercises'}: run `grader submit` in your bundle")
    out = Path(out).resolve() if out is not None else root / DEFAULT_NAME
    if out.suffix != ".zip":
        raise UsageError(f"{out}: the submission is a .zip archive: name it so (e.g. {DEFAULT_NAME})")
    if out.is_dir():
        raise UsageError(f"{out} is a folder: give the archive's file name (e.g. {out / DEFAULT_NAME})")
    if out.is_relative_to(root / "exercises"):
        raise UsageError(f"{out} is inside exercises/, among the files it packs: write it elsewhere "
                         f"(default: {root / DEFAULT_NAME})")
    exercises = [ex for ex in catalog.exercises if ex.dir.is_relative_to(root)]  # not an exercise pack's
    states = PracticeState(root).load()
    members: list[tuple[Path, str]] = []
    rows, untouched = [], []
    for ex in exercises:
        files = exercise_files(ex)
        for path in files:
            if path.is_symlink():
                raise UsageError(f"{path} is a symbolic link: the grader refuses links, so put the file itself there")
            if path.stat().st_size > MAX_FILE_BYTES:
                raise UsageError(f"{path} is {path.stat().st_size >> 20} MiB (at most {MAX_FILE_BYTES >> 20} MiB): "
                                 f"a notebook's outputs, most likely: clear them (Edit > Clear all outputs) and save")
            members.append((path, path.relative_to(root).as_posix()))
        st = states.get(ex.id)
        status = status_text(st) if st else "not started"
        if not files:
            rows.append((ex.id, "no file (deleted?)", status))
            continue
        if _unchanged(root, ex):
            untouched.append(ex.id)
        rows.append((ex.id, " + ".join(p.name for p in files) + (" (the stub, unchanged)" if ex.id in untouched
                                                                   else ""), status))
    if not members:
        raise UsageError(f"no exercise file under {root / 'exercises'} to submit: `grader reset NN` puts a stub back")
    progress = records_progress(root) and progress_path(root).is_file() and not progress_path(root).is_symlink()
    if progress:
        members.append((progress_path(root), f"exercises/{PROGRESS_FILE}"))
    _write_zip(out, members)
    _verify(out, [ex for ex in exercises if exercise_files(ex)])
    return Submitted(path=out, files=tuple(name for _, name in members), rows=tuple(rows), progress=progress,
                     untouched=tuple(untouched))


def _unchanged(root: Path, ex: Exercise) -> bool:
    saved = pristine_stub_path(root, ex)
    try:
        return ex.stub.is_file() and saved.is_file() and ex.stub.read_bytes() == saved.read_bytes()
    except OSError:
        return False


def _write_zip(out: Path, members: list[tuple[Path, str]]) -> None:
    """Written beside `out` and renamed into place: an interrupted run leaves the old archive whole."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.stem}-", suffix=".zip", dir=out.parent)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for path, name in members:
                archive.write(path, name)
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _verify(out: Path, exercises: list[Exercise]) -> None:
    """Read the archive back as `grader grade` reads a submission: every exercise packed is found."""
    from grader.submissions import locate, opened

    with opened(out) as folder:
        found = locate(folder, exercises, explicit=True)
    lost = [ex.id for ex in exercises if ex.id not in found or found[ex.id].problem]
    if lost:  # never expected: the layout is the grader's own
        raise UsageError(f"{out} was written, but `grader grade` would not find {', '.join(lost)} in it: "
                         f"{'; '.join(found[i].problem or 'missing' for i in lost if i in found)}")
