"""Fair verdicts on a slow machine (issue 42): the whole catalogue's valid answers and planted
mistakes, graded twice in one run, unconstrained and under a CPU quota with busy loops beside it.

    .venv/bin/python benchmarks/fair_verdicts.py [--quota 0.5] [--hogs 2] [--jobs 2] [--no-trivial] [EXERCISE ...]

Each pass is `grader.validate.validate` (every reference, alternative and mistake, and the stub and
trivial answers) in a child process; the quota pass puts that child, and so everything it starts,
in a cgroup of its own (cgroup v1's cpu controller, `grader.cpuquota`; needs root) with `--hogs`
busy loops running beside it, outside the group, as a shared machine has. The goal: every valid
answer keeps every point in both passes (a check "not graded: machine overloaded" is allowed,
out of the total, and counted), and every planted mistake is still caught. Printed: for each pass
its wall and CPU time, the problems validate found (a valid answer below 100 %, a mistake not
caught), the checks not graded, and the slowest exercises by wall time in each pass with the CPU
the whole pass used. Compare the passes of one run, never seconds across runs.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader import cpuquota  # noqa: E402

VALIDATE = textwrap.dedent("""
    import json, sys, time
    from grader.validate import validate
    started, finished = time.monotonic(), {}
    def progress(exercise_id, done, total):
        if done == total:
            finished[exercise_id] = time.monotonic() - started
    results = validate(json.loads(sys.argv[1]) or None, jobs=int(sys.argv[2]), progress=progress,
                       trivial=sys.argv[3] == "1")
    overloaded = []
    for v in results:
        graded = {"reference": v.reference, "stub": v.stub, **{f"alternative {k}": r for k, r in v.alternatives.items()},
                  **{f"trivial {k}": r for k, r in v.trivial.items()}}
        for label, result in graded.items():
            overloaded += [f"{v.exercise.id} {label} {c.name}" for c in result.checks
                           if c.outcome == "not_run" and "machine overloaded" in c.message]
    print(json.dumps({"problems": {v.exercise.id: v.problems for v in results if v.problems},
                      "exercises": len(results), "overloaded": overloaded, "finished": finished}))
""")


def run_pass(exercises: list[str], jobs: int, quota: float | None, hogs: int, trivial: bool = True) -> dict:
    command = [sys.executable, "-c", VALIDATE, json.dumps(exercises), str(jobs), "1" if trivial else "0"]
    # judge templates end with the run (the default keeps them idle for later runs): their CPU
    # is then the child's, reaped before it exits
    env = {**os.environ, "GRADER_TEMPLATE_IDLE_S": "0"}
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(hogs)] if quota else []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    try:
        if quota:
            with cpuquota.CpuQuota(quota, name="grader-bench-fair") as group:
                proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env,
                                      preexec_fn=group.enter)
        else:
            proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)  # before the busy loops are reaped
    finally:
        for hog in busy:
            hog.kill()
            hog.wait()
    wall = time.monotonic() - started
    if proc.returncode != 0:
        raise SystemExit(f"validate failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["wall_s"] = wall
    result["cpu_s"] = sum(a - b for a, b in ((after.ru_utime, before.ru_utime), (after.ru_stime, before.ru_stime)))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("exercises", nargs="*", help="exercises to grade (default: all)")
    parser.add_argument("--quota", type=float, default=0.5, help="cores the quota pass gets (default 0.5)")
    parser.add_argument("--hogs", type=int, default=os.cpu_count() or 1, help="busy loops beside it (default: one a core)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--slowest", type=int, default=8)
    parser.add_argument("--no-trivial", action="store_true",
                        help="leave out the stubs' trivial answers (half the checks: what the issue measures is "
                             "the valid answers and the planted mistakes)")
    args = parser.parse_args()
    if not cpuquota.available():
        raise SystemExit("no writable cgroup v1 cpu controller at /sys/fs/cgroup/cpu: run as root on Linux")
    print(f"load average before: {os.getloadavg()}", flush=True)
    passes = {}
    for name, quota in (("unconstrained", None), (f"{args.quota:g} core + {args.hogs} busy loops", args.quota)):
        print(f"== {name} ...", flush=True)
        passes[name] = run_pass(args.exercises, args.jobs, quota, args.hogs, trivial=not args.no_trivial)
    print()
    for name, result in passes.items():
        print(f"== {name}: {result['exercises']} exercises, {result['wall_s']:.0f} s wall, "
              f"{result['cpu_s']:.0f} CPU-s (the grading's processes), not graded (machine overloaded): {len(result['overloaded'])}")
        for item in result["overloaded"]:
            print(f"   not graded: {item}")
        if result["problems"]:
            for exercise, problems in result["problems"].items():
                for problem in problems:
                    print(f"   PROBLEM {exercise}: {problem.splitlines()[0]}")
        else:
            print("   every valid answer 100 %, every planted mistake caught, every stub" +
                  ("" if args.no_trivial else " and trivial answer") + " 0")
    names = list(passes)
    first, second = passes[names[0]], passes[names[1]]
    print(f"\nwall time ratio (quota / unconstrained): {second['wall_s'] / first['wall_s']:.2f}; "
          f"CPU ratio: {second['cpu_s'] / max(first['cpu_s'], 1e-9):.2f}")
    print(f"slowest exercises (seconds from the pass's start to the exercise's last check; jobs {args.jobs}):")
    order = sorted(first["finished"], key=lambda e: -second["finished"].get(e, 0))[:args.slowest]
    gaps = lambda r: {e: t - max([0.0] + [u for u in r["finished"].values() if u < t]) for e, t in r["finished"].items()}  # noqa: E731
    g1, g2 = gaps(first), gaps(second)
    for exercise in order:
        print(f"  {exercise:32s} unconstrained {g1.get(exercise, 0):6.1f} s   quota {g2.get(exercise, 0):6.1f} s")
    bad = any(p["problems"] for p in passes.values())
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
