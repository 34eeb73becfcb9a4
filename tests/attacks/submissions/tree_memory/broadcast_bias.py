"""Attack: hold memory in child processes. The worker itself stays small; five children each
hold 400 MiB (2 GiB in all, twice the 1 GiB limit of this batch) and outlive the answer.
A watchdog that reads the worker's own resident size sees nothing.
Honest baseline: 0 (no answer is computed).
Expected: the worker is killed for the memory of its whole process tree, the check says so,
and no child is left running (they name themselves ax-hog).
"""
import os
import time


def _hog(children=5, mib=400):
    for _ in range(children):
        if os.fork() == 0:
            try:
                with open("/proc/self/comm", "w") as fh:
                    fh.write("ax-hog")
            except OSError:
                pass
            try:
                block = bytearray(mib << 20)
                block[::4096] = b"x" * len(block[::4096])
                time.sleep(120)
            finally:
                os._exit(0)
    time.sleep(120)


def add_feature_bias(x, bias):
    _hog()


def add_sample_bias(x, bias):
    _hog()


def pairwise_sq_dists(a, b):
    _hog()
