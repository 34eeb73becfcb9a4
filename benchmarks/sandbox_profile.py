"""What the worker's sandbox profile costs per check, measured side by side (interleaved, medians).

    .venv/bin/python benchmarks/sandbox_profile.py [--repeat 20] [--block 10]

Each repetition starts a worker on tests/data/sandbox_subject.py (Landlock on, as in grading),
makes one remote call, and has it killed and reaped: the cost of one check's worker, from the
judge's side. Ways, each with a fork server of its own, interleaved in blocks of `--block` workers:

- restricted: no namespaces, no new sockets (the only wall where namespaces are unavailable);
- namespaces, one fork: private network (loopback brought up), IPC, mount and PID namespaces,
  host socket folders and the checkout covered, what is bound back read-only, private /dev/shm,
  /proc mounted afresh; the fork server (as root) makes the PID namespace as it forks the worker
  (the local runtime's profile where the kernel allows it);
- namespaces, two forks: the same, but the worker makes its PID namespace itself and forks once
  more into it, leaving a waiter (`GRADER_PIDNS_FORK=0`: what another user's workers do).

Prints each way's median wall time per worker and, as root (a cpuacct cgroup of its own, which
the fork servers and their workers inherit), its CPU time per worker (user + system), and the
ratios against restricted. Run it from two checkouts (`PYTHONPATH=OTHER python
benchmarks/sandbox_profile.py`) to compare two versions of a profile.
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import torch

from grader.sandbox import landlock, namespaces
from grader.sandbox.client import Limits, Worker, Zygote
from grader.sandbox.codec import Ref
from grader.sandbox.handles import RemoteHandle

SUBJECT = Path(__file__).resolve().parent.parent / "tests" / "data" / "sandbox_subject.py"
CPUACCT = Path("/sys/fs/cgroup/cpuacct")
WAYS = {"restricted": ("restricted", "1"), "namespaces, one fork": ("namespaces", "1"),
        "namespaces, two forks": ("namespaces", "0")}  # way -> (profile, GRADER_PIDNS_FORK)


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


class CpuCounter:
    """CPU time (ns) of this process and everything it starts, from a cpuacct cgroup of its own;
    None where there is none to make (not root, cgroup v2 only)."""

    def __init__(self) -> None:
        self.group: Path | None = None
        if os.geteuid() == 0 and (CPUACCT / "cgroup.procs").exists():
            self.group = CPUACCT / f"grader-bench-{uuid.uuid4().hex[:8]}"
            self.group.mkdir()
            (self.group / "cgroup.procs").write_text(str(os.getpid()))

    def read(self) -> int | None:
        return int((self.group / "cpuacct.usage").read_text()) if self.group else None

    def close(self) -> None:
        if self.group:
            (CPUACCT / "cgroup.procs").write_text(str(os.getpid()))
            time.sleep(0.2)  # the fork servers' last processes leave the group
            try:
                self.group.rmdir()
            except OSError:
                pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20, help="blocks per way")
    parser.add_argument("--block", type=int, default=10, help="workers per block")
    args = parser.parse_args()
    if namespaces.available() is not None:
        raise SystemExit(f"namespaces unavailable here: {namespaces.available()}")
    counter = CpuCounter()  # before the fork servers start: they and their workers are counted
    walls: dict[str, list[float]] = {w: [] for w in WAYS}
    cpus: dict[str, list[float]] = {w: [] for w in WAYS}
    zygotes: dict[str, Zygote] = {}
    with tempfile.TemporaryDirectory(prefix="grader-bench-") as scratch:
        try:
            for way, (profile, fork) in WAYS.items():
                os.environ["GRADER_PIDNS_FORK"] = fork  # read by the fork server as it starts
                zygotes[way] = Zygote(tempfile.mkdtemp(dir=scratch))
                zygotes[way].start()
                zygotes[way].ensure_ready()
                for _ in range(3):  # warm: first forks pay for page faults
                    one_check(zygotes[way], profile)
            time.sleep(2)  # the fork servers' huge-page collapse, done a piece at a time while idle
            for _ in range(args.repeat):
                for way, (profile, _fork) in WAYS.items():
                    before = counter.read()
                    walls[way] += [one_check(zygotes[way], profile) for _ in range(args.block)]
                    after = counter.read()
                    if before is not None:
                        cpus[way].append((after - before) / 1e9 / args.block)
        finally:
            for zygote in zygotes.values():
                zygote.close()
            counter.close()
    print(f"torch {torch.__version__}, {args.repeat} blocks of {args.block} workers per way, interleaved; "
          f"per worker (start, one call, kill)")
    base = statistics.median(walls["restricted"]), statistics.median(cpus["restricted"]) if cpus["restricted"] else None
    for way in WAYS:
        wall = statistics.median(walls[way])
        line = f"  {way:22s} wall median {wall * 1000:6.1f} ms ({wall / base[0]:.2f} x restricted)"
        if cpus[way]:
            cpu = statistics.median(cpus[way])
            line += f"   CPU median {cpu * 1000:6.1f} ms ({cpu / base[1]:.2f} x restricted)"
        print(line)
    if cpus["restricted"]:
        one, two = (statistics.median(cpus[w]) for w in ("namespaces, one fork", "namespaces, two forks"))
        print(f"  one fork / two forks, CPU: {one / two:.2f} ({(two - one) * 1000:.1f} ms less per worker)")
    else:
        print("  (CPU time needs root: a cpuacct cgroup of its own)")


if __name__ == "__main__":
    main()
