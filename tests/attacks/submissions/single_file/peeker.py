"""Attack: two single-file submissions from the same folder (`grader grade -e 05 peeker.py
victim.py`). This one reads the other file next to it and uses its answers.
Honest baseline: 0.
Expected: only its own file is readable: it scores 0, victim.py keeps its full marks.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def _victim():
    found = {}
    path = os.path.join(HERE, "victim.py")
    with open(path) as fh:
        exec(compile(fh.read(), path, "exec"), found)
    return found


def add_feature_bias(x, bias):
    return _victim()["add_feature_bias"](x, bias)


def add_sample_bias(x, bias):
    return _victim()["add_sample_bias"](x, bias)


def pairwise_sq_dists(a, b):
    return _victim()["pairwise_sq_dists"](a, b)
