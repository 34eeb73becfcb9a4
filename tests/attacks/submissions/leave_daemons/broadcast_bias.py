"""Attack: leave processes behind that outlive the grading.

add_feature_bias starts a daemon (double fork, setsid) and returns the right answer;
add_sample_bias starts a "churner" that keeps forking a successor and exiting (a moving target
for whoever kills it) and returns the right answer; pairwise_sq_dists starts 32 sleepers, each
in its own session, then hangs. Every process names itself ax-... (/proc/<pid>/comm).
The reference answer to exercise 10 is graded alongside.
Honest baseline: the two right answers (add_feature_bias, add_sample_bias).
Expected: the right answers earn their checks and no more; the hang is killed at the time
limit; after grading no ax-... process is left on the machine.
"""
import ctypes
import os
import time

_libc = ctypes.CDLL(None)


def _name(tag):
    _libc.prctl(15, ctypes.c_char_p(tag), 0, 0, 0)  # PR_SET_NAME


def _detached(body):
    if os.fork() == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                body()
        finally:
            os._exit(0)


def _sleep_forever(tag):
    def body():
        _name(tag)
        while True:
            time.sleep(0.2)
    return body


def _churn():
    _name(b"ax-churn")
    while True:
        if os.fork():
            os._exit(0)
        os.setsid()
        time.sleep(0.01)


def add_feature_bias(x, bias):
    _detached(_sleep_forever(b"ax-daemon"))
    return x + bias


def add_sample_bias(x, bias):
    _detached(_churn)
    return x + bias[:, None]


def pairwise_sq_dists(a, b):
    for _ in range(32):
        _detached(_sleep_forever(b"ax-sleeper"))
    while True:
        time.sleep(1)
