"""What the worker's sandbox profile costs per check, measured side by side (interleaved, medians).

    .venv/bin/python benchmarks/sandbox_profile.py [--repeat 20]

One fork server; each repetition starts a worker on tests/data/sandbox_subject.py (Landlock on,
as in grading), makes one remote call, and has it killed and reaped: the cost of one check's
worker, from the judge's side. Profiles:

- restricted: no namespaces, no new sockets (the only wall where namespaces are unavailable);
- namespaces: private network (loopback brought up), IPC, mount and PID namespaces (the worker
  forked once more into its PID namespace, /proc mounted afresh), host socket folders and the
  checkout covered, what is bound back read-only, private /dev/shm (the local runtime's profile
  where the kernel allows it).

Run it from two checkouts (`PYTHONPATH=OTHER python benchmarks/sandbox_profile.py`) to compare
two versions of a profile.

Prints each profile's median and the ratio namespaces / restricted.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import torch

from grader.sandbox import landlock, namespaces
from grader.sandbox.client import Limits, Worker, Zygote
from grader.sandbox.codec import Ref
from grader.sandbox.handles import RemoteHandle

SUBJECT = Path(__file__).resolve().parent.parent / "tests" / "data" / "sandbox_subject.py"


def one_check(zygote: Zygote, profile: str) -> float:
    start = time.perf_counter()
    worker = Worker(zygote, str(SUBJECT), "sandbox_subject", Limits(), landlock=landlock.abi_version() > 0,
                    profile=profile, deadline=time.monotonic() + 60)
    worker.start()
    module = RemoteHandle(worker, Ref(0, "module", "sandbox_subject"), "sandbox_subject")
    assert module.CONSTANT == 42
    assert worker.sandbox == landlock.abi_version(), worker.sandbox
    worker.kill()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    if namespaces.available() is not None:
        raise SystemExit(f"namespaces unavailable here: {namespaces.available()}")
    profiles = ("restricted", "namespaces")
    times: dict[str, list[float]] = {p: [] for p in profiles}
    with tempfile.TemporaryDirectory(prefix="grader-bench-") as scratch:
        zygote = Zygote(scratch)
        zygote.start()
        try:
            zygote.ensure_ready()
            for p in profiles:  # warm: first forks pay for page faults
                one_check(zygote, p)
            for _ in range(args.repeat):
                for p in profiles:
                    times[p].append(one_check(zygote, p))
        finally:
            zygote.close()
    medians = {p: statistics.median(t) for p, t in times.items()}
    print(f"torch {torch.__version__}, {args.repeat} repetitions, interleaved; per check (worker start, one call, kill)")
    for p in profiles:
        print(f"  {p:11s} median {medians[p] * 1000:7.1f} ms   (min {min(times[p]) * 1000:.1f}, max {max(times[p]) * 1000:.1f})")
    print(f"  ratio namespaces / restricted: {medians['namespaces'] / medians['restricted']:.2f} "
          f"(+{(medians['namespaces'] - medians['restricted']) * 1000:.1f} ms per check)")


if __name__ == "__main__":
    main()
