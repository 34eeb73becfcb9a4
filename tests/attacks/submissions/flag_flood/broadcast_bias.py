"""Attack: flood the judge's results with static flags: 1 500 assignments to attributes of torch,
each with a 2 000-character name (3 MB of flags in one record; 800 flags of 100 kB once made an
80 MB results line, and a record past the reader's cap took every later verdict with it).
Honest baseline: every public check (the functions are right; the assignments add new names).
Expected: the flags are capped in number and size, the checks are graded, the other submissions
too.
"""
import torch  # noqa: F401 - the generated lines below assign to it


def add_feature_bias(x, bias):
    return x + bias[None, :]


def add_sample_bias(x, bias):
    return x + bias[:, None]


def pairwise_sq_dists(a, b):
    sq = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :]
    return (sq - 2 * a @ b.T).clamp_min(0)

# GENERATED BELOW (tests/attacks/test_attacks.py, GENERATED): torch.<2000 x 'a'><i> = i, 1500 lines
