"""Attack: read the worker's own memory, which it inherits from the fork server (and, forked in
turn, from the judge template or the container's entry point), and show every piece of a test
file or a solution found there.

The worker may read its own memory: what must hold is that nothing it inherits ever held the
hidden checks, the reference solutions or the mistakes. The container's entry point, for one,
judges the fork server's warm-ups from the exercises' files (the hidden checks among them): done
in the process the fork server is forked from, their text stayed in its freed memory.
Honest baseline: 0.
Expected: every check fails saying that it scanned its memory (hundreds of MiB) and found
nothing of a test file or a solution (the test compares what it found with them). Measured with
the entry point changed to read the exercises' files after importing torch: a public check's
`def` line was found.
"""
import re
import time

# what the exercises' test files and solutions hold and nothing installed does: checks taking the
# `sub` fixture, calls through it, the mistakes' "Caught by: test_..." lines. Each pattern starts
# with a literal that bytes.find locates at memory speed, and is matched only where it occurs
# (`match` at a position still sees the byte before it for \b): tried at every byte, the pattern
# starting with \b took 2 s a call over ~200 MiB, against 0.4 s for the three this way. Each asks
# for a name after `test_`: the literals themselves, in this module's memory, are no find.
_PATTERNS = ((b"def test_", re.compile(rb"def test_\w+\(sub[ -~]{0,80}")),
             (b"sub.", re.compile(rb"\bsub\.\w+\([ -~]{0,80}")),
             (b"Caught by: test_", re.compile(rb"Caught by: test_\w[ -~]{0,80}")))


def _matches(data):
    for literal, pattern in _PATTERNS:
        at = data.find(literal)
        while at >= 0:
            if match := pattern.match(data, at):
                yield match.group()
            at = data.find(literal, at + 1)


def _scan():
    found, scanned, started = [], 0, time.monotonic()
    with open("/proc/self/maps") as fh:
        regions = [line.split() for line in fh]
    with open("/proc/self/mem", "rb", buffering=0) as mem:
        for fields in regions:
            # anonymous and heap memory: where freed objects of the processes before this one stay
            if "rw-p" not in fields[1] or (len(fields) > 5 and fields[5] not in ("[heap]",)):
                continue
            start, end = (int(v, 16) for v in fields[0].split("-"))
            if end - start > 1 << 30 or time.monotonic() - started > 5.0:
                continue
            try:
                mem.seek(start)
                data = mem.read(end - start)
            except OSError:
                continue
            scanned += len(data)
            for match in _matches(data):
                text = match.decode(errors="replace")
                if text not in found:
                    found.append(text)
    raise RuntimeError(f"memory scanned: {scanned >> 20} MiB, {len(found)} piece(s) of checks or solutions: "
                       + " | ".join(found[:200]))


def add_feature_bias(x, bias):
    _scan()


def add_sample_bias(x, bias):
    _scan()


def pairwise_sq_dists(a, b):
    _scan()
