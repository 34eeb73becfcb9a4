"""Public checks for 50_reproducible_splits: run them with `grader check 50`."""
from grader.testing import check


@check("value")
def test_sizes_and_cover(sub):
    parts = sub.split_indices(1001, (0.7, 0.15, 0.15), 0)
    assert [len(p) for p in parts] == [701, 150, 150]
    assert sorted(i for p in parts for i in p) == list(range(1001)), "the splits must cover range(n) once"


@check("value")
def test_same_seed_same_split(sub):
    assert sub.split_indices(20, (0.5, 0.5), 3) == sub.split_indices(20, (0.5, 0.5), 3)
    assert sub.split_indices(20, (0.5, 0.5), 3) != sub.split_indices(20, (0.5, 0.5), 4)
