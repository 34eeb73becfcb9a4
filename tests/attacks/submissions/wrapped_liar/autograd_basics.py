"""Attack: a lying torch.equal in torch's own clothes.

Exercise 10's state check runs a trusted probe in the worker that calls elementwise_derivative and
compares the caller's tensor with a copy (torch.equal). This answer changes the caller's tensor in
place (wrong) and replaces torch.equal with a liar wrapped by torch's own decorator
(`torch.no_grad()(liar)`: a function whose code lies in torch's folder), its `__wrapped__` set to
the real torch.equal, as torch's own rewrapping (dynamo's) looks. The liar is honest on small
float32 tensors (what canaries used to compare) and says "equal" otherwise.
Honest baseline: every check but test_input_left_untouched.
Expected: the guard does not take a file or a `__wrapped__` for provenance: the probe refuses to
observe (tampering), the canaries (now of every dtype and size) see the lie; the assignment is
flagged.
"""
import torch

_real_equal = torch.equal


def _liar(a, b):
    if a.dtype == torch.float32 and a.numel() <= 64:
        return _real_equal(a, b)
    return True


torch.equal = torch.no_grad()(_liar)
torch.equal.__wrapped__ = _real_equal


def elementwise_derivative(f, x):
    x.requires_grad_(True)
    y = f(x)
    (grad,) = torch.autograd.grad(y, x, torch.ones_like(y))
    x.requires_grad_(False)
    with torch.no_grad():
        x.mul_(2.0)
    return grad.detach()


def accumulated_grad(x, n_backward):
    leaf = x.detach().clone().requires_grad_(True)
    for _ in range(n_backward):
        (leaf ** 2).sum().backward()
    return leaf.grad.detach()


def gradient_descent_scalar(f, x0, lr, steps):
    x = torch.tensor(float(x0), dtype=torch.float64, requires_grad=True)
    for _ in range(steps):
        f(x).backward()
        with torch.no_grad():
            x -= lr * x.grad
        x.grad.zero_()
    return float(x.item())
