"""Attack: an expression 200 000 terms deep. Python's parser handles it, but turning it into an
AST recurses once per term: `ast.parse` in the judge raised RecursionError in pytest_configure
(INTERNALERROR: every submission graded with this one scored 0, exit 0).
Honest baseline: 0 for this file (the grader cannot read it as Python runs it).
Expected: this file's checks fail saying it is nested too deeply; the reference answer to
exercise 10 in the same submission, and every other submission, are graded in full.
"""


def add_feature_bias(x, bias):
    return x + bias[None, :]


def add_sample_bias(x, bias):
    return x + bias[:, None]


def pairwise_sq_dists(a, b):
    sq = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :]
    return (sq - 2 * a @ b.T).clamp_min(0)

# GENERATED BELOW (tests/attacks/test_attacks.py, GENERATED): _ = 1+1+...+1, 200 000 terms
