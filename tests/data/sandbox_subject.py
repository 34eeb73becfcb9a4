"""A module imported by the tests' workers: one of everything a handle must forward."""
import collections

import numpy as np
import torch
from torch import nn

CONSTANT = 42
Point = collections.namedtuple("Point", ["x", "y"])


class Lying(torch.Tensor):
    """A tensor subclass whose comparisons always claim equality."""

    def __eq__(self, other):
        return True

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs or {})


class Bag:
    def __init__(self, items):
        self.items = list(items)
        self.label = "bag"

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]

    def __iter__(self):
        return iter(self.items)

    def total(self):
        return sum(self.items)


def double(x):
    return x * 2


def square_sum(x):
    return (x ** 2).sum()


def apply(fn, x):
    return fn(x)


def mixed(x):
    return {"t": x * 3, "n": 7, "s": "text", "pair": (x.sum(), None), "point": Point(1, 2.5)}


def make_model():
    torch.manual_seed(0)
    return nn.Linear(3, 2)


def make_bag():
    return Bag([1, 2, 3])


def numpy_array():
    return np.arange(6, dtype=np.int32).reshape(2, 3)


def lying_tensor():
    return torch.zeros(3).as_subclass(Lying)


def fails(kind):
    if kind == "value":
        raise ValueError("bad value")
    if kind == "key":
        raise KeyError("k")
    raise NotImplementedError


def mutate(x):
    x.add_(1)
    return x


def sparse():
    return torch.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))


def meta_tensor():
    return torch.empty(4, 5, device="meta")


def everything():
    return [torch.tensor([1, 2], dtype=torch.int16), torch.tensor([1.5], dtype=torch.bfloat16),
            torch.float16, torch.device("cpu"), torch.Size([2, 3]), 1 + 2j, b"raw", 10 ** 30,
            float("inf"), np.float32(1.5), collections.OrderedDict(a=1)]


def compiled_sine(n):
    """torch.compile (inductor) of this module's own code, as a candidate's answer would use it."""
    import os
    import time

    def f(x):
        return torch.sin(x) * 2 + 1

    start = time.perf_counter()
    out = torch.compile(f)(torch.arange(float(n)))
    return {"right": bool(torch.allclose(out, f(torch.arange(float(n))))),
            "seconds": round(time.perf_counter() - start, 1),
            "cache_in_scratch": os.environ["TORCHINDUCTOR_CACHE_DIR"].startswith(os.getcwd()),
            "cached": os.path.isdir(os.environ["TORCHINDUCTOR_CACHE_DIR"])}
