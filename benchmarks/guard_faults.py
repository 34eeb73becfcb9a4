"""What the worker's tamper guard costs a freshly forked worker, side by side in one run.

    .venv/bin/python benchmarks/guard_faults.py [--repeat 20]

A process with torch imported and the guard's snapshot taken (as the fork server has) forks
children that do nothing, or run one or two guard checks, interleaved; each child's page faults
and the parent's wall time from fork to reaped are read with wait4 (medians). A check that reads
every watched attribute takes a reference to each, so the child copies every page that holds one;
the dict-version fast path (grader.sandbox.dictversion) reads none of them. `--no-tags` measures
the guard with that fast path off, for the comparison.
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--no-tags", action="store_true", help="compare every attribute (the fast path off)")
    args = parser.parse_args()
    import torch  # noqa: F401

    from grader.sandbox import callwatch, registries, tamper

    registries.install()
    callwatch.install()
    guard = tamper.TamperGuard()
    if args.no_tags:
        guard._read = None
        guard._stamps = [None] * len(guard._stamps)
    gc.collect()
    gc.freeze()  # as the fork server does

    def child(work) -> tuple[int, float]:
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            work()
            os._exit(0)
        _, _, usage = os.wait4(pid, 0)
        return usage.ru_minflt, (time.perf_counter() - start) * 1000

    cases = {"nothing": lambda: None, "one check": guard.changed,
             "two checks": lambda: (guard.changed(), guard.changed())}
    seen: dict[str, list[tuple[int, float]]] = {name: [] for name in cases}
    for _ in range(args.repeat):  # interleaved
        for name, work in cases.items():
            seen[name].append(child(work))
    print(f"tamper guard in a fresh worker ({'fast path off' if args.no_tags else 'dict version tags'}, "
          f"median of {args.repeat}):")
    base = statistics.median(f for f, _ in seen["nothing"]), statistics.median(ms for _, ms in seen["nothing"])
    for name, rows in seen.items():
        faults, ms = statistics.median(f for f, _ in rows), statistics.median(ms for _, ms in rows)
        extra = "" if name == "nothing" else f"  (+{faults - base[0]:.0f} faults, +{ms - base[1]:.2f} ms)"
        print(f"  {name:10} {faults:6.0f} page faults {ms:6.2f} ms fork to reaped{extra}")


if __name__ == "__main__":
    main()
