"""`grader mutate`: grade mutants of each reference solution with the project's own engine.

    from grader.mutate.engine import mutate
    run = mutate(["10"], jobs=2)
    for ex in run.exercises:
        print(ex.exercise.id, ex.score, [r.mutant.change for r in ex.survivors])

Flow per exercise: the reference must score 100 % (else the exercise stops there, with that
message, before any mutant is generated); mutants come from `grader.mutate.mutants`; they are
graded in batches, each batch one judge session with the mutants as its candidates (as
`grader validate` grades mistakes), `jobs` judges at a time. A mutant that still scores the
maximum survives. Results go to a cache file after every batch, keyed by the mutant's source and
a fingerprint of the exercise's checks, so an interrupted run (Ctrl-C: `MutationInterrupted`)
keeps what it graded and a rerun continues from there.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from grader.catalog import Catalog, Exercise, require_hidden_tests
from grader.errors import GraderError
from grader.grading.assemble import build_exercise
from grader.mutate import equivalents
from grader.mutate.cache import ResultCache, kill_child_judges
from grader.mutate.mutants import Mutant, generate
from grader.results import ExerciseResult
from grader.runtimes import JudgeJob, Runtime, get_runtime
from grader.runtimes.base import Candidate
from grader.submissions import CandidateFile


class MutationInterrupted(GraderError):
    """Ctrl-C during `grader mutate`: what was graded is in the cache; the CLI exits 130."""

    def __init__(self, run: MutationRun):
        super().__init__("interrupted: the mutants graded so far are kept; run the same command again to go on")
        self.run = run


@dataclass
class MutantResult:
    mutant: Mutant
    status: str  # killed | survived | equivalent | error
    score: float = 0.0
    max_score: float = 0.0
    failed: list[str] = field(default_factory=list)  # checks that failed (killed it)
    failed_kinds: list[str] = field(default_factory=list)
    passed: list[str] = field(default_factory=list)  # checks it passed
    reason: str = ""  # the accepted reason (equivalent) or what went wrong (error)

    def to_dict(self) -> dict:
        m = self.mutant
        return {"id": m.id, "operator": m.operator, "line": m.line, "change": m.change, "status": self.status,
                "score": self.score, "max_score": self.max_score, "failed": self.failed,
                "failed_kinds": self.failed_kinds, "passed": self.passed, "reason": self.reason, "diff": m.diff}


@dataclass
class ExerciseMutation:
    exercise: Exercise
    results: list[MutantResult] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)  # equivalent-list entries that no longer apply
    problem: str | None = None  # why no mutant was graded (reference below 100 %, bad equivalents file)
    pending: int = 0  # mutants not graded (interrupted)
    duration_s: float = 0.0

    def _with(self, status: str) -> list[MutantResult]:
        return [r for r in self.results if r.status == status]

    @property
    def survivors(self) -> list[MutantResult]:
        return self._with("survived")

    @property
    def killed(self) -> list[MutantResult]:
        return self._with("killed")

    @property
    def equivalent(self) -> list[MutantResult]:
        return self._with("equivalent")

    @property
    def errors(self) -> list[MutantResult]:
        return self._with("error")

    @property
    def score(self) -> float | None:
        """killed / non-equivalent graded mutants (None when there are none)."""
        total = len(self.killed) + len(self.survivors)
        return len(self.killed) / total if total else None

    def by_kind(self) -> dict[str, dict[str, float]]:
        """Per check kind: how many non-equivalent mutants a check of that kind kills."""
        total = len(self.killed) + len(self.survivors)
        kinds: dict[str, int] = {}
        for r in self.killed:
            for kind in set(r.failed_kinds):
                kinds[kind] = kinds.get(kind, 0) + 1
        return {k: {"killed": n, "score": round(n / total, 4) if total else 0.0} for k, n in sorted(kinds.items())}

    @property
    def ok(self) -> bool:
        return not (self.problem or self.survivors or self.stale or self.errors or self.pending)

    def to_dict(self) -> dict:
        return {"exercise": self.exercise.id, "problem": self.problem, "mutants": len(self.results),
                "killed": len(self.killed), "survived": len(self.survivors), "equivalent": len(self.equivalent),
                "errors": len(self.errors), "pending": self.pending,
                "score": None if self.score is None else round(self.score, 4), "by_kind": self.by_kind(),
                "stale": self.stale, "duration_s": round(self.duration_s, 2),
                "results": [r.to_dict() for r in self.results]}


@dataclass
class MutationRun:
    exercises: list[ExerciseMutation]
    duration_s: float = 0.0
    graded: int = 0  # mutants graded in this run (not from the cache)
    interrupted: bool = False

    @property
    def ok(self) -> bool:
        return all(e.ok for e in self.exercises)

    def to_dict(self) -> dict:
        killed = sum(len(e.killed) for e in self.exercises)
        counted = killed + sum(len(e.survivors) for e in self.exercises)
        kinds: dict[str, int] = {}
        for e in self.exercises:
            for kind, entry in e.by_kind().items():
                kinds[kind] = kinds.get(kind, 0) + entry["killed"]
        by_kind = {k: {"killed": n, "score": round(n / counted, 4)} for k, n in sorted(kinds.items())} if counted else {}
        return {"schema": 1, "ok": self.ok, "interrupted": self.interrupted, "duration_s": round(self.duration_s, 2),
                "graded_now": self.graded, "score": round(killed / counted, 4) if counted else None,
                "by_kind": by_kind,
                "exercises": [e.to_dict() for e in self.exercises]}


def _classify(mutant: Mutant, result: ExerciseResult) -> MutantResult:
    failed = [c for c in result.checks if c.outcome in ("failed", "error")]
    passed = [c.name for c in result.checks if c.outcome == "passed"]
    if result.max_score <= 0:
        return MutantResult(mutant, "error", reason="no check could run here")
    status = "survived" if result.score >= result.max_score else "killed"
    return MutantResult(mutant, status, result.score, result.max_score, [c.name for c in failed],
                        sorted({c.kind for c in failed}), passed)


def _grade(ex: Exercise, root: Path, items: list[tuple[str, Path]], timeout_s: float | None,
           runtime: Runtime) -> dict[str, ExerciseResult | str]:
    """One judge session over `items` (label, file) of one exercise: label -> result, or an error."""
    job = JudgeJob(root=root, exercises=[ex], timeout_s=timeout_s,
                   candidates=[Candidate(label, {ex.id: {"path": str(path), "problem": None}})
                               for label, path in items])
    output = runtime.run(job)
    if output.error:
        return {label: output.error for label, _ in items}
    return {label: build_exercise(ex, label, root, CandidateFile(ex.id, path, None), output)
            for label, path in items}


def _grade_references(catalog: Catalog, selected: list[Exercise], timeout_s: float | None,
                      runtime: Runtime) -> dict[str, ExerciseResult | str]:
    """All references in one judge session (candidate "reference"): exercise id -> result or error."""
    if not selected:
        return {}
    job = JudgeJob(root=catalog.root, exercises=selected, timeout_s=timeout_s, candidates=[
        Candidate("reference", {ex.id: {"path": str(ex.reference), "problem": None} for ex in selected})])
    output = runtime.run(job)
    if output.error:
        return {ex.id: output.error for ex in selected}
    return {ex.id: build_exercise(ex, "reference", catalog.root, CandidateFile(ex.id, ex.reference, None), output)
            for ex in selected}


def mutate(exercises: list[str] | None = None, jobs: int = 1, root: Path | None = None,
           cache_dir: Path = Path(".grader-mutate"), timeout_s: float | None = None, batch_size: int = 8,
           progress=lambda message: None, runtime: str = "local") -> MutationRun:
    """Mutate and grade the reference of each exercise (every exercise when `exercises` is None).

    Raises UsageError for an unknown exercise id and MutationInterrupted on Ctrl-C (after the
    graded results are saved). `progress` receives one-line messages."""
    catalog = Catalog.load(root)
    selected = catalog.select(exercises)
    require_hidden_tests(selected, "Mutate exercises in the grader's own repository.")
    judges = get_runtime(runtime)  # one for the whole run: the local one keeps its judge template
    try:
        return _mutate(catalog, selected, judges, timeout_s, jobs, batch_size, cache_dir, progress)
    finally:
        judges.close()


def _mutate(catalog: Catalog, selected: list[Exercise], runtime: Runtime, timeout_s: float | None, jobs: int,
            batch_size: int, cache_dir, progress) -> MutationRun:
    t0 = time.monotonic()
    cache = ResultCache(cache_dir)
    run = MutationRun([ExerciseMutation(ex) for ex in selected])
    work: list[tuple[ExerciseMutation, Mutant]] = []
    accepted: dict[str, dict[str, equivalents.Equivalent]] = {}

    # 1. every reference must score 100 % before any of its mutants is generated
    references = _grade_references(catalog, [ex for ex in selected if ex.reference.is_file() and cache.get(
        ex, ex.reference.read_text(encoding="utf-8")) is None], timeout_s, runtime)
    for em in run.exercises:
        ex = em.exercise
        if not ex.reference.is_file():
            em.problem = f"no reference solution at {ex.reference}"
            continue
        ref_source = ex.reference.read_text(encoding="utf-8")
        graded = references.get(ex.id)
        if graded is not None and not (isinstance(graded, ExerciseResult) and graded.score >= graded.max_score > 0):
            if isinstance(graded, str):
                em.problem = f"the reference could not be graded: {graded}"
            else:
                failing = [f"{c.name}: {(c.message or c.outcome).splitlines()[0]}"
                           for c in graded.checks if c.outcome in ("failed", "error")]
                em.problem = (f"the reference scores {graded.score:g}/{graded.max_score:g}, not 100 %: fix it "
                              "before mutating" + "".join(f"\n    {f}" for f in failing[:8]))
            progress(f"{ex.id}: {em.problem.splitlines()[0]}")
            continue
        if graded is not None:
            cache.put(ex, ref_source, {"status": "reference-ok"})
        try:
            accepted[ex.id] = equivalents.load(ex.solutions_dir)
        except GraderError as exc:
            em.problem = str(exc)
            continue
        mutants = generate(ref_source, ex.reference.name)
        progress(f"{ex.id}: {len(mutants)} mutants")
        for mutant in mutants:
            cached = cache.get(ex, mutant.source)
            if cached is not None:
                em.results.append(_from_cache(mutant, cached))
            else:
                work.append((em, mutant))
        ids = {m.id for m in mutants}
        em.stale = [f"{eid}: listed as equivalent, but no such mutant exists any more ({eq.change or 'no change noted'})"
                    for eid, eq in accepted[ex.id].items() if eid not in ids]

    # 2. grade the mutants not in the cache: batches of one exercise, `jobs` judges at a time
    scratch = cache.dir / "mutants"
    batches: list[tuple[ExerciseMutation, list[Mutant]]] = []
    for em in run.exercises:
        mine = [m for e, m in work if e is em]
        for i in range(0, len(mine), batch_size):
            batches.append((em, mine[i:i + batch_size]))
    lock, stop = threading.Lock(), threading.Event()

    def grade_batch(em: ExerciseMutation, batch: list[Mutant]) -> None:
        if stop.is_set():
            return
        items = []
        for m in batch:
            path = scratch / em.exercise.id / m.id / em.exercise.reference.name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(m.source, encoding="utf-8")
            items.append((f"mutant_{m.id}", path))
        graded = _grade(em.exercise, catalog.root, items, timeout_s, runtime)
        if stop.is_set():
            return  # killed mid-way: nothing of this batch is trusted
        with lock:
            for m in batch:
                out = graded[f"mutant_{m.id}"]
                result = MutantResult(m, "error", reason=out) if isinstance(out, str) else _classify(m, out)
                em.results.append(result)
                if result.status != "error":
                    cache.put(em.exercise, m.source, result.to_dict())
                    run.graded += 1
            cache.save()
            done = sum(len(e.results) for e in run.exercises)
            progress(f"{em.exercise.id}: graded {len(em.results)} mutants ({done} in all, "
                     f"{len(em.survivors)} surviving here)")

    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    futures: set[Future] = {pool.submit(grade_batch, em, batch) for em, batch in batches}
    try:
        while futures:
            done, futures = wait(futures, timeout=0.5, return_when=FIRST_COMPLETED)
            for f in done:
                f.result()
    except KeyboardInterrupt:
        stop.set()
        for f in futures:
            f.cancel()
        kill_child_judges()
        pool.shutdown(wait=True)
        run.interrupted = True
        _finish(run, accepted, work, t0)
        cache.save()
        raise MutationInterrupted(run) from None
    pool.shutdown(wait=True)
    _finish(run, accepted, work, t0)
    cache.save()
    return run


def _from_cache(mutant: Mutant, entry: dict) -> MutantResult:
    return MutantResult(mutant, entry["status"], entry.get("score", 0.0), entry.get("max_score", 0.0),
                        list(entry.get("failed", [])), list(entry.get("failed_kinds", [])),
                        list(entry.get("passed", [])))


def _finish(run: MutationRun, accepted: dict, work: list, t0: float) -> None:
    """Apply the equivalent lists, count what was not graded, order results by line."""
    for em in run.exercises:
        listed = accepted.get(em.exercise.id, {})
        for r in em.results:
            eq = listed.get(r.mutant.id)
            if eq is None:
                continue
            if r.status == "survived":
                r.status, r.reason = "equivalent", eq.reason
            elif r.status == "killed":
                em.stale.append(f"{r.mutant.id}: listed as equivalent, but {', '.join(r.failed[:3])} now "
                                f"kill(s) it: remove it from {equivalents.FILE_NAME}")
        graded = {r.mutant.id for r in em.results}
        em.pending = sum(1 for e, m in work if e is em and m.id not in graded)
        em.results.sort(key=lambda r: (r.mutant.line, r.mutant.id))
    run.duration_s = time.monotonic() - t0
