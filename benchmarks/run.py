"""Benchmarks, measured side by side in one run (interleaved repetitions, medians), as ratios.

    .venv/bin/python benchmarks/run.py [--repeat 5]

1. `grader check 05_broadcast_bias` wall time / `python -c "import torch"` wall time (target <= 2.0).
2. Grading the three pilot references with isolation (judge + forked workers, hidden checks) /
   the same hidden checks run in-process against the reference with no isolation (target <= 1.5).
3. With --docker: the docker runtime's per-submission overhead over the local runtime, grading
   the same submission (the 05 reference), as a ratio and in seconds. Needs the grading image.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
PILOTS = ["tensors/05_broadcast_bias", "autograd/10_autograd_basics", "modules/18_custom_mlp_module"]

COMMANDS = {
    "import torch": [sys.executable, "-c", "import torch"],
    "grader check 05": [str(BIN / "grader"), "check", "05_broadcast_bias"],
    "isolated: grade 3 pilot references (hidden)": [
        sys.executable, "-c",
        "from grader.grading import grade; "
        "run = grade(['solutions'], exercises=['05', '10', '18'], visibility='hidden'); "
        "assert run.score == run.max_score, run.score"],
    "in-process: same hidden tests, no isolation": [
        sys.executable, "-m", "pytest", "-q", "-p", "benchmarks.inprocess_plugin", "-p", "no:cacheprovider",
        "--noconftest", "--import-mode=importlib", "-c", os.devnull, "--rootdir", str(ROOT),
        *[f"exercises/{p}/test_hidden.py" for p in PILOTS]],
}


DOCKER = {
    "local: grade 05 reference": [str(BIN / "grader"), "grade", "solutions", "-e", "05", "--runtime", "local", "-q"],
    "docker: grade 05 reference": [str(BIN / "grader"), "grade", "solutions", "-e", "05", "--runtime", "docker", "-q"],
}


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    elapsed = time.perf_counter() - start
    if result.returncode not in (0, 3):  # `check` on the stub exits 3: its checks fail, as they should
        raise SystemExit(f"{cmd} failed ({result.returncode}):\n{result.stderr.decode()[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--docker", action="store_true", help="also measure the docker runtime's overhead")
    args = parser.parse_args()
    commands = {**COMMANDS, **(DOCKER if args.docker else {})}
    times: dict[str, list[float]] = {name: [] for name in commands}
    for cmd in commands.values():  # warm the page cache once
        timed(cmd)
    for _ in range(args.repeat):
        for name, cmd in commands.items():
            times[name].append(timed(cmd))
    med = {name: statistics.median(t) for name, t in times.items()}
    for name, t in times.items():
        print(f"{name:48s} median {med[name]:6.2f} s   runs {' '.join(f'{x:.2f}' for x in t)}")
    r1 = med["grader check 05"] / med["import torch"]
    r2 = med["isolated: grade 3 pilot references (hidden)"] / med["in-process: same hidden tests, no isolation"]
    print(f"\ncheck 05 / import torch          = {r1:.2f}  (target <= 2.0)")
    print(f"isolated / in-process (3 pilots) = {r2:.2f}  (target <= 1.5)")
    if args.docker:
        local, docker = med["local: grade 05 reference"], med["docker: grade 05 reference"]
        print(f"docker / local (one submission)  = {docker / local:.2f}  (+{docker - local:.2f} s per submission)")


if __name__ == "__main__":
    main()
