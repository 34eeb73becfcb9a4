"""`grader watch`: save-to-result latency against a cold `grader check`, side by side in one run,
and the CPU cost of watching idle.

    .venv/bin/python benchmarks/watch_latency.py [--saves 20] [--cold 5] [--idle-s 60]

In a fresh bundle of exercise 05, one `grader watch 05` (plain mode, through pipes) runs for the
whole benchmark. Each save alternates the reference and a wrong answer (so every result differs
from the last) and is timed from the write to the end of the result block. Cold `grader check 05`
runs are interleaved with the saves (one every saves/cold saves). Targets: median latency
<= 1.0 s and <= 0.3 x the median cold check. Then the watcher idles for --idle-s seconds and the
CPU time of the whole session (watch, warm judge, fork server) is read from /proc: target <= 1 s
per 60 s idle.
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

from pexpect.popen_spawn import PopenSpawn

ROOT = Path(__file__).resolve().parent.parent
GRADER = str(Path(sys.executable).parent / "grader")
REL = Path("exercises/tensors/05_broadcast_bias/broadcast_bias.py")


def cpu_seconds(marker: str, pids: set[int]) -> float:
    """utime + stime of the processes in `pids` and of those whose command line holds `marker`."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().decode(errors="replace")
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry) in pids or marker in cmd:
            total += int(stat[11]) + int(stat[12])  # utime, stime
    return total / tick


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=20)
    parser.add_argument("--cold", type=int, default=5)
    parser.add_argument("--idle-s", type=float, default=60.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="grader-bench-watch-") as tmp:
        bundle, marker = Path(tmp) / "bundle", Path(tmp) / "t"
        marker.mkdir()
        subprocess.run([GRADER, "export", str(bundle), "-e", "05"], check=True, capture_output=True)
        right = (ROOT / "solutions" / "tensors" / "05_broadcast_bias" / "broadcast_bias.py").read_text()
        wrong = right.replace("return x + bias.unsqueeze(1)", "return x + bias")
        env = {**os.environ, "TMPDIR": str(marker)}
        env.pop("GRADER_ROOT", None)
        watch = PopenSpawn([GRADER, "watch", "05"], cwd=str(bundle), env=env, encoding="utf-8", timeout=300)
        watch.expect(r"Progress ")  # the first run: the judge is warm from here on
        saves, colds = [], []
        every = max(1, args.saves // max(args.cold, 1))
        for i in range(args.saves):
            text, expected = (right, "3/3 checks passed") if i % 2 == 0 else (wrong, "2/3 checks passed")
            start = time.perf_counter()
            (bundle / REL).write_text(text)
            watch.expect(expected)
            watch.expect(r"Progress [^\n]*\n")
            saves.append(time.perf_counter() - start)
            if i % every == every - 1 and len(colds) < args.cold:
                start = time.perf_counter()
                subprocess.run([GRADER, "check", "05"], cwd=bundle, capture_output=True, env=env)
                colds.append(time.perf_counter() - start)
        idle = None
        if args.idle_s > 0:
            before = cpu_seconds(str(marker), {watch.proc.pid})
            time.sleep(args.idle_s)
            idle = cpu_seconds(str(marker), {watch.proc.pid}) - before
        watch.sendline("q")
        watch.expect(__import__("pexpect").EOF)
    latency, cold = statistics.median(saves), statistics.median(colds)
    print(f"save-to-result, median of {len(saves)} saves: {latency:.3f} s "
          f"(min {min(saves):.3f}, max {max(saves):.3f})  target <= 1.0 s")
    print(f"cold `grader check 05`, median of {len(colds)}: {cold:.3f} s")
    print(f"ratio watch / cold check: {latency / cold:.3f}  target <= 0.3")
    if idle is not None:
        print(f"CPU time of the watching session idle for {args.idle_s:g} s: {idle:.2f} s "
              f"({idle * 60 / args.idle_s:.2f} s per 60 s)  target <= 1 s per 60 s")


if __name__ == "__main__":
    main()
