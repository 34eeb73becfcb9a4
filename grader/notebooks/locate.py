"""Finding each exercise's notebook in a submission, writing the generated modules, and showing
the judge's results at notebook cells and lines (see `grader.notebooks`)."""

from __future__ import annotations

import dataclasses
import os
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from grader.candidate_file import CandidateFile
from grader.catalog import Exercise
from grader.errors import UsageError
from grader.notebooks.cells import (
    SPECIAL,
    Cell,
    CellBudget,
    NotebookProblem,
    NotebookSource,
    cells_for,
    convert,
    is_tagged,
    marked_exercises,
    read_cells,
    refers_to,
    rewrite,
    write_module,
)
from grader.results import safe_text

if TYPE_CHECKING:
    from grader.results import ExerciseResult

MAX_NOTEBOOKS = 200  # notebooks read per submission


def _notebooks(root: Path, ignored: set[str]) -> list[Path]:
    found = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in ignored)
        found += [Path(dirpath) / f for f in sorted(filenames) if f.endswith(".ipynb")]
    return [p for p in found if not p.is_symlink()][:MAX_NOTEBOOKS]


def locate(root: Path, exercises: list[Exercise], explicit: bool, found: dict[str, CandidateFile],
           ignored: set[str]) -> dict[str, CandidateFile]:
    """Add notebook candidates to `found` (exercise id -> CandidateFile from the .py search).

    An exercise without a .py file takes its notebook; with both, the more recently modified one
    is graded (a notebook paired with jupytext is saved with its .py, so either is right)."""
    single = root.is_file()
    shown_root = safe_text(root.name, newlines=False)  # names and paths in messages: made safe (grader.results)
    paths = [root] if single else _notebooks(root, ignored)
    if not paths:
        return found
    read: dict[Path, list[Cell] | str] = {}
    budget = CellBudget()  # every notebook is read (for marked cells): their cells are capped together
    for path in paths:
        shown = safe_text(path.name if single else str(path.relative_to(root)), newlines=False)
        try:
            read[path] = read_cells(path, shown, budget)
        except NotebookProblem as exc:
            read[path] = str(exc)
    result = dict(found)
    for ex in exercises:
        options = []
        for path, cells in read.items():
            named = path.stem == ex.name or (single and explicit and len(exercises) == 1)
            if isinstance(cells, str):
                if named:
                    options.append((path, cells))
            elif is_tagged(cells) and marked_exercises(cells, [ex]):
                options.append((path, cells))
            elif named and not is_tagged(cells):
                options.append((path, cells))
        if not options:
            current = result.get(ex.id)
            if single and explicit and isinstance(read[root], str):  # what is wrong with it, not where to look
                result[ex.id] = CandidateFile(ex.id, None, read[root])
            elif single and explicit:
                result[ex.id] = CandidateFile(ex.id, None, f"the submission is the notebook {shown_root}, which is "
                                              f"not {ex.name}.ipynb and marks no cells `grader:{ex.number:02d}`"
                                              + _unknown_marks(read[root], exercises))
            elif current is not None and current.path is None and current.problem.startswith("no "):
                result[ex.id] = CandidateFile(ex.id, None, current.problem.replace(
                    f"no {ex.name}.py in the submission",
                    f"no {ex.name}.py or {ex.name}.ipynb, nor notebook cells marked `grader:{ex.number:02d}`, "
                    f"in the submission", 1))
            continue
        if len(options) > 1:
            layout = [o for o in options if o[0].as_posix().endswith(f"/{ex.track}/{ex.id}/{ex.name}.ipynb")]
            options = layout if len(layout) == 1 else options
        if len(options) > 1:
            shown = ", ".join(safe_text(str(p.relative_to(root)), newlines=False) for p, _ in options[:4])
            result[ex.id] = CandidateFile(ex.id, None, f"several notebooks hold {ex.id} ({shown}): keep one")
            continue
        path, cells = options[0]
        shown = safe_text(path.name if single else str(path.relative_to(root)), newlines=False)
        current = result.get(ex.id)
        if current is not None and current.path is not None and not single:
            if _mtime(current.path) >= _mtime(path):
                continue  # the .py is as new as the notebook: it is graded
        if isinstance(cells, str):
            result[ex.id] = CandidateFile(ex.id, None, cells)
        else:
            result[ex.id] = CandidateFile(ex.id, path, notebook=NotebookSource(path, shown, tuple(cells_for(cells, ex))))
    if not result and exercises:  # nothing at all to grade: say what is wrong with the notebooks
        raise UsageError(_nothing_found(root, read, exercises, shown_root))
    return result


def _nothing_found(root: Path, read: dict[Path, list[Cell] | str], exercises: list[Exercise], shown_root: str) -> str:
    """Why the notebooks of a submission give no exercise's code (it has no .py file either)."""
    example = exercises[0]
    how = (f"mark each answer's cells with a first line `# grader: {example.number:02d}` (the exercise's number "
           f"as `grader list` shows it), or name the notebook after the exercise's file ({example.name}.ipynb)")
    reasons = []
    for path, cells in read.items():
        shown = safe_text(path.name if root.is_file() else str(path.relative_to(root)), newlines=False)
        if isinstance(cells, str):  # cannot be read: says what is wrong and how to fix it
            reasons.append(cells)
        elif not cells:
            reasons.append(f"{shown} has no code cells, so it holds no answer: write your answers in code cells and "
                           f"{how}")
        elif is_tagged(cells):
            reasons.append(f"{shown} marks its cells for no exercise here{_unknown_marks(cells, exercises)}: mark "
                           f"them with the exercise's number as `grader list` shows it (`# grader: {example.number:02d}`)")
        else:
            reasons.append(f"{shown} does not say which exercise it answers: {how}")
    if root.is_file():
        return reasons[0]
    shown = "; ".join(reasons[:5]) + (f"; and {len(reasons) - 5} more" if len(reasons) > 5 else "")
    return (f"{shown_root}: no exercise files found (looked for e.g. {example.layout_path}), and its "
            f"notebook{'s give' if len(read) != 1 else ' gives'} none: {shown}")


def _unknown_marks(cells: list[Cell] | str, exercises: list[Exercise]) -> str:
    """", which name no exercise here: `grader:99`" for a notebook's marks that refer to none of
    `exercises` ("" when there are none, or the notebook could not be read)."""
    if isinstance(cells, str):
        return ""
    marks = sorted({m for c in cells for m in c.marks if m not in SPECIAL
                    and not any(refers_to(m, ex) for ex in exercises)})
    if not marks:
        return ""
    shown = ", ".join(f"`grader:{safe_text(m[:40], newlines=False)}`" for m in marks[:5])
    return f" ({shown}: no exercise has that number or name)"


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def materialize(files: dict[str, CandidateFile], exercises: list[Exercise], folder: Path
                ) -> dict[str, CandidateFile]:
    """Convert every notebook candidate in `files` to a generated module under `folder` (one
    sub-folder per exercise). Returns the files with generated paths, line maps and flags; a
    notebook that cannot be converted becomes the exercise's problem."""
    by_id = {ex.id: ex for ex in exercises}
    out = {}
    for ex_id, cand in files.items():
        source = cand.notebook
        if source is None or cand.path is None or ex_id not in by_id:
            out[ex_id] = cand
            continue
        ex = by_id[ex_id]
        if not source.cells:
            out[ex_id] = CandidateFile(ex_id, None, f"{source.shown} has no code cells for {ex.id}")
            continue
        converted = convert(list(source.cells), source.shown)
        generated = write_module(converted, folder / ex_id, ex.name)
        out[ex_id] = CandidateFile(ex_id, generated, notebook=NotebookSource(
            source.path, source.shown, source.cells, converted.linemap, tuple(converted.flags)))
    return out


def candidate_root(root: Path, files: dict[str, CandidateFile], folder: Path) -> Path:
    """What the runtimes treat as the submission's root: the folder of generated modules when the
    submission is a single notebook, else the submission itself."""
    return folder if root.is_file() and root.suffix == ".ipynb" else root


def prepare(root: Path, files: dict[str, CandidateFile], exercises: list[Exercise], stack: ExitStack
            ) -> tuple[dict[str, CandidateFile], Path]:
    """Convert the notebooks among `files` into generated modules (in a temporary folder that
    `stack` removes). Returns the files and the root the runtimes should treat as the submission."""
    if not any(cand.notebook is not None for cand in files.values()):
        return files, root
    folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="grader-notebooks-")))
    os.chmod(folder, 0o755)  # the container's judge and worker users read it through a bind mount
    files = materialize(files, exercises, folder)
    return files, candidate_root(root, files, folder)


def map_result(result: ExerciseResult, cand: CandidateFile) -> ExerciseResult:
    """An ExerciseResult computed on a generated module, shown at notebook cells and lines: the file
    is the notebook, messages and flags point at cells, and conversion flags (magics dropped, cells
    left out) are added."""
    from grader.results import Flag

    source = cand.notebook
    if source is None or source.linemap is None or cand.path is None:
        return result
    linemap, generated = source.linemap, cand.path
    checks = tuple(dataclasses.replace(c, message=rewrite(c.message, linemap, generated)) for c in result.checks)
    flags = [Flag(f["line"], f["message"], cell=f["cell"]) for f in source.flags]
    for flag in result.flags:
        cell, line = linemap.cell_line(flag.line)
        flags.append(Flag(line, rewrite(flag.message, linemap, generated), cell=cell))
    flags.sort(key=lambda f: (f.cell or 0, f.line, f.message))
    problem = rewrite(result.problem, linemap, generated) if result.problem else None
    return dataclasses.replace(result, file=source.shown, checks=checks, flags=tuple(flags), problem=problem)
