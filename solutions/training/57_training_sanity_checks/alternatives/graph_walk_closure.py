"""Alternative: Adam driven through optimizer.step(closure); unused parameters found by walking the
autograd graph from the output to its AccumulateGrad leaves (nothing runs backward)."""
from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor, nn


def overfit_one_batch(model: nn.Module, x: Tensor, y: Tensor, loss_fn: Callable[[Tensor, Tensor], Tensor],
                      steps: int = 300, lr: float = 1e-2) -> list[float]:
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def closure() -> Tensor:
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        return loss

    return [float(optimizer.step(closure).detach()) for _ in range(steps)]


def unused_parameters(model: nn.Module, *inputs: Tensor) -> list[str]:
    out = model(*inputs).float().sum()
    reached: set[int] = set()
    stack, seen = [out.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        variable = getattr(node, "variable", None)
        if variable is not None:
            reached.add(id(variable))
        stack.extend(next_node for next_node, _ in node.next_functions)
    return [name for name, p in model.named_parameters() if p.requires_grad and id(p) not in reached]
