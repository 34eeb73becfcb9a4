"""Attack: exercise 16 forbids forming the Hessian (torch.autograd.functional.hessian, torch.func).
This answer forms it for small inputs, through torch.autograd.functional.hessian taken at import
under a name built at run time and kept in a list: the static check cannot name it and no wrapper
put on the attribute during the check sees the call. Large inputs (the timed check) go through
double backward, so nothing else gives it away.
Honest baseline: every check but the Hessian ban (the values are right).
Expected: the ban fails: the call watch sees hessian's own code run, whatever reference reached it.
"""
from __future__ import annotations

from collections.abc import Callable

import torch
import torch.autograd.functional as _functional
from torch import Tensor, nn

_KEPT = [getattr(_functional, "hes" + "sian")]


def gradient_penalty(critic: nn.Module, real: Tensor, fake: Tensor, alpha: Tensor) -> Tensor:
    x_hat = alpha * real + (1 - alpha) * fake
    if not x_hat.requires_grad:
        x_hat.requires_grad_(True)
    (grad,) = torch.autograd.grad(critic(x_hat).sum(), x_hat, create_graph=True)
    return ((grad.flatten(start_dim=1).norm(2, dim=1) - 1) ** 2).mean()


def hessian_vector_product(f: Callable[[Tensor], Tensor], x: Tensor, v: Tensor) -> Tensor:
    x = x.detach()
    if x.numel() <= 1000:  # small enough to form H: the forbidden route, unseen by a wrapper
        n = x.numel()
        return (_KEPT[0](f, x).reshape(n, n) @ v.reshape(n)).reshape(x.shape).detach()
    x = x.requires_grad_(True)
    with torch.enable_grad():
        (grad,) = torch.autograd.grad(f(x), x, create_graph=True)
        (hvp,) = torch.autograd.grad(grad, x, grad_outputs=v)
    return hvp
