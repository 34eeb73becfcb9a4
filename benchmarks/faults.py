"""Fault injection for batch grading: COUNT small submissions graded with `--jobs` at the machine's
cores while judges (local) or containers (docker) are killed at random, the grader is SIGTERMed
and resumed twice, and (with --ray) a Ray worker node's raylet is killed mid-batch. Checks: every
submission ends with exactly one result, its score equals an undisturbed run's, nothing is left
running.

    .venv/bin/python benchmarks/faults.py --count 200 [--runtime docker] [--ray]
    .venv/bin/python benchmarks/faults.py --count 20          # what CI runs (tests/grading/test_faults.py)

The undisturbed run grades one submission of each distinct content (benchmarks/batch_subs.py
cycles through five files) and each submission's score is compared with its content's.
Exits 0 when every check holds, 1 otherwise.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.batch_subs import make_submissions, variants  # noqa: E402

GRADER = [sys.executable, "-m", "grader"]


def proc_cmdlines() -> dict[int, str]:
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state != "Z":
                found[int(entry)] = cmd
    return found


class Killer:
    """Kills one of our judges (by PID) or containers (by label) every `every` seconds on average,
    each submission at most once (a submission killed twice is, by design, reported as an
    infrastructure error and graded again only on the next resume)."""

    def __init__(self, runtime: str, marker: str, prefix: str, every: float, seed: int):
        self.runtime, self.marker, self.prefix, self.every = runtime, marker, prefix, every
        self.random = random.Random(seed)
        self.kills = 0
        self.victims: set[str] = set()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self.stop.wait(self.random.expovariate(1 / self.every)):
            try:
                self.kills += self._kill_one()
            except Exception as exc:  # noqa: BLE001
                print(f"killer: {exc}", file=sys.stderr)

    def _kill_one(self) -> int:
        if self.runtime == "docker":
            import docker

            client = docker.from_env()
            mine = [c for c in client.containers.list(filters={"label": "torch-grader"})
                    if c.labels.get("torch-grader.candidate", "").startswith(self.prefix)
                    and c.labels["torch-grader.candidate"] not in self.victims]
            if mine:
                victim = self.random.choice(mine)
                self.victims.add(victim.labels["torch-grader.candidate"])
                victim.kill()
                return 1
            return 0
        judges = {}
        for pid, cmd in proc_cmdlines().items():
            if "grader.judge" in cmd and self.marker in cmd:
                try:
                    spec = json.loads(Path(cmd.split()[-1]).read_text())
                    judges[pid] = spec["candidates"][0]["label"]
                except (OSError, ValueError, KeyError, IndexError):
                    continue
        judges = {pid: label for pid, label in judges.items() if label not in self.victims}
        if judges:
            pid = self.random.choice(sorted(judges))
            self.victims.add(judges[pid])
            os.kill(pid, signal.SIGKILL)
            return 1
        return 0


def leftovers(runtime: str, marker: str, prefix: str) -> list[str]:
    left = [cmd[:120] for cmd in proc_cmdlines().values() if marker in cmd and "faults.py" not in cmd]
    if runtime == "docker":
        import docker

        left += [c.name for c in docker.from_env().containers.list(all=True, filters={"label": "torch-grader"})
                 if c.labels.get("torch-grader.candidate", "").startswith(prefix)]
    return left


def expected_scores(runtime: str, work: Path, jobs: int, extra: list[str]) -> dict[str, float]:
    """The undisturbed run: one submission per distinct content."""
    subs = make_submissions(work / "reference", len(variants()))
    report = work / "reference.json"
    subprocess.run([*GRADER, "grade", *map(str, subs), "--runtime", runtime, "--jobs", str(jobs), "-q",
                    "--json", str(report), *extra], cwd=ROOT, check=True, stderr=subprocess.DEVNULL)
    scores = {s["name"]: s["percent"] for s in json.loads(report.read_text())["submissions"]}
    return {i: scores[f"sub{i:03d}"] for i in range(len(subs))}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--runtime", choices=["local", "docker"], default="local")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--kill-every", type=float, default=6.0, help="mean seconds between kills")
    parser.add_argument("--ray", action="store_true", help="then the same on a Ray cluster, killing a worker node")
    parser.add_argument("--image", default=None)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="grader-faults-"))
    marker = str(work)
    env = {**os.environ, "TMPDIR": marker, "NO_COLOR": "1"}
    extra = ["--memory-gb", "1"] + (["--image", args.image] if args.image else [])
    ok = True
    t0 = time.monotonic()
    try:
        expected = expected_scores(args.runtime, work, args.jobs, extra)
        n_variants = len(variants())
        print(f"undisturbed scores by content: {sorted(expected.values())} ({time.monotonic() - t0:.0f} s)")
        prefix = f"f{os.getpid()}-"
        subs = make_submissions(work / "subs", args.count)
        named = []
        for i, sub in enumerate(subs):  # names unique to this script run: its containers are told by label
            target = sub.with_name(f"{prefix}{i:03d}")
            sub.rename(target)
            named.append(target)
        results, report = work / "results", work / "report.json"
        cmd = [*GRADER, "grade", *map(str, named), "--runtime", args.runtime, "--jobs", str(args.jobs), "-q",
               "--results-dir", str(results), "--json", str(report), *extra]
        killer = Killer(args.runtime, marker, prefix, args.kill_every, args.seed)
        killer.thread.start()
        terms = 0
        for stop_at in (args.count // 3, 2 * args.count // 3, None):
            proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                    text=True)
            if stop_at is not None:
                while proc.poll() is None and len(list(results.glob("*.json"))) < stop_at:
                    time.sleep(0.2)
                proc.send_signal(signal.SIGTERM)
                terms += 1
            _, err = proc.communicate()
            want = 0 if stop_at is None else 130
            if proc.returncode != want:
                print(f"FAIL: exit {proc.returncode}, expected {want}\n{err[-2000:]}")
                ok = False
            time.sleep(0.5)
            left = leftovers(args.runtime, marker, prefix)
            if left:
                print(f"FAIL: left running after exit {proc.returncode}: {left}")
                ok = False
        killer.stop.set()
        killer.thread.join()
        ok &= verify(json.loads(report.read_text()), results, named, expected, n_variants, prefix)
        print(f"{args.runtime}: {args.count} submissions, --jobs {args.jobs}, {killer.kills} judges/containers "
              f"killed, {terms} SIGTERMs and resumes: {time.monotonic() - t0:.0f} s")
        if args.ray:
            ok &= ray_phase(args, work, named, expected, n_variants, prefix, env, extra)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


def verify(report: dict, results: Path, named: list[Path], expected: dict, n_variants: int, prefix: str) -> bool:
    ok = True
    names = [s["name"] for s in report["submissions"]]
    if names != [p.name for p in named]:
        print(f"FAIL: report has {len(names)} submissions ({len(set(names))} distinct), expected {len(named)}")
        ok = False
    files = list(results.glob("*.json"))
    if len(files) != len(named):
        print(f"FAIL: {len(files)} result files for {len(named)} submissions")
        ok = False
    bad = []
    for s in report["submissions"]:
        i = int(s["name"][len(prefix):])
        want = expected[i % n_variants]
        if s["error"] or s["percent"] != want:
            bad.append((s["name"], s["percent"], want, s["error"]))
    if bad:
        print(f"FAIL: {len(bad)} scores differ from the undisturbed run: {bad[:5]}")
        ok = False
    return ok


def ray_phase(args, work, named, expected, n_variants, prefix, env, extra) -> bool:
    from tests.support.ray_cluster import LocalRayCluster

    t0 = time.monotonic()
    cluster = LocalRayCluster(head_cpus=1)
    ok = True
    try:
        port = cluster.add_worker(cpus=1)
        raylet = cluster.raylet_pid(port)
        results, report = work / "ray-results", work / "ray-report.json"
        cmd = [*GRADER, "grade", *map(str, named), "--runtime", "ray", "--address", cluster.address,
               "--node-runtime", args.runtime, "-q", "--results-dir", str(results), "--json", str(report), *extra]
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        while proc.poll() is None and len(list(results.glob("*.json"))) < len(named) // 3:
            time.sleep(0.2)
        os.kill(raylet, signal.SIGKILL)
        _, err = proc.communicate()
        ours = {pid for pid, _ in cluster.processes()}
        orphans = [pid for pid, cmd in proc_cmdlines().items() if "grader.judge" in cmd and _parent(pid) in ours]
        if orphans:
            print(f"FAIL: judges still running under the cluster after the run: {orphans}")
            ok = False
        if proc.returncode != 0:
            print(f"FAIL: ray run exited {proc.returncode}\n{err[-2000:]}")
            ok = False
        ok &= verify(json.loads(report.read_text()), results, named, expected, n_variants, prefix)
        print(f"ray ({args.runtime} on the nodes): {len(named)} submissions, worker node's raylet killed "
              f"mid-batch: {time.monotonic() - t0:.0f} s")
    finally:
        cluster.stop()
    if cluster.processes():
        print(f"FAIL: Ray processes left after the cluster stopped: {cluster.processes()}")
        ok = False
    return ok


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


if __name__ == "__main__":
    sys.exit(main())
