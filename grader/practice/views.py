"""Text that practice mode shows: the status list, the progress bar, a syntax error, the
completion message (hints: `grader.practice.hints.hint_text`). Plain strings (rich markup where
noted), shared by `grader watch`, `grader list`, `grader hint` and `grader reset`."""

from __future__ import annotations

from pathlib import Path

from grader.catalog import CHECK_KINDS, Catalog, Exercise
from grader.practice.state import ExerciseState, hidden_kinds

BAR_WIDTH = 30


def statuses(catalog: Catalog, states: dict[str, ExerciseState]) -> list[tuple[Exercise, ExerciseState]]:
    return [(ex, states.get(ex.id, ExerciseState())) for ex in catalog.exercises]


def progress_line(catalog: Catalog, states: dict[str, ExerciseState]) -> str:
    """"Progress ██████░░░░ 3/18 exercises pass their public checks"."""
    total = len(catalog.exercises)
    done = sum(st.status == "passing" for _, st in statuses(catalog, states))
    filled = round(BAR_WIDTH * done / total) if total else 0
    return f"Progress {'█' * filled}{'░' * (BAR_WIDTH - filled)} {done}/{total} exercises pass their public checks"


def status_text(st: ExerciseState) -> str:
    if st.status == "not started":
        return "not started"
    return f"{st.status} {st.passed}/{st.total}"


def status_rows(catalog: Catalog, states: dict[str, ExerciseState], numbered: bool = False) -> list[tuple[str, ...]]:
    rows = []
    for i, (ex, st) in enumerate(statuses(catalog, states), 1):
        row = (ex.id, ex.difficulty, f"{ex.points:g}", status_text(st), str(st.hints) if st.hints else "-", ex.title)
        rows.append(((f"{i}.",) if numbered else ()) + row)
    return rows


STATUS_HEADER = ("exercise", "difficulty", "points", "status", "hints", "title")


def next_unsolved(catalog: Catalog, states: dict[str, ExerciseState], after: Exercise | None = None) -> Exercise | None:
    """The first exercise after `after` (wrapping round) that does not pass its public checks."""
    exercises = catalog.exercises
    start = exercises.index(after) + 1 if after in exercises else 0
    for ex in exercises[start:] + exercises[:start]:
        if ex != after and states.get(ex.id, ExerciseState()).status != "passing":
            return ex
    return None


def syntax_error_text(path: Path, shown_as: str) -> str | None:
    """"file:line: SyntaxError: message" with the line and a caret, or None when `path` compiles.
    The candidate's file is only parsed here, never run."""
    try:
        source = path.read_bytes()
    except OSError:
        return None
    try:
        compile(source, str(path), "exec", dont_inherit=True)
    except SyntaxError as exc:
        where = f"{shown_as}:{exc.lineno or '?'}"
        text = f"{where}: {type(exc).__name__}: {exc.msg}"
        if exc.text:
            line = exc.text.rstrip("\n")
            text += f"\n    {line}"
            if exc.offset:
                text += "\n    " + " " * (exc.offset - 1) + "^"
        return text
    except (ValueError, UnicodeDecodeError) as exc:
        return f"{shown_as}: cannot be read as Python source: {exc}"
    return None


def missing_file_text(ex: Exercise, shown_as: str) -> str:
    return (f"{shown_as} is gone (deleted or renamed). Restore the stub with `grader reset "
            f"{ex.number:02d}` (a backup is kept of any file there), or put your file back: "
            f"watching goes on.")


def completion_text(root: Path, catalog: Catalog) -> str:
    """All public checks pass: what happens next, and what the hidden checks cover (kinds only)."""
    kinds: list[str] = []
    for ex in catalog.exercises:
        found = hidden_kinds(root, ex.id)
        if not found and ex.has_hidden_tests:
            from grader.practice.bundle import hidden_check_kinds

            found = hidden_check_kinds(ex)
        kinds += [k for k in found if k not in kinds]
    kinds = [k for k in CHECK_KINDS if k in kinds]
    cover = f" They cover: {', '.join(kinds)}." if kinds else ""
    return (f"All {len(catalog.exercises)} exercises pass their public checks. Your work is graded later by "
            f"hidden checks that test the same functions more thoroughly.{cover} Submit as the README says "
            f"(a pull request, or `grader submit` for an archive to send).")
