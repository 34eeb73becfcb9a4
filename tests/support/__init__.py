"""Helpers that tests and benchmarks share, not tests themselves (`from tests.support... import`,
with the repository root on sys.path, as `python -m pytest` and the benchmarks put it)."""
