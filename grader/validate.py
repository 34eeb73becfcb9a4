"""`grader validate`: prove each exercise's checks right.

For every exercise: the reference solution and every alternative solution
(`solutions/<track>/<id>/alternatives/*.py`) score 100 %, the untouched stub and the trivial answers
of `grader.trivial` (every function returning None, 0, an empty tensor or its input) score 0, and every
known mistake (`solutions/<track>/<id>/mistakes/*.py`) scores below the maximum and fails each
check its docstring names on a line `Caught by: test_a, test_b`. A debugging exercise (track
`debugging`: the stub is a complete program with planted bugs, see `is_debugging`) follows its own
rule instead of "the stub scores 0": the stub fails every bug's check, and each mistake (the program
with every bug fixed but one) fails its one named check and passes every other. The exercises are
shared out over one judge session per core (`jobs`), in which the candidates are parametrized:
validating every exercise costs one torch import per judge.
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
from grader.grading.assemble import build_exercise
from grader.parallel import run_split
from grader.results import ExerciseResult
from grader.runtimes import JudgeJob, get_runtime
from grader.runtimes.base import Candidate
from grader.scaffold import scaffold_problems
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

DEBUGGING_TRACKS = ("debugging",)
DEBUGGING_BUGS = (3, 5)  # bugs a debugging exercise plants, at least and at most: one mistake each


def is_debugging(ex: Exercise) -> bool:
    """A fix-the-program exercise: its stub is a complete, plausible program with planted bugs, and
    each of its mistakes is that program with every bug fixed but one. Keyed on the track, which
    every exercise.toml already declares and `grader list` shows: a pack's exercise gets the rule by
    declaring `track = "debugging"`."""
    return ex.track in DEBUGGING_TRACKS


def debugging_problems(ex: Exercise, stub: ExerciseResult, mistakes: list[tuple[Path, ExerciseResult]]) -> list[str]:
    """The debugging format's rule, each break in a sentence: every mistake names exactly one check
    (its bug's), no two mistakes share one, a mistake (graded on every check) fails its check and
    no other, and the stub as given fails every bug's check (it may pass the others)."""
    problems: list[str] = []
    low, high = DEBUGGING_BUGS
    if not low <= len(mistakes) <= high:
        problems.append(f"{len(mistakes)} mistake(s) in {ex.solutions_dir / 'mistakes'}: a debugging exercise plants "
                        f"{low} to {high} bugs, with one mistake each (the program with every bug fixed but that one)")
    bugs: dict[str, str] = {}  # the bug's check -> the mistake that names it
    for path, result in mistakes:
        named = caught_by(path)
        if len(named) != 1:
            problems.append(f"mistake {path.name}: names {len(named)} checks ({', '.join(named) or 'none'}); in a "
                            f"debugging exercise each mistake leaves one bug, caught by exactly one check of its own")
            continue
        check = named[0]
        if check in bugs:
            problems.append(f"mistakes {bugs[check]} and {path.name} both name {check}: each bug needs a check of "
                            f"its own, so that fixing it earns its share")
        bugs.setdefault(check, path.name)
        others = sorted({_base(c.name) for c in result.checks
                         if c.outcome in ("failed", "error") and _base(c.name) != check})
        if others:
            problems.append(f"mistake {path.name}: also fails {', '.join(others)}; with one bug left only that "
                            f"bug's check ({check}) may fail, every other check must pass")
    for check, mistake in bugs.items():
        passed = [c.name for c in stub.checks if _base(c.name) == check and c.outcome == "passed"]
        if passed:
            problems.append(f"the stub passes {', '.join(passed)}, the check of the bug {mistake} leaves: the "
                            f"program as given must fail every bug's check")
    return problems


def alternatives(ex: Exercise) -> list[Path]:
    """Other correct solutions, each required to score 100 %: solutions/<track>/<id>/alternatives/*.py."""
    folder = ex.solutions_dir / "alternatives"
    return sorted(folder.glob("*.py")) if folder.is_dir() else []


def validate(exercises: list[str] | None = None, root: Path | None = None, timeout_s: float | None = None,
             runtime: str = "local", progress: Progress | None = None,
             jobs: int | None = None, extras: bool = True, trivial: bool = True) -> list[ExerciseValidation]:
    """Validate `exercises` (refs; None: all). `progress(exercise_id, done, total)` is called as each
    check of an exercise finishes (reference, stub, mistakes, alternatives and trivial answers
    together), when given. `jobs`: judges run at once, each over a share of the exercises
    (default: the cores available; see `grader.parallel`). `extras=False` leaves out the
    alternatives and the trivial answers (two thirds of the checks): the reference, the stub and
    each mistake only, what issue 13's speed target names (benchmarks/run.py --validate).
    `trivial=False` leaves out the trivial answers only (half the checks: benchmarks/fair_verdicts.py
    --no-trivial, which is about the valid answers and the mistakes)."""
    with tempfile.TemporaryDirectory(prefix="grader-trivial-") as tmp:
        return _validate(exercises, root, timeout_s, runtime, Path(tmp), progress, jobs, extras, trivial)


def _validate(exercises: list[str] | None, root: Path | None, timeout_s: float | None, runtime: str,
              tmp: Path, progress: Progress | None = None, jobs: int | None = None,
              extras: bool = True, trivial: bool = True) -> list[ExerciseValidation]:
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
            # (a debugging exercise's mistakes on every check: each must pass all but its own)
            add(f"mistake-{mistake.stem}", ex, mistake, None if is_debugging(ex) else (caught_by(mistake) or None))
        for alt in alternatives(ex) if extras else ():
            add(f"alternative-{alt.stem}", ex, alt)
        if extras and trivial and ex.stub.is_file():
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
        problems: list[str] = scaffold_problems(ex) + content_problems(ex)  # `grader new`'s placeholders first
        if not ex.has_hidden_tests:
            problems.append(f"no test_hidden.py in {ex.dir}: write the hidden checks")
        ref = result("reference", ex, ex.reference)
        stub = result("stub", ex, ex.stub)
        if ref.score < ref.max_score or ref.max_score == 0:
            failing = [f"{c.name}: {c.message.splitlines()[0] if c.message else c.outcome}"
                       for c in ref.checks if c.outcome in ("failed", "error")]
            problems.append(f"reference scores {ref.score:g}/{ref.max_score:g}" +
                            ("".join(f"\n    {f}" for f in failing[:8])))
        if stub.score > 0 and not is_debugging(ex):  # a debugging stub may pass what is not a bug's check
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
        trivial_results = {}
        if extras and trivial and ex.stub.is_file():
            try:
                explained = explanations(ex.solutions_dir)
            except GraderError as exc:
                problems.append(str(exc))
                explained = {}
            for kind in TRIVIAL:
                label = f"trivial-{kind}"
                entry = candidates[label][ex.id]
                trivial_results[kind] = got = build_exercise(ex, label, catalog.root, CandidateFile(
                    ex.id, Path(entry["path"]), None), output)
                if got.score > 0 and kind not in explained:
                    passing = sorted({_base(c.name) for c in got.checks if c.outcome == "passed"})
                    problems.append(f"a trivial answer ({TRIVIAL[kind]}) scores {got.score:g}: "
                                    f"{', '.join(passing[:8])} must check the result's type and value")
        verdicts, graded = [], []
        for mistake in [Path(files[ex.id]["path"]) for label, files in candidates.items()
                        if label.startswith("mistake-") and ex.id in files]:  # as graded, not as now on disk
            graded.append((mistake, result(f"mistake-{mistake.stem}", ex, mistake)))
            verdict = judge_mistake(*graded[-1])
            problems += verdict.problems
            verdicts.append(verdict)
        if is_debugging(ex):
            problems += debugging_problems(ex, stub, graded)
        validations.append(ExerciseValidation(ex, ref, stub, verdicts, problems, alts, trivial_results))
    return validations
