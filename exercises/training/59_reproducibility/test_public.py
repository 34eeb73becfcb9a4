"""Public checks for 59_reproducibility: run them with `grader check 59`."""
import torch
from torch.utils.data import TensorDataset

from grader.testing import check


@check("value")
def test_torch_numpy_random_repeat(sub):
    def twice(mod):
        import random

        import numpy as np

        got = []
        for _ in range(2):
            mod.set_seed(2024)
            got.append((torch.randn(3).tolist(), np.random.rand(3).tolist(), random.random()))
        return got

    first, second = sub.probe(twice, sub)
    for name, a, b in zip(("torch.randn", "np.random.rand", "random.random"), first, second):
        assert a == b, f"{name} gave {a} after set_seed(2024) and {b} after another set_seed(2024)"


@check("value")
def test_same_seed_same_order(sub):
    data = TensorDataset(torch.arange(10))
    one = [batch[0].tolist() for batch in sub.reproducible_loader(data, 5, seed=1)]
    two = [batch[0].tolist() for batch in sub.reproducible_loader(data, 5, seed=1)]
    assert sorted(i for b in one for i in b) == list(range(10)), f"one epoch yielded {one}: every sample once expected"
    assert one == two, f"two loaders built with seed=1 gave the orders {one} and {two}"


@check("value")
def test_strict_mode_seeds_alike(sub):
    def draws(mod):
        mod.set_seed(7)
        plain = torch.randn(3).tolist()
        mod.set_seed(7, deterministic=True)
        return plain, torch.randn(3).tolist()

    plain, strict = sub.probe(draws, sub)
    assert plain == strict, f"torch.randn gave {plain} after set_seed(7) and {strict} after set_seed(7, deterministic=True)"
