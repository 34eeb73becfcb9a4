"""An exercise's candidate file in a submission: where it is, or why there is none. Found by
`grader.submissions.locate` (a .py file) and `grader.notebooks.locate` (a notebook), read by
grading and practice mode."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grader.notebooks.cells import NotebookSource


@dataclass(frozen=True)
class CandidateFile:
    """Where one exercise's candidate file is, or why there is none."""

    exercise: str
    path: Path | None
    problem: str | None = None
    notebook: NotebookSource | None = None  # set when the code comes from a notebook (grader.notebooks)

    def to_spec(self) -> dict:
        return {"path": str(self.path) if self.path else None, "problem": self.problem}
