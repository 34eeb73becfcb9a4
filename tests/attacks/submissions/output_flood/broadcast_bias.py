"""Attack: drown the judge in output: 10 MiB of lines through print, 10 MiB without a newline
written straight to file descriptor 2. pairwise_sq_dists answers honestly (and quietly).
The reference answer to exercise 10 is graded alongside.
Honest baseline: pairwise_sq_dists's check.
Expected: the flooding checks fail at the output limit, saying so; the honest one passes;
exercise 10 gets full marks.
"""
import os


def add_feature_bias(x, bias):
    line = "PASSED " * 1000
    for _ in range(1500):
        print(line)
    return x + bias


def add_sample_bias(x, bias):
    block = b"x" * (1 << 20)
    for _ in range(10):
        os.write(2, block)
    return x + bias[:, None]


def pairwise_sq_dists(a, b):
    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)
