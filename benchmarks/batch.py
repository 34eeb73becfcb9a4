"""Batch throughput, measured side by side in one run (interleaved repetitions, medians), as ratios:

1. 8 submissions, `--jobs 2` vs `--jobs 1`, local runtime (target >= 1.8x on 2 cores);
2. the same in Docker (with --docker; needs the grading image);
3. Ray overhead: the same 8 through `--runtime ray` on a one-node cluster (2 CPUs, started before
   timing, as a cluster would be) vs `--jobs 2` of the node runtime itself (target <= 1.15x); for
   the local node runtime also with each Ray worker's own judge template (GRADER_SHARED_TEMPLATES=0)
   instead of the node's shared one, and the first run's time (it starts the shared template).

    .venv/bin/python benchmarks/batch.py [--repeat 3] [--docker] [--image TAG] [--ray] [--fresh]
                                         [--workload small|take-home]

--workload: what the 8 submissions are. "small" (the default): exercise 05 only, about 0.3 s of
checks each, so the run's fixed start-up (the CLI, one torch import) weighs as much as the
submissions; "take-home": the sample submission's three exercises (05, 10, 18) each, the size of an
interview's take-home.

--fresh adds the local runtime with judges started as fresh interpreters (GRADER_JUDGE_TEMPLATE=0)
instead of forked from its judge template, side by side.

Prints per-configuration medians, the ratios, and the per-submission cost (median wall time of
`--jobs 1` / 8), the figure docs/scaling.md builds on.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.batch_subs import make_submissions, make_take_homes  # noqa: E402

GRADER = [sys.executable, "-m", "grader"]
COUNT = 8


FRESH = "GRADER_JUDGE_TEMPLATE=0"  # a configuration's name prefix: judges started as fresh interpreters
OWN = "GRADER_SHARED_TEMPLATES=0"  # ... the Ray workers' judges forked from a template of each worker's own


def timed(cmd: list[str], name: str) -> float:
    """Wall time of `cmd`, with the variable a configuration's name starts with (FRESH, OWN) set."""
    env = None
    for prefix in (FRESH, OWN):
        if name.startswith(prefix):
            variable, value = prefix.split("=")
            env = {**os.environ, variable: value}
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    elapsed = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:8])}... failed ({out.returncode}):\n{out.stderr[-3000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--docker", action="store_true")
    parser.add_argument("--image", default=None)
    parser.add_argument("--ray", action="store_true")
    parser.add_argument("--fresh", action="store_true", help="also the local runtime without its judge template")
    parser.add_argument("--only", default=None, help="comma list of configurations to run (substrings of names)")
    parser.add_argument("--workload", choices=("small", "take-home"), default="small",
                        help="small: exercise 05 only; take-home: exercises 05, 10 and 18 each")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="grader-bench-batch-"))
    make = make_take_homes if args.workload == "take-home" else make_submissions
    subs = [str(p) for p in make(work, COUNT)]
    base = [*GRADER, "grade", *subs, "-q", "--memory-gb", "1"]
    image = ["--image", args.image] if args.image else []
    configs: dict[str, list[str]] = {
        "local --jobs 1": [*base, "--runtime", "local", "--jobs", "1"],
        "local --jobs 2": [*base, "--runtime", "local", "--jobs", "2"],
    }
    if args.fresh:  # the same without the judge template (grader.runtimes.template), to compare
        configs[f"{FRESH} local --jobs 1"] = configs["local --jobs 1"]
        configs[f"{FRESH} local --jobs 2"] = configs["local --jobs 2"]
    if args.docker:
        configs["docker --jobs 1"] = [*base, "--runtime", "docker", "--jobs", "1", *image]
        configs["docker --jobs 2"] = [*base, "--runtime", "docker", "--jobs", "2", *image]
    cluster = None
    if args.ray:
        from tests.support.ray_cluster import LocalRayCluster

        cluster = LocalRayCluster(head_cpus=2)
        configs["ray (local on node)"] = [*base, "--runtime", "ray", "--address", cluster.address,
                                          "--node-runtime", "local"]
        # as before the node's shared template: each Ray worker forks judges from a template of its own
        configs[f"{OWN} ray (local on node)"] = configs["ray (local on node)"]
        if args.docker:
            configs["ray (docker on node)"] = [*base, "--runtime", "ray", "--address", cluster.address,
                                               "--node-runtime", "docker", *image]
    if args.only:
        wanted = [w.strip() for w in args.only.split(",")]
        configs = {name: cmd for name, cmd in configs.items() if any(w in name for w in wanted)}
    times: dict[str, list[float]] = {name: [] for name in configs}
    try:
        for rep in range(args.repeat):
            for name, cmd in configs.items():  # interleaved: every configuration sees the same load
                times[name].append(timed(cmd, name))
                print(f"  rep {rep + 1} {name}: {times[name][-1]:.1f} s", flush=True)
    finally:
        if cluster is not None:
            cluster.stop()
    med = {name: statistics.median(values) for name, values in times.items()}
    what = "exercises 05, 10 and 18 each" if args.workload == "take-home" else "exercise 05"
    print(f"\n{COUNT} submissions ({what}), median of {args.repeat}, load average {os.getloadavg()[0]:.1f}:")
    for name, value in med.items():
        print(f"  {name:24s} {value:7.1f} s")
    for rt in ("local", "docker", f"{FRESH} local"):
        if f"{rt} --jobs 1" in med:
            print(f"  {rt}: --jobs 2 speed-up over --jobs 1: {med[f'{rt} --jobs 1'] / med[f'{rt} --jobs 2']:.2f}x "
                  f"(target >= 1.8x); per submission at --jobs 1: {med[f'{rt} --jobs 1'] / COUNT:.1f} s")
    for ray_name, rt in (("ray (local on node)", "local"), (f"{OWN} ray (local on node)", "local"),
                         ("ray (docker on node)", "docker")):
        if ray_name in med and f"{rt} --jobs 2" in med:
            print(f"  {ray_name} / {rt} --jobs 2: {med[ray_name] / med[f'{rt} --jobs 2']:.2f}x (target <= 1.15x)")
    if "ray (local on node)" in times:  # the first run on the cluster starts the node's shared template
        print(f"  ray (local on node), first run on the fresh cluster: {times['ray (local on node)'][0]:.1f} s")


if __name__ == "__main__":
    main()
