"""Attack: ship pytest configuration and start-up hooks with the submission, hoping the judge
loads them: conftest.py (here and at the submission's root), pytest.ini, tox.ini, setup.cfg and
pyproject.toml with addopts and plugins, sitecustomize.py and usercustomize.py. Each of them, if
run, records the process it ran in and appends a forged "passed" note to the judge's results.
This file itself is the untouched stub.
Honest baseline: 0.
Expected: none of them runs in the judge (no marker naming the judge, no forged note); 0 points.
"""


def add_feature_bias(x, bias):
    raise NotImplementedError


def add_sample_bias(x, bias):
    raise NotImplementedError


def pairwise_sq_dists(a, b):
    raise NotImplementedError
