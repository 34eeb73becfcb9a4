"""Attack: return tensors that lie about themselves.

- add_feature_bias: a Tensor subclass whose __eq__ and __torch_function__ answer "equal" to every
  comparison (eq, allclose, equal, isclose), holding wrong values;
- add_sample_bias: a subclass whose `shape` property lies about its size;
- pairwise_sq_dists: a subclass whose every attribute answers True.
Honest baseline: 0 (every value is wrong).
Expected: only plain values cross to the judge (subclasses stripped, sizes checked, anything else
stays in the worker as a handle), so every check fails.
"""
import torch

_ALWAYS_EQUAL = {torch.eq, torch.equal, torch.allclose, torch.isclose, torch.Tensor.__eq__, torch.Tensor.eq,
                 torch.Tensor.allclose, torch.Tensor.equal, torch.Tensor.isclose}


class Agreeable(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func in _ALWAYS_EQUAL:
            return True
        return super().__torch_function__(func, types, args, kwargs or {})

    def __eq__(self, other):
        return True

    __hash__ = torch.Tensor.__hash__


class WrongSize(torch.Tensor):
    @property
    def shape(self):
        return torch.Size([2, 3])


class Everything(torch.Tensor):
    def __getattribute__(self, name):
        if name.startswith("__"):
            return object.__getattribute__(self, name)
        return True


def add_feature_bias(x, bias):
    return (x * 0).as_subclass(Agreeable)


def add_sample_bias(x, bias):
    return torch.zeros(1).as_subclass(WrongSize)


def pairwise_sq_dists(a, b):
    return torch.zeros(a.shape[0], b.shape[0]).as_subclass(Everything)
