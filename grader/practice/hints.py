"""An exercise's hints: one to three, progressive, in `hints.md` beside its README.

    # Hints                       (any title line; text before the first hint is ignored)
    ## Hint 1                     points at the concept
    ...
    ## Hint 2                     narrows it down
    ...
    ## Hint 3                     names the trap (never the solution's code)

Hints ship to candidates (`grader export`), so the export's scan checks that none of their lines
is a line of a hidden check, a solution or a grader's note.
"""

from __future__ import annotations

import re
from pathlib import Path

from grader.catalog import Exercise
from grader.errors import ExerciseDefinitionError

HINTS_FILE = "hints.md"
MAX_HINTS = 3
_HEADING = re.compile(r"^## +Hint +(\d+)\s*$", re.IGNORECASE)


def parse_hints(text: str, where: Path | str = HINTS_FILE) -> list[str]:
    """The hints of a hints.md text, in order. Raises ExerciseDefinitionError (naming `where`) when
    there is none, more than MAX_HINTS, one is empty or they are not numbered 1, 2, 3."""
    hints: list[list[str]] = []
    numbers: list[int] = []
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            numbers.append(int(heading.group(1)))
            hints.append([])
        elif hints:
            hints[-1].append(line)
    bodies = ["\n".join(lines).strip() for lines in hints]
    if not bodies:
        raise ExerciseDefinitionError(f"{where}: no hint (write one to {MAX_HINTS} sections `## Hint 1`, ...)")
    if len(bodies) > MAX_HINTS:
        raise ExerciseDefinitionError(f"{where}: {len(bodies)} hints; at most {MAX_HINTS}")
    if numbers != list(range(1, len(numbers) + 1)):
        raise ExerciseDefinitionError(f"{where}: hints must be numbered 1, 2, 3 in order, got {numbers}")
    for number, body in zip(numbers, bodies):
        if not body:
            raise ExerciseDefinitionError(f"{where}: hint {number} is empty")
    return bodies


def hints_path(ex: Exercise) -> Path:
    return ex.dir / HINTS_FILE


def load_hints(ex: Exercise) -> list[str]:
    """The exercise's hints. Raises ExerciseDefinitionError when its hints.md is missing or malformed."""
    path = hints_path(ex)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ExerciseDefinitionError(f"{path}: missing: every exercise has one to {MAX_HINTS} hints "
                                      f"(see docs/authoring.md)") from None
    return parse_hints(text, path)


def hint_text(ex: Exercise, hints: list[str], shown: int, again: str = "press h again") -> str:
    """Hints 1..shown of `ex`, the newest last, saying how many remain."""
    parts = [f"Hint {i}/{len(hints)} for {ex.id}:\n{text}" for i, text in enumerate(hints[:shown], 1)]
    left = len(hints) - shown
    parts.append(f"({left} more hint{'s' if left != 1 else ''}: {again})" if left
                 else "(that was the last hint)")
    return "\n\n".join(parts)


def next_hint(root: Path, ex: Exercise, again: str | None = None) -> str:
    """Reveal one more hint of `ex` (recorded in the tree's practice state) and return the text of
    the hints shown so far. Raises ExerciseDefinitionError when the exercise has no hints."""
    from grader.practice.state import PracticeState

    hints = load_hints(ex)
    state = PracticeState(root)
    shown = min(state.get(ex.id).hints + 1, len(hints))
    state.record_hint(ex.id, shown)
    return hint_text(ex, hints, shown, again or f"run `grader hint {ex.number:02d}` again")
