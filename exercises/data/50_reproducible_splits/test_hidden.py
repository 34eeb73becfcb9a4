"""Hidden checks for 50_reproducible_splits.

The splits are graded by their properties (sizes, a disjoint cover of range(n), the same lists for
the same arguments, other lists for another seed, global RNG states untouched), not against one
permutation: any seeded shuffle of its own is right. make_splits is observed in a probe
with a dataset class, a factory and counting transforms all defined there (nothing crosses a
process boundary but plain data).
"""
import math

import pytest
import torch

from grader.testing import check


def _sizes(n, fractions):
    sizes = [math.floor(f * n) for f in fractions]
    sizes[0] += n - sum(sizes)
    return sizes


def _is_index_lists(parts, count):
    return (isinstance(parts, list) and len(parts) == count
            and all(isinstance(p, list) and all(type(i) is int for i in p) for p in parts))


def _partition(parts, n, fractions, what):
    """A list of lists of Python ints with the contract's sizes, disjoint and covering range(n)."""
    assert _is_index_lists(parts, len(fractions)), \
        f"{what}: expected a list of {len(fractions)} lists of Python ints, got {type(parts).__name__}"
    sizes = _sizes(n, fractions)
    assert [len(p) for p in parts] == sizes, \
        f"{what}: split sizes {[len(p) for p in parts]}, expected {sizes} (floor, remainder to split 0)"
    assert sorted(i for p in parts for i in p) == list(range(n)), f"{what}: the splits must be disjoint and cover range(n)"
    return parts


@check("value")
@pytest.mark.parametrize("n, fractions, sizes", [(1001, (0.7, 0.15, 0.15), [701, 150, 150]),
                                                 (9, (0.3, 0.3, 0.4), [4, 2, 3])], ids=["n1001", "n9"])
def test_sizes_disjoint_cover(sub, n, fractions, sizes):
    parts = sub.split_indices(n, fractions, 7)
    assert _is_index_lists(parts, len(fractions)), \
        f"expected a list of {len(fractions)} lists of Python ints, got {type(parts).__name__}"
    assert [len(p) for p in parts] == sizes, \
        f"split sizes {[len(p) for p in parts]} for n={n}, fractions {fractions}: expected {sizes} (floor, remainder to split 0)"
    assert sorted(i for p in parts for i in p) == list(range(n)), "the splits must be disjoint and cover range(n)"


@check("value")
@pytest.mark.parametrize("n, fractions, seed", [(50, (0.6, 0.2, 0.2), 0), (23, (0.5, 0.5), 12345)], ids=["three", "two"])
def test_indices_match_random_split(sub, n, fractions, seed):
    what = f"split_indices({n}, {fractions}, {seed})"
    first = _partition(sub.split_indices(n, fractions, seed), n, fractions, what)
    again = _partition(sub.split_indices(n, fractions, seed), n, fractions, what)
    other = _partition(sub.split_indices(n, fractions, seed + 1), n, fractions, f"split_indices({n}, {fractions}, {seed + 1})")
    assert again == first, f"two calls of {what} gave different splits: the result must depend on the arguments only"
    assert other != first, f"seeds {seed} and {seed + 1} gave the same splits: the split must be drawn from the seed"


@check("value")
def test_global_seeds_do_not_matter(sub):
    def twice(mod):
        import random

        import numpy as np

        torch.manual_seed(1)
        np.random.seed(2)
        random.seed(3)
        states = (torch.get_rng_state(), np.random.get_state()[1].copy(), random.getstate())
        first = mod.split_indices(40, (0.5, 0.25, 0.25), 9)
        untouched = (torch.equal(torch.get_rng_state(), states[0]),
                     bool((np.random.get_state()[1] == states[1]).all()),
                     random.getstate() == states[2])
        torch.manual_seed(123)
        np.random.seed(456)
        random.seed(789)
        torch.rand(3)
        second = mod.split_indices(40, (0.5, 0.25, 0.25), 9)
        return first, second, untouched

    first, second, untouched = sub.probe(twice, sub)
    _partition(first, 40, (0.5, 0.25, 0.25), "split_indices(40, (0.5, 0.25, 0.25), 9)")
    assert second == first, "reseeding torch, numpy and random between two calls with the same seed changed the split"
    names = [name for name, same in zip(("torch", "numpy", "random"), untouched) if not same]
    assert not names, f"split_indices changed the global RNG state of {names}: use a generator of your own"


@check("value")
def test_bad_fractions_raise(sub):
    for fractions in [(0.6, 0.2, 0.1), (0.7, 0.2, 0.2), (1.2, -0.2)]:
        with pytest.raises(ValueError):
            sub.split_indices(20, fractions, 0)
    _partition(sub.split_indices(20, (0.6, 0.3, 0.1), 0), 20, (0.6, 0.3, 0.1),
               "fractions (0.6, 0.3, 0.1) (their float sum is 0.9999999999999999, accepted)")
    _partition(sub.split_indices(20, (0.8, 0.2, 0.0), 0), 20, (0.8, 0.2, 0.0),
               "fractions (0.8, 0.2, 0.0) (a fraction of 0 gives an empty split)")


def _observe(mod, n, fractions, seed):
    from torch.utils.data import Dataset, Subset

    from grader import probes

    built, calls = [], []

    class Numbers(Dataset):
        def __init__(self, transform):
            self.transform = transform

        def __len__(self):
            return n

        def __getitem__(self, i):
            if not 0 <= i < n:
                raise IndexError(i)
            x = torch.tensor([float(i)])
            return self.transform(x) if self.transform is not None else x

    def factory(transform):
        ds = Numbers(transform)
        built.append((ds, "train" if transform is train else "eval" if transform is evaluate else "other"))
        return ds

    def train(x):
        calls.append("train")
        return x + 1000.0

    def evaluate(x):
        calls.append("eval")
        return x - 1000.0

    splits = mod.make_splits(factory, n, fractions, seed, train, evaluate)
    seen = {"built": [tag for _, tag in built], "splits": [], "is_list": type(splits) is list}
    if not isinstance(splits, (list, tuple)):
        seen["splits"] = None
        return seen
    for s in splits:
        entry = {"subset": issubclass(type(s), Subset)}
        if entry["subset"]:
            attrs = probes.instance_attrs(s)
            ds = attrs.get("dataset")
            entry["dataset"] = next((k for k, (b, _) in enumerate(built) if b is ds), None)
            entry["indices"] = [int(i) for i in attrs.get("indices", [])]
            items, tags = [], []
            for j in range(len(entry["indices"])):
                del calls[:]
                items.append(float(s[j][0]))
                tags.append(list(calls))
            entry["items"], entry["calls"] = items, tags
        seen["splits"].append(entry)
    return seen


@check("value")
def test_per_split_transforms(sub):
    n, fractions, seed = 12, (0.5, 0.25, 0.25), 4
    seen = sub.probe(_observe, sub, n, fractions, seed)
    want = _partition(sub.split_indices(n, fractions, seed), n, fractions, f"split_indices({n}, {fractions}, {seed})")
    assert seen["splits"] is not None and len(seen["splits"]) == 3, "make_splits must return a list of 3 subsets"
    for k, (entry, idx) in enumerate(zip(seen["splits"], want)):
        name = "train" if k == 0 else "eval"
        offset = 1000.0 if k == 0 else -1000.0
        assert entry["subset"], f"split {k} is not a torch.utils.data.Subset"
        assert entry["items"] == [i + offset for i in idx], \
            f"the items of split {k} are not the samples {idx} passed through {name}_transform"
        bad = [tags for tags in entry["calls"] if tags != [name]]
        assert not bad, f"items of split {k} went through {bad[0]}: expected {name}_transform only, once per item"


@check("api")
@pytest.mark.parametrize("fractions", [(0.75, 0.25), (0.4, 0.2, 0.2, 0.2)], ids=["two_splits", "four_splits"])
def test_returns_subsets_factory_calls(sub, fractions):
    n, seed = 10, 2
    seen = sub.probe(_observe, sub, n, fractions, seed)
    want = _partition(sub.split_indices(n, fractions, seed), n, fractions, f"split_indices({n}, {fractions}, {seed})")
    assert seen["splits"] is not None and len(seen["splits"]) == len(fractions), \
        f"make_splits must return a list of {len(fractions)} subsets"
    assert seen["is_list"], "make_splits must return a list (of Subset)"
    assert all(e["subset"] for e in seen["splits"]), "every split must be a torch.utils.data.Subset"
    assert [e["indices"] for e in seen["splits"]] == want, "the subsets' indices differ from split_indices(n, fractions, seed)"
    assert len(seen["built"]) <= 2, \
        f"dataset_factory was called {len(seen['built'])} times for {len(fractions)} splits: at most twice expected"
