"""Attack: fool a probe. Exercise 10's state check runs a trusted probe in the worker that calls
elementwise_derivative and then compares the caller's tensor with a copy (torch.equal). This
answer changes the caller's tensor in place (wrong) and replaces torch.equal so that the probe
sees no change. Everything else is right.
Honest baseline: every check but test_input_left_untouched (8.82 of 10 points).
Expected: the probe notices that torch.equal was replaced and refuses to observe, so the state
check fails saying so; the score stays at the honest baseline; the assignment is flagged.
"""
import torch

torch.equal = lambda a, b: True


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
