"""Timing in checks that no machine load can move (re-exported by `grader.testing`).

A verdict that rests on time must not depend on how busy the machine is. Three ways are right:

- an absolute limit on CPU time, read from outside the worker: `sub.cpu_timed(probe, ...)` gives
  the CPU the worker's process tree spent on the call (grader.sandbox.cputime), about what an idle
  machine's wall clock would show, whatever the load;
- a ratio against a reference timed side by side, interleaved, in the same worker:
  `cpu_ratio(sub, candidate_probe, reference_probe, *args)`;
- a count of operations or calls (a spy, `probes.forbid_ops`, an op counter).

Never compare wall time (`sub.timed`, `time.perf_counter` in the judge) with an absolute number:
on a loaded machine a right answer fails. `sub.timed` stays right as an upper bound on what a
candidate may report (exercise 70) and inside a ratio.

    from grader.testing import cpu_ratio, judge_cpu_seconds
    seen, seconds = sub.cpu_timed(run, sub, n)
    assert seconds < 1.0
    ratio, yours, ref = cpu_ratio(sub, run_candidate, run_reference, n)
    assert ratio < 3.0
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from grader.sandbox.cputime import cores


def judge_cpu_seconds(fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
    """`fn(*args, **kwargs)` run here, in the judge, and the CPU seconds it took as the worker's
    are counted: the calling thread's time, or the whole process's over the cores, whichever is
    longer (a baseline for a limit that scales with the machine's speed, not its load)."""
    thread, process = time.thread_time(), time.process_time()
    result = fn(*args, **kwargs)
    return result, max(time.thread_time() - thread, (time.process_time() - process) / cores())


def cpu_ratio(sub: Any, candidate: Any, reference: Any, *args: Any, rounds: int = 3,
              **kwargs: Any) -> tuple[float, float, float]:
    """(candidate / reference, the candidate's median CPU seconds, the reference's): both probes
    run alternately in the check's worker `rounds` times each (`sub.cpu_timed`), so that whatever
    slows one slows the other. Pass `sub` among `args` where the probes take the module, as with
    `sub.probe`. The reference probe must be the judge's own code (never the candidate's)."""
    yours, ref = [], []
    for _ in range(rounds):
        yours.append(sub.cpu_timed(candidate, *args, **kwargs)[1])
        ref.append(sub.cpu_timed(reference, *args, **kwargs)[1])
    mine, theirs = statistics.median(yours), statistics.median(ref)
    return mine / max(theirs, 1e-6), mine, theirs
