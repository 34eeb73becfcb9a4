"""Interviewers' guides: `interviewer.md` beside each exercise's README.

A guide is for the interviewer only: it never goes into a candidate bundle (the export's scan treats
its lines as hidden content) and no candidate command prints it. `grader show 05 --interviewer`
prints it, and the interviewer's HTML report shows each exercise's follow-up questions.

    from grader.guides import read_guide
    guide = read_guide(exercise.dir)      # None when the exercise has no guide
    guide.minutes, guide.section("Follow-up questions")

Its sections, in this order (docs/authoring.md describes what goes in each):
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

GUIDE_FILE = "interviewer.md"
SECTIONS = ("Time", "What it reveals", "Follow-up questions", "Strong and weak signals", "Reading the score",
            "What the hints give away")
__doc__ += "".join(f"\n- `## {name}`" for name in SECTIONS) + "\n"
FOLLOW_UPS = (3, 5)  # how many numbered follow-up questions a guide has, at least and at most
_MINUTES_RE = re.compile(r"\bAbout (\d+) minutes\b")
_HEADING_RE = re.compile(r"^## +(.+?)\s*$")
_NUMBERED_RE = re.compile(r"^\d+\.\s+\S")


@dataclass(frozen=True)
class Guide:
    path: Path
    text: str
    sections: dict[str, str]  # "## " heading -> its text, in file order

    def section(self, name: str) -> str:
        return self.sections.get(name, "")

    @property
    def minutes(self) -> int | None:
        """The estimated minutes for a competent candidate ("About N minutes" under `## Time`)."""
        match = _MINUTES_RE.search(self.section("Time"))
        return int(match.group(1)) if match else None

    @property
    def follow_ups(self) -> list[str]:
        """The numbered follow-up questions, each with its model answer (continuation lines joined)."""
        items: list[str] = []
        for line in self.section("Follow-up questions").splitlines():
            if _NUMBERED_RE.match(line):
                items.append(line.strip())
            elif items and line.strip():
                items[-1] += " " + line.strip()
        return items

    def problems(self) -> list[str]:
        """What is missing or out of order, each in a sentence naming the file."""
        found = list(self.sections)
        problems = [f"{self.path}: no '## {name}' section" for name in SECTIONS if name not in self.sections]
        present = [name for name in found if name in SECTIONS]
        if not problems and present != list(SECTIONS):
            problems.append(f"{self.path}: sections out of order (expected: {', '.join(SECTIONS)})")
        for name in SECTIONS:
            if name in self.sections and not self.sections[name].strip():
                problems.append(f"{self.path}: section '## {name}' is empty")
        if "Time" in self.sections and self.minutes is None:
            problems.append(f"{self.path}: '## Time' must say 'About N minutes' for a competent candidate")
        low, high = FOLLOW_UPS
        if "Follow-up questions" in self.sections and not low <= len(self.follow_ups) <= high:
            problems.append(f"{self.path}: '## Follow-up questions' has {len(self.follow_ups)} numbered "
                            f"questions; write {low} to {high}, each with a short model answer")
        return problems


def parse_guide(path: Path) -> Guide:
    text = path.read_text(encoding="utf-8")
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        heading = _HEADING_RE.match(line)
        if heading:
            current = sections.setdefault(heading.group(1), [])
        elif current is not None:
            current.append(line)
    return Guide(path, text, {name: "\n".join(lines).strip() for name, lines in sections.items()})


def read_guide(exercise_dir: Path) -> Guide | None:
    path = exercise_dir / GUIDE_FILE
    return parse_guide(path) if path.is_file() else None


def guide_problems(exercise_dir: Path) -> list[str]:
    guide = read_guide(exercise_dir)
    if guide is None:
        return [f"{exercise_dir / GUIDE_FILE}: missing (every exercise has an interviewer's guide: "
                f"see docs/authoring.md)"]
    return guide.problems()
