"""`grader validate`: prove each exercise's checks right.

For every exercise: the reference solution and every alternative solution
(`solutions/<track>/<id>/alternatives/*.py`) score 100 %, the untouched stub and the trivial answers
of `grader.trivial` (every function returning None, 0, an empty tensor or its input) score 0, and every
known mistake (`solutions/<track>/<id>/mistakes/*.py`) scores below the maximum and fails each
check its docstring names on a line `Caught by: test_a, test_b`. The exercises are shared out over
one judge session per core (`jobs`), in which the candidates are parametrized: validating every
exercise costs one torch import per judge.
"""

from __future__ import annotations

import ast
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from grader.catalog import Catalog, Exercise, require_hidden_tests
from grader.content import content_problems
from grader.errors import GraderError
from grader.grading import build_exercise
from grader.parallel import run_split
from grader.results import ExerciseResult
from grader.runtimes import JudgeJob, get_runtime
from grader.runtimes.base import Candidate
from grader.submissions import CandidateFile
from grader.trivial import TRIVIAL, explanations, write_trivial_answers

_CAUGHT_BY = re.compile(r"^\s*Caught by:\s*(.+)$", re.MULTILINE)


def caught_by(path: Path) -> list[str]:
    """The check names a mistake's module docstring says must catch it."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    names: list[str] = []
    for match in _CAUGHT_BY.finditer(doc):
        names += [n.strip() for n in match.group(1).split(",") if n.strip()]
    return names


@dataclass
class MistakeVerdict:
    name: str
    score: float
    max_score: float
    expected: list[str]
    failed: list[str]
    problems: list[str] = field(default_factory=list)
    unverified: list[str] = field(default_factory=list)
    graded: list[str] = field(default_factory=list)  # the checks it was graded on (those it names)


@dataclass
class ExerciseValidation:
    exercise: Exercise
    reference: ExerciseResult
    stub: ExerciseResult
    mistakes: list[MistakeVerdict]
    problems: list[str]
    alternatives: dict[str, ExerciseResult] = field(default_factory=dict)
    trivial: dict[str, ExerciseResult] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems


def _counter(progress: Progress) -> Callable[[dict], None]:
    collected: dict[str, int] = {}
    done: dict[str, int] = {}

    def on_record(record: dict) -> None:
        ex_id = record.get("exercise")
        if not isinstance(ex_id, str):
            return
        if record.get("type") == "collected":
            collected[ex_id] = collected.get(ex_id, 0) + 1
        elif record.get("type") == "check":
            done[ex_id] = done.get(ex_id, 0) + 1
            progress(ex_id, done[ex_id], collected.get(ex_id, 0))
    return on_record


def _base(name: str) -> str:
    return name.split("[", 1)[0]


def judge_mistake(path: Path, result: ExerciseResult) -> MistakeVerdict:
    expected = caught_by(path)
    verdict = MistakeVerdict(path.stem, result.score, result.max_score, expected,
                             sorted({_base(c.name) for c in result.checks if c.outcome in ("failed", "error")}))
    known = {_base(c.name) for c in result.checks}
    verdict.graded = sorted(known)
    if not expected:
        verdict.problems.append(f"mistake {path.name}: its docstring has no 'Caught by: test_...' line")
    for name in expected:
        variants = [c for c in result.checks if _base(c.name) == name]
        if name not in known:
            verdict.problems.append(f"mistake {path.name}: names {name!r}, which is not a check of this exercise")
        elif all(c.outcome == "not_run" for c in variants):
            verdict.unverified.append(name)
        elif not any(c.outcome in ("failed", "error") for c in variants):
            verdict.problems.append(f"mistake {path.name}: {name} passed but must catch it")
    ran = [n for n in expected if n not in verdict.unverified]
    if ran and result.score >= result.max_score:
        verdict.problems.append(f"mistake {path.name}: scores the maximum {result.max_score:g}")
    return verdict


Progress = Callable[[str, int, int], None]  # (exercise id, checks finished, checks collected)


def alternatives(ex: Exercise) -> list[Path]:
    """Other correct solutions, each required to score 100 %: solutions/<track>/<id>/alternatives/*.py."""
    folder = ex.solutions_dir / "alternatives"
    return sorted(folder.glob("*.py")) if folder.is_dir() else []


def validate(exercises: list[str] | None = None, root: Path | None = None, timeout_s: float | None = None,
             runtime: str = "local", progress: Progress | None = None,
             jobs: int | None = None, extras: bool = True) -> list[ExerciseValidation]:
    """Validate `exercises` (refs; None: all). `progress(exercise_id, done, total)` is called as each
    check of an exercise finishes (reference, stub, mistakes, alternatives and trivial answers
    together), when given. `jobs`: judges run at once, each over a share of the exercises
    (default: the cores available; see `grader.parallel`). `extras=False` leaves out the
    alternatives and the trivial answers (two thirds of the checks): the reference, the stub and
    each mistake only, what issue 13's speed target names (benchmarks/run.py --validate)."""
    with tempfile.TemporaryDirectory(prefix="grader-trivial-") as tmp:
        return _validate(exercises, root, timeout_s, runtime, Path(tmp), progress, jobs, extras)


def _validate(exercises: list[str] | None, root: Path | None, timeout_s: float | None, runtime: str,
              tmp: Path, progress: Progress | None = None, jobs: int | None = None,
              extras: bool = True) -> list[ExerciseValidation]:
    catalog = Catalog.load(root)
    selected = catalog.select(exercises)
    if not any(ex.has_hidden_tests for ex in selected):  # a candidate bundle: nothing to validate here
        require_hidden_tests(selected, "Validate exercises in the grader's own repository, which holds the "
                                       "hidden checks and the reference solutions.")
    candidates: dict[str, dict[str, dict]] = {}

    def add(label: str, ex: Exercise, path: Path, only: list[str] | None = None) -> None:
        candidates.setdefault(label, {})[ex.id] = {"path": str(path), "problem": None,
                                                   **({"only": only} if only else {})}

    for ex in selected:
        add("reference", ex, ex.reference)
        add("stub", ex, ex.stub)
        for mistake in ex.mistakes:
            # graded on the checks it names only: the verdict is about those (a named check must
            # fail), and the others cost a worker each (a third of validating an exercise)
            add(f"mistake-{mistake.stem}", ex, mistake, caught_by(mistake) or None)
        for alt in alternatives(ex) if extras else ():
            add(f"alternative-{alt.stem}", ex, alt)
        if extras and ex.stub.is_file():
            for kind, path in write_trivial_answers(ex.stub, tmp / ex.id).items():
                add(f"trivial-{kind}", ex, path)
    missing_refs = [ex for ex in selected if not ex.reference.is_file()]
    for ex in missing_refs:
        candidates["reference"][ex.id] = {"path": None, "problem": f"no reference solution at {ex.reference}"}
    job = JudgeJob(root=catalog.root, exercises=selected,
                   candidates=[Candidate(label, files) for label, files in candidates.items()], timeout_s=timeout_s,
                   on_record=_counter(progress) if progress else None)
    judges = get_runtime(runtime)
    try:
        output = run_split(judges, job, jobs)
    finally:
        judges.close()

    def result(label: str, ex: Exercise, path: Path) -> ExerciseResult:
        entry = candidates[label][ex.id]
        cand = CandidateFile(ex.id, Path(entry["path"]) if entry["path"] else None, entry["problem"])
        return build_exercise(ex, label, catalog.root, cand, output)

    validations = []
    for ex in selected:
        problems: list[str] = content_problems(ex)
        if not ex.has_hidden_tests:
            problems.append(f"no test_hidden.py in {ex.dir}: write the hidden checks")
        ref = result("reference", ex, ex.reference)
        stub = result("stub", ex, ex.stub)
        if ref.score < ref.max_score or ref.max_score == 0:
            failing = [f"{c.name}: {c.message.splitlines()[0] if c.message else c.outcome}"
                       for c in ref.checks if c.outcome in ("failed", "error")]
            problems.append(f"reference scores {ref.score:g}/{ref.max_score:g}" +
                            ("".join(f"\n    {f}" for f in failing[:8])))
        if stub.score > 0:
            passing = [c.name for c in stub.checks if c.outcome == "passed"]
            problems.append(f"stub scores {stub.score:g} (passes {', '.join(passing[:8])})")
        if len(ex.mistakes) < 2:
            problems.append(f"only {len(ex.mistakes)} mistake(s) in {ex.solutions_dir / 'mistakes'}: write at least 2")
        alts = {label.removeprefix("alternative-"): result(label, ex, Path(files[ex.id]["path"]))
                for label, files in candidates.items() if label.startswith("alternative-") and ex.id in files}
        for name, alt in alts.items():
            if alt.score < alt.max_score or alt.max_score == 0:
                failing = [f"{c.name}: {c.message.splitlines()[0] if c.message else c.outcome}"
                           for c in alt.checks if c.outcome in ("failed", "error")]
                problems.append(f"alternative {name}.py scores {alt.score:g}/{alt.max_score:g}: a correct answer "
                                "must score 100 %" + "".join(f"\n    {f}" for f in failing[:8]))
        trivial = {}
        if extras and ex.stub.is_file():
            try:
                explained = explanations(ex.solutions_dir)
            except GraderError as exc:
                problems.append(str(exc))
                explained = {}
            for kind in TRIVIAL:
                label = f"trivial-{kind}"
                entry = candidates[label][ex.id]
                trivial[kind] = got = build_exercise(ex, label, catalog.root, CandidateFile(
                    ex.id, Path(entry["path"]), None), output)
                if got.score > 0 and kind not in explained:
                    passing = sorted({_base(c.name) for c in got.checks if c.outcome == "passed"})
                    problems.append(f"a trivial answer ({TRIVIAL[kind]}) scores {got.score:g}: "
                                    f"{', '.join(passing[:8])} must check the result's type and value")
        verdicts = []
        for mistake in [Path(files[ex.id]["path"]) for label, files in candidates.items()
                        if label.startswith("mistake-") and ex.id in files]:  # as graded, not as now on disk
            verdict = judge_mistake(mistake, result(f"mistake-{mistake.stem}", ex, mistake))
            problems += verdict.problems
            verdicts.append(verdict)
        validations.append(ExerciseValidation(ex, ref, stub, verdicts, problems, alts, trivial))
    return validations
