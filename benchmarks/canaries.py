"""What canaries cost: a probe with its canaries / the same probe alone, side by side (interleaved
rounds, medians), through a real fork server and worker running the 05 reference.

    .venv/bin/python benchmarks/canaries.py [--repeat 5] [--probes 20]

The canaries (0-2 before, a twin pair after) are extra round trips of a few hundred microseconds
each; a check with probes pays them, a check without pays nothing.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import torch

from grader.judge import canary
from grader.judge.proxy import Submission
from grader.sandbox.limits import Limits
from grader.sandbox.zygote_client import Zygote

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "solutions" / "tensors" / "05_broadcast_bias" / "broadcast_bias.py"


def observe(mod, x):
    before = x._version
    out = mod.add_feature_bias(x, x[0])
    return {"untouched": x._version == before, "shape": tuple(out.shape), "same": bool(torch.equal(out, x + x[0]))}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--probes", type=int, default=20)
    args = parser.parse_args()
    real_schedule = canary.schedule
    with tempfile.TemporaryDirectory(prefix="grader-bench-") as scratch:
        zygote = Zygote(scratch)
        zygote.start()
        zygote.ensure_ready()
        times: dict[str, list[float]] = {"with canaries": [], "without": []}
        try:
            for _ in range(args.repeat):
                for mode in times:
                    canary.schedule = real_schedule if mode == "with canaries" else (lambda: (0, 0))
                    sub = Submission(module_name="broadcast_bias", path=REFERENCE, problem=None, zygote=zygote,
                                     limits=Limits(), seed=0, timeout_s=120, cuda=False, import_failures={})
                    try:
                        sub.probe(observe, sub, torch.randn(8, 4))  # worker start-up, not measured
                        start = time.perf_counter()
                        for _ in range(args.probes):
                            assert sub.probe(observe, sub, torch.randn(8, 4))["same"]
                        times[mode].append((time.perf_counter() - start) / args.probes)
                    finally:
                        sub.close()
        finally:
            canary.schedule = real_schedule
            zygote.close()
    medians = {mode: statistics.median(values) for mode, values in times.items()}
    for mode, value in medians.items():
        print(f"{mode:>15}: {value * 1e3:.2f} ms per probe (median of {args.repeat})")
    print(f"ratio with/without: {medians['with canaries'] / medians['without']:.2f}")


if __name__ == "__main__":
    main()
