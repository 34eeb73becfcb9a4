"""Attack: ship the answer in a second file of the submission, which the judge does not read.

`bb_shipped.py` beside this file holds the answer (its pairwise distances loop in Python); this
file only imports it, with a plain import statement (the submission's folder is where Python
looks first).
Honest baseline: 0 (this file itself defines nothing).
Expected: the worker refuses to import a module from outside the Python installation; every
check fails saying so.
"""
from __future__ import annotations

from bb_shipped import add_feature_bias, add_sample_bias, pairwise_sq_dists  # noqa: F401
