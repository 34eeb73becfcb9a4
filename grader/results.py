"""The result model every report is rendered from, and the scoring rules.

Scoring: an exercise's points are split over its checks by weight. Checks that could not run here
(`not_run`: no CUDA, a missing optional package) are left out of the possible total; every other
outcome counts, and only `passed` earns. JSON is versioned (`SCHEMA_VERSION`) and stably ordered.

The model is also the boundary where text from a submission (its name and paths, its file names,
its exception messages and printed output, flags quoting its code, a progress record it ships)
enters the grader's results: every string field is made safe when a result is built (`safe_text`),
so no report, terminal or store downstream meets a lone surrogate or a control character.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from grader.pack_manifest import torch_differs, torch_warning

SCHEMA_VERSION = 2  # 2: top-level score/max_score/percent only for one submission; `partial`
OUTCOMES = ("passed", "failed", "error", "not_run")

# control characters (C0 but tab and newline, DEL, C1), zero-width and bidirectional controls, the
# byte order mark, and surrogates (a high one first: a pair, joined if it is one)
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]"
                     "|[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]")
_UNSAFE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]"
                          "|[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]")


def _shown(match: re.Match) -> str:
    text = match.group()
    if len(text) == 2:  # a surrogate pair (e.g. from a JSON escape): the character it stands for
        return chr(0x10000 + ((ord(text[0]) - 0xD800) << 10) + (ord(text[1]) - 0xDC00))
    code = ord(text)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (a file name, via surrogateescape): that byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: str, newlines: bool = True) -> str:
    """`text` with every character that is unsafe to encode or to print shown as a visible escape:
    a lone surrogate as `\\udNNN`, a non-UTF-8 byte of a file name (a surrogate escape) as `\\xNN`,
    control characters as `\\xNN` / `\\uNNNN`; tab and newline kept when `newlines` (`\\r\\n`
    becomes `\\n`). Idempotent; nothing is dropped silently."""
    if newlines:
        if "\r" in text:
            text = text.replace("\r\n", "\n")
        return _UNSAFE.sub(_shown, text) if _UNSAFE.search(text) else text
    return _UNSAFE_LINE.sub(_shown, text) if _UNSAFE_LINE.search(text) else text


def safe_data(value: Any) -> Any:
    """`safe_text` applied to every string (keys included) of nested dicts, lists and tuples."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dict):
        return {safe_data(k): safe_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(safe_data(v) for v in value)
    return value


def _make_safe(obj: Any, lines: tuple[str, ...] = ()) -> None:
    """Replace every str field of the frozen dataclass `obj` (and every str in its tuple fields)
    by its `safe_text`; fields named in `lines` are single lines (newlines escaped too)."""
    for f in fields(obj):
        value = getattr(obj, f.name)
        if isinstance(value, str):
            cleaned = safe_text(value, newlines=f.name not in lines)
        elif isinstance(value, tuple) and any(isinstance(v, str) for v in value):
            cleaned = tuple(safe_text(v, newlines=f.name not in lines) if isinstance(v, str) else v
                            for v in value)
        else:
            continue
        if cleaned != value:
            object.__setattr__(obj, f.name, cleaned)


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

    def __post_init__(self) -> None:
        _make_safe(self, lines=("name", "kind", "visibility", "outcome", "file"))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"score": round(self.score, 4), "max_score": round(self.max_score, 4)}


@dataclass(frozen=True)
class Flag:
    line: int
    message: str
    cell: int | None = None  # a notebook's cell (1-based); `line` is then the line in that cell

    def __post_init__(self) -> None:
        _make_safe(self)

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
    pack: str = ""  # the exercise pack it comes from, "name version" ("": the built-in catalogue)
    pack_torch: str = ""  # the torch version that pack was validated with

    def __post_init__(self) -> None:
        _make_safe(self, lines=("id", "title", "track", "difficulty", "file", "pack", "pack_torch"))

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
        } | ({"pack": self.pack, "pack_torch": self.pack_torch} if self.pack else {})


@dataclass(frozen=True)
class SubmissionResult:
    name: str
    path: str
    exercises: tuple[ExerciseResult, ...]
    error: str | None = None  # the submission could not be graded at all

    def __post_init__(self) -> None:
        _make_safe(self, lines=("name", "path"))

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

    def __post_init__(self) -> None:
        _make_safe(self, lines=("runtime", "python", "torch", "cuda", "gpus", "exercise_root"))

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

    def __post_init__(self) -> None:
        _make_safe(self, lines=("started_at", "tool_version"))
        object.__setattr__(self, "extra", safe_data(self.extra))  # e.g. a progress record the submission ships

    @property
    def score(self) -> float:
        return round(sum(c.score for s in self.submissions for e in s.exercises for c in e.checks), 4)

    @property
    def max_score(self) -> float:
        return round(sum(c.max_score for s in self.submissions for e in s.exercises for c in e.checks), 4)

    @property
    def percent(self) -> float:
        return round(100.0 * self.score / self.max_score, 2) if self.max_score else 0.0

    @property
    def asked(self) -> int:
        """How many submissions were given: more than were graded when the run was interrupted
        (`extra["partial"]`: graded, total, not_graded)."""
        return int(self.extra.get("partial", {}).get("total", len(self.submissions)))

    def to_dict(self) -> dict[str, Any]:
        subs = [s.to_dict() for s in self.submissions]
        one = len(self.submissions) == 1 and self.asked == 1  # never a total across candidates
        return {
            "schema_version": SCHEMA_VERSION,
            "tool": {"name": "torch-grader", "version": self.tool_version},
            **({"score": self.score, "max_score": self.max_score, "percent": self.percent} if one else {}),
            **({"partial": self.extra["partial"]} if "partial" in self.extra else {}),
            "started_at": self.started_at, "duration_s": round(self.duration_s, 3),
            "environment": asdict(self.environment) | {"gpu_summary": self.environment.gpu_summary},
            "submissions": [{k: v for k, v in s.items() if k != "exercises"} for s in subs],
            # every exercise of every submission, flattened, each naming its submission
            "exercises": [{"submission": s["name"], **e} for s in subs for e in s["exercises"]],
        } | _pack_notes(self)


def _pack_notes(run: GradeRun) -> dict[str, Any]:
    """The packs the run's exercises came from, and torch warnings (`pack_notes`); {} without packs."""
    lines = pack_notes(run)
    return {"pack_notes": lines} if lines else {}


def pack_notes(run: GradeRun) -> list[str]:
    """For every report: which pack (and version) each pack exercise came from, and a warning for
    each pack validated with another torch than the one that graded. [] for the built-in catalogue."""
    origins: dict[tuple[str, str], list[str]] = {}
    for sub in run.submissions:
        for ex in sub.exercises:
            if getattr(ex, "pack", ""):
                ids = origins.setdefault((ex.pack, ex.pack_torch), [])
                if ex.id not in ids:
                    ids.append(ex.id)
    lines = []
    running = run.environment.torch
    for (label, validated), ids in origins.items():
        lines.append(f"exercise pack {label}: {', '.join(ids)}")
        if validated and running and torch_differs(validated, running):
            lines.append("Warning: " + torch_warning(label, validated, running))
    return lines


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
