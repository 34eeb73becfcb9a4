"""`grader mutate` speed, measured side by side with one `grader grade` of the same exercise.

    .venv/bin/python benchmarks/mutate.py [--exercise 17] [--jobs 2] [--repeat 1]

Reports, per repetition (interleaved) and as medians: the mutate wall time with an empty cache,
the number of mutants, mutants per second, and the time per mutant / the wall time of one
`grader grade solutions -e <exercise>` (the reference graded alone). Target: a ~40-line
reference (17_custom_autograd_function) within 2 minutes on 2 cores.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GRADER = str(Path(sys.executable).parent / "grader")


def _run(cmd: list[str], ok=(0,)) -> float:
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if result.returncode not in ok:
        raise SystemExit(f"{cmd} failed ({result.returncode}):\n{result.stderr.decode()[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--exercise", default="17")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    grade_s, mutate_s, counts = [], [], []
    for _ in range(args.repeat):
        grade_s.append(_run([GRADER, "grade", "solutions", "-e", args.exercise, "--runtime", "local", "-q"]))
        with tempfile.TemporaryDirectory(prefix="bench-mutate-") as tmp:
            report = Path(tmp) / "m.json"
            mutate_s.append(_run([GRADER, "mutate", args.exercise, "--jobs", str(args.jobs), "--cache-dir",
                                  str(Path(tmp) / "cache"), "--json", str(report)], ok=(0, 1)))
            counts.append(sum(e["mutants"] for e in json.loads(report.read_text())["exercises"]))
        print(f"grade {grade_s[-1]:.1f} s, mutate {mutate_s[-1]:.1f} s for {counts[-1]} mutants", flush=True)
    g, m, n = statistics.median(grade_s), statistics.median(mutate_s), statistics.median(counts)
    print(f"exercise {args.exercise}, --jobs {args.jobs}: {n:g} mutants in {m:.1f} s (target <= 120 s); "
          f"{n / m:.2f} mutants/s; time per mutant {m / n:.2f} s = {m / n / g:.2f} x one `grader grade` ({g:.1f} s)")


if __name__ == "__main__":
    main()
