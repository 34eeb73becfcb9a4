"""Running one judge job as several judges at once, split by exercise, and merging what they record.

    from grader.parallel import run_split
    output = run_split(get_runtime("local"), job, jobs=2)

Each part is a judge session of its own (its own fork server) over a share of the exercises, with
every candidate that has a file for one of them. `grader validate` splits its one big job so;
batch grading splits one submission's exercises so when it has cores to spare (`judges_for`).
Records name their candidate and exercise, so merging is concatenation: the result is what one
judge over the whole job would have recorded, and isolation is unchanged (the candidates of one
part share a judge as they would have in one session). Parts are balanced by an estimate of
their cost (candidates x size of the checks).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from grader.catalog import Exercise
from grader.runtimes.base import Candidate, JudgeJob, JudgeOutput, Runtime


def default_jobs() -> int:
    """The CPU cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


# A judge costs an import of torch and a fork server's warm-up (3-4 CPU-s on 2 cores); an exercise
# about 0.8 s of grading on average (all 74 references: 62 s in one judge). Fewer exercises than
# this per judge and a second judge costs more CPU than the wall time it saves.
MIN_EXERCISES_PER_JUDGE = 8
# pytest options whose meaning is the whole session's: `-x` stops at the first failure of all.
_SESSION_WIDE = ("-x", "--exitfirst", "--maxfail", "--sw", "--stepwise")


def judges_for(job: JudgeJob, available: int) -> int:
    """How many judges to grade `job` with, given `available` cores for it: one unless the job is
    big enough to repay a second torch import, and always one when a pytest option spans the
    session (`grader check -x`)."""
    if any(arg.split("=", 1)[0] in _SESSION_WIDE for arg in job.pytest_args):
        return 1
    return max(1, min(available, len(job.exercises) // MIN_EXERCISES_PER_JUDGE))


def _cost(ex: Exercise, job: JudgeJob) -> float:
    size = 0
    for name in job.test_files:
        try:
            size += (ex.dir / name).stat().st_size
        except OSError:
            continue
    candidates = sum(1 for c in job.candidates if ex.id in c.files)
    return max(size, 1) * max(candidates, 1)


def split(job: JudgeJob, parts: int) -> list[JudgeJob]:
    """`job` as at most `parts` jobs over disjoint sets of its exercises (largest first onto the
    least loaded part), each with the candidates (restricted to those exercises) it grades."""
    parts = max(1, min(parts, len(job.exercises)))
    if parts == 1:
        return [job]
    loads = [0.0] * parts
    groups: list[list[Exercise]] = [[] for _ in range(parts)]
    for ex in sorted(job.exercises, key=lambda e: -_cost(e, job)):
        i = loads.index(min(loads))
        groups[i].append(ex)
        loads[i] += _cost(ex, job)
    jobs = []
    for group in groups:
        ids = {ex.id for ex in group}
        order = [ex for ex in job.exercises if ex.id in ids]  # the catalogue's order within a part
        candidates = [Candidate(c.label, {k: v for k, v in c.files.items() if k in ids}, c.root)
                      for c in job.candidates if ids & set(c.files)]
        jobs.append(replace(job, exercises=order, candidates=candidates))
    return jobs


def merge(outputs: list[JudgeOutput]) -> JudgeOutput:
    """One output from the parts' outputs (records concatenated, errors joined, notes deduplicated)."""
    if len(outputs) == 1:
        return outputs[0]
    errors = [out.error for out in outputs if out.error]
    notes = list(dict.fromkeys(n for out in outputs for n in out.notes))
    return JudgeOutput(records=[r for out in outputs for r in out.records], error="; ".join(errors) or None,
                       log="\n".join(out.log for out in outputs if out.log)[-20000:], notes=notes,
                       protections=next((out.protections for out in outputs if out.protections), []),
                       infrastructure=any(out.infrastructure for out in outputs))


def run_split(runtime: Runtime, job: JudgeJob, jobs: int | None = None, **run_kwargs) -> JudgeOutput:
    """Run `job` as up to `jobs` judges at once (default: the cores available) and merge their
    records. `run_kwargs` go to every `runtime.run` (a GPU held for the whole job)."""
    parts = split(job, jobs or default_jobs())
    if len(parts) == 1:
        return runtime.run(parts[0], **run_kwargs)
    runtime.expect_jobs(len(parts))
    with ThreadPoolExecutor(max_workers=len(parts), thread_name_prefix="judge") as pool:
        outputs = list(pool.map(lambda part: runtime.run(part, **run_kwargs), parts))
    return merge(outputs)
