"""The result model every report is rendered from, and the scoring rules.

Scoring: an exercise's points are split over its checks by weight. Checks that could not run here
(`not_run`: no CUDA, a missing optional package) are left out of the possible total; every other
outcome counts, and only `passed` earns. JSON is versioned (`SCHEMA_VERSION`) and stably ordered.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

SCHEMA_VERSION = 1
OUTCOMES = ("passed", "failed", "error", "not_run")


def fmt_points(value: float) -> str:
    """Points for people: at most two decimals, no trailing zeros (8.235 -> "8.24", 10.0 -> "10")."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


@dataclass(frozen=True)
class CheckResult:
    name: str
    kind: str
    weight: float
    visibility: str  # public | hidden
    outcome: str  # passed | failed | error | not_run
    message: str
    duration_s: float
    file: str
    line: int
    score: float = 0.0
    max_score: float = 0.0
    output: str = ""  # what the candidate's code printed during a public check (capped tail)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"score": round(self.score, 4), "max_score": round(self.max_score, 4)}


@dataclass(frozen=True)
class Flag:
    line: int
    message: str
    cell: int | None = None  # a notebook's cell (1-based); `line` is then the line in that cell

    @property
    def where(self) -> str:
        return f"cell {self.cell}, line {self.line}" if self.cell else f"line {self.line}"


@dataclass(frozen=True)
class ExerciseResult:
    id: str
    title: str
    track: str
    difficulty: str
    points: float
    file: str | None  # the candidate's file, relative to the submission
    checks: tuple[CheckResult, ...]
    problem: str | None = None  # why the exercise could not be graded normally
    flags: tuple[Flag, ...] = ()

    @property
    def max_score(self) -> float:
        return round(sum(c.max_score for c in self.checks), 4)

    @property
    def score(self) -> float:
        return round(sum(c.score for c in self.checks), 4)

    @property
    def not_run(self) -> int:
        return sum(c.outcome == "not_run" for c in self.checks)

    def by_kind(self) -> dict[str, dict[str, int]]:
        kinds: dict[str, dict[str, int]] = {}
        for c in self.checks:
            if c.outcome == "not_run":
                continue
            entry = kinds.setdefault(c.kind, {"passed": 0, "total": 0})
            entry["total"] += 1
            entry["passed"] += c.outcome == "passed"
        return dict(sorted(kinds.items()))

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "title": self.title, "track": self.track, "difficulty": self.difficulty,
            "score": self.score, "max_score": self.max_score, "points": self.points, "file": self.file,
            "problem": self.problem, "by_kind": self.by_kind(),
            "outcomes": dict(sorted(Counter(c.outcome for c in self.checks).items())),
            "flags": [asdict(f) for f in self.flags],
            "checks": [c.to_dict() for c in self.checks],
        }


@dataclass(frozen=True)
class SubmissionResult:
    name: str
    path: str
    exercises: tuple[ExerciseResult, ...]
    error: str | None = None  # the submission could not be graded at all

    @property
    def score(self) -> float:
        return round(sum(c.score for e in self.exercises for c in e.checks), 4)

    @property
    def max_score(self) -> float:
        return round(sum(c.max_score for e in self.exercises for c in e.checks), 4)

    @property
    def percent(self) -> float:
        return round(100.0 * self.score / self.max_score, 2) if self.max_score else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path, "score": self.score, "max_score": self.max_score,
                "percent": self.percent, "error": self.error,
                "exercises": [e.to_dict() for e in self.exercises]}


@dataclass(frozen=True)
class Environment:
    runtime: str
    python: str = ""
    torch: str = ""
    cuda: str | None = None
    gpus: tuple[str, ...] = ()
    protections: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    exercise_root: str = ""  # where the exercises and checks came from (a folder, or the grading image)

    @property
    def gpu_summary(self) -> str:
        return ", ".join(self.gpus) if self.gpus else "graded without GPU"


@dataclass(frozen=True)
class GradeRun:
    submissions: tuple[SubmissionResult, ...]
    environment: Environment
    started_at: str
    duration_s: float
    tool_version: str
    extra: dict = field(default_factory=dict)

    @property
    def score(self) -> float:
        return round(sum(c.score for s in self.submissions for e in s.exercises for c in e.checks), 4)

    @property
    def max_score(self) -> float:
        return round(sum(c.max_score for s in self.submissions for e in s.exercises for c in e.checks), 4)

    @property
    def percent(self) -> float:
        return round(100.0 * self.score / self.max_score, 2) if self.max_score else 0.0

    def to_dict(self) -> dict[str, Any]:
        subs = [s.to_dict() for s in self.submissions]
        return {
            "schema_version": SCHEMA_VERSION,
            "tool": {"name": "torch-grader", "version": self.tool_version},
            "score": self.score, "max_score": self.max_score, "percent": self.percent,
            "started_at": self.started_at, "duration_s": round(self.duration_s, 3),
            "environment": asdict(self.environment) | {"gpu_summary": self.environment.gpu_summary},
            "submissions": [{k: v for k, v in s.items() if k != "exercises"} for s in subs],
            # every exercise of every submission, flattened, each naming its submission
            "exercises": [{"submission": s["name"], **e} for s in subs for e in s["exercises"]],
        }


def variant_of(name: str) -> str:
    """The check a parametrised variant belongs to: "test_x[cpu-3]" -> "test_x"."""
    return name.split("[", 1)[0]


def score_checks(points: float, checks: list[dict]) -> list[CheckResult]:
    """Split `points` over the checks by weight (not_run checks excluded) and build results.

    A check's weight is split evenly over its parametrised variants that ran ("test_x[cpu-1]",
    "test_x[cpu-2]"...), so a check with many variants weighs what its marker says, not that
    times the number of variants. Each result's `weight` is its share."""
    variants: dict[str, int] = {}
    for c in checks:
        if c["outcome"] != "not_run":
            variants[variant_of(c["name"])] = variants.get(variant_of(c["name"]), 0) + 1
    weights = [c["weight"] / variants.get(variant_of(c["name"]), 1) for c in checks]
    counted = sum(w for w, c in zip(weights, checks) if c["outcome"] != "not_run")
    results = []
    for c, weight in zip(checks, weights):
        share = points * weight / counted if counted and c["outcome"] != "not_run" else 0.0
        results.append(CheckResult(
            name=c["name"], kind=c.get("kind") or "value", weight=round(weight, 6), visibility=c["visibility"],
            outcome=c["outcome"], message=c.get("message", ""), duration_s=c.get("duration_s", 0.0),
            file=c["file"], line=c["line"], max_score=share, output=c.get("output", ""),
            score=share if c["outcome"] == "passed" else 0.0,
        ))
    return results
