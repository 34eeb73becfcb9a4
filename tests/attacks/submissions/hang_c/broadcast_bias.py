"""Attack: hang where Python cannot interrupt it.

add_feature_bias blocks in C (libc pause() with every signal blocked); add_sample_bias sleeps an
hour in C (libc sleep) after ignoring SIGTERM and SIGINT; pairwise_sq_dists stops itself
(SIGSTOP; where it cannot, as PID 1 of its own PID namespace, it sleeps in C). The reference
answer to exercise 10 is graded alongside.
Honest baseline: 0 for this file.
Expected: each check is killed at its time limit, saying so; exercise 10 gets full marks.
"""
import ctypes
import os
import signal

libc = ctypes.CDLL(None)


def add_feature_bias(x, bias):
    signal.pthread_sigmask(signal.SIG_BLOCK, set(signal.Signals) - {signal.SIGKILL, signal.SIGSTOP})
    libc.pause()


def add_sample_bias(x, bias):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    libc.sleep(3600)


def pairwise_sq_dists(a, b):
    os.kill(os.getpid(), signal.SIGSTOP)
    libc.sleep(3600)  # PID 1 of its own PID namespace (local runtime) ignores its own SIGSTOP
    return a
