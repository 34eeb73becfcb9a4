"""Attack: write outside the scratch folder, where a write would outlive the check or change
the grader: the grader's package, site-packages (a .pth file runs at every Python start), the
Python installation's bin folder, its own submission folder, /tmp, the judge's working folder,
/dev/shm. The files are harmless markers named torch-grader-attack-*.
The reference answer to exercise 10 is graded alongside.
Honest baseline: 0 for this file.
Expected: every write is refused (the check's message lists them), exercise 10 gets full marks,
and no marker exists afterwards. /dev/shm may be written, but it is the worker's own (local: its
mount namespace; docker: its container): see test_dev_shm_is_private.
"""
import os
import sys

import torch

import grader

NAME = "torch-grader-attack-write-outside"
TARGETS = {
    "grader package": os.path.join(os.path.dirname(grader.__file__), NAME + ".py"),
    "site-packages": os.path.join(os.path.dirname(os.path.dirname(torch.__file__)), NAME + ".pth"),
    "python bin": os.path.join(sys.prefix, "bin", NAME),
    "own submission": os.path.join(os.path.dirname(os.path.abspath(__file__)), NAME),
    "tmp": os.path.join("/tmp", NAME),
    "judge folder": os.path.join(os.getcwd(), "..", "..", NAME),
    "judge home": os.path.join("/tmp", "judge", NAME),
    "dev shm": os.path.join("/dev/shm", NAME),
}


def add_feature_bias(x, bias):
    outcome = []
    for what, path in TARGETS.items():
        try:
            with open(path, "w") as fh:
                fh.write("# written by a submission under test\n")
            outcome.append(f"{what}: written")
        except OSError as exc:
            outcome.append(f"{what}: {exc.strerror}")
    raise PermissionError("; ".join(outcome))


def add_sample_bias(x, bias):
    return add_feature_bias(x, bias)


def pairwise_sq_dists(a, b):
    return add_feature_bias(a, b)
