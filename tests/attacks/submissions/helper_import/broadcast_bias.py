"""Attack: hide code from the static checks in a module written at import time.

At import this file writes a helper module into its working directory (the worker's scratch
folder), puts that folder on sys.path and imports the answer from it with a plain import
statement (no exec, no importlib). The helper's pairwise distances loop in Python, which the
judge's AST checks of this file cannot see.
Honest baseline: 0 (this file itself defines nothing).
Expected: the worker refuses to import a module from outside the Python installation, naming it;
every check fails with that message; `sys.path.insert` is flagged for the interviewer.
"""
from __future__ import annotations

import os
import sys

HELPER = '''
import torch


def add_feature_bias(x, bias):
    return x + bias


def add_sample_bias(x, bias):
    return x + bias[:, None]


def pairwise_sq_dists(a, b):
    rows = [((a[i][None, :] - b) ** 2).sum(dim=1) for i in range(a.shape[0])]
    return torch.stack(rows).clamp_min(0)
'''

with open(os.path.join(os.getcwd(), "bb_helper.py"), "w") as f:
    f.write(HELPER)
sys.path.insert(0, os.getcwd())

from bb_helper import add_feature_bias, add_sample_bias, pairwise_sq_dists  # noqa: E402,F401
