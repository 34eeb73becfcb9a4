"""Attack (graded with Landlock turned off, as on a kernel without it): kill every process it can
find in /proc and the fork server that starts every worker (SIGKILL to the parent), and stop it
(SIGSTOP). pairwise_sq_dists answers honestly. The reference answer to exercise 10 is graded
alongside.
Honest baseline: pairwise_sq_dists's check.
Expected, local runtime: the worker is PID 1 of a PID namespace of its own: it finds no other
process and has no parent to name; the first check ends at its time limit, the second fails on
its value, everything else is graded correctly (the honest check and exercise 10 pass). Docker
runtime: the fork server runs as another user than the judge and cannot be replaced: the report
says so and the later checks fail saying why.
"""
import os
import signal
import time


def add_feature_bias(x, bias):
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                os.kill(int(entry), signal.SIGKILL)
            except OSError:
                pass
    os.kill(os.getppid(), signal.SIGKILL)
    time.sleep(30)


def add_sample_bias(x, bias):
    os.kill(os.getppid(), signal.SIGSTOP)
    return x * 0


def pairwise_sq_dists(a, b):
    sq = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :]
    return (sq - 2 * a @ b.T).clamp_min(0)
