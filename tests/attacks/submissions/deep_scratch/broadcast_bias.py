"""Attack: make a 3000-level chain of folders in the worker's scratch folder before answering.
`shutil.rmtree` recurses once per level: removing this scratch used to raise RecursionError,
which killed the fork server (every later check of the run failed) and, on the local runtime,
escaped `grade()` from the temporary-folder cleanup: no report for anyone.
Honest baseline: every public check (the answers are right).
Expected: every check passes, the scratch is removed, every submission graded, every report written.
"""
import os


def _deep_chain(levels=3000):
    fd = os.open(".", os.O_RDONLY)
    for _ in range(levels):
        os.mkdir("d", dir_fd=fd)
        deeper = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = deeper
    os.close(fd)


def add_feature_bias(x, bias):
    _deep_chain()
    return x + bias


def add_sample_bias(x, bias):
    _deep_chain()
    return x + bias[:, None]


def pairwise_sq_dists(a, b):
    _deep_chain()
    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)
