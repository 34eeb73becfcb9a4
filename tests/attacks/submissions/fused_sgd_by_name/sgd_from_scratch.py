"""Attack: MomentumSGD's step hands the update to torch.optim's fused SGD kernel,
`torch._fused_sgd_`, reached by a name built at run time: no line names torch.optim.SGD,
torch.optim.sgd or torch.optim._functional (37's AST check), and the name is none of the
functions the runtime guard patched (torch.optim.SGD's methods, torch.optim.sgd's functions).
Honest baseline: the class, its defaults, its validation, its closure handling and its
'momentum_buffer' state are written out, and the kernel computes torch.optim.SGD's update, so
every check but the API check passes (on meta tensors, which the kernel does not take, the same
update is written out).
Expected: test_no_torch_sgd fails: the fused kernel's operator (aten._fused_sgd_) is reached at
torch's dispatcher.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
from torch import Tensor

_KERNEL = getattr(torch, "_fused" + "_sgd_")


class MomentumSGD(torch.optim.Optimizer):
    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float, momentum: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False) -> None:
        if lr < 0.0:
            raise ValueError(f"invalid learning rate: {lr}")
        if nesterov and momentum <= 0.0:
            raise ValueError("Nesterov momentum requires a positive momentum")
        super().__init__(params, {"lr": lr, "momentum": momentum, "weight_decay": weight_decay, "nesterov": nesterov})

    @torch.no_grad()
    def step(self, closure: Callable[[], Tensor] | None = None) -> Tensor | None:
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if not params:
                continue
            first = False
            bufs = []
            if group["momentum"] != 0:
                for p in params:
                    state = self.state[p]
                    if "momentum_buffer" not in state:
                        state["momentum_buffer"] = torch.zeros_like(p)
                        first = True
                    bufs.append(state["momentum_buffer"])
            if params[0].device.type == "meta":  # no fused kernel there: the same update by hand
                self._by_hand(params, bufs, group, first)
                continue
            _KERNEL(params, [p.grad for p in params], bufs, weight_decay=group["weight_decay"],
                    momentum=group["momentum"], lr=group["lr"], dampening=0.0, nesterov=group["nesterov"],
                    maximize=False, is_first_step=first)
        return loss

    @staticmethod
    def _by_hand(params, bufs, group, first):
        for i, p in enumerate(params):
            d_p = p.grad.add(p, alpha=group["weight_decay"]) if group["weight_decay"] else p.grad
            if group["momentum"]:
                buf = bufs[i]
                if first:
                    buf.copy_(d_p)
                else:
                    buf.mul_(group["momentum"]).add_(d_p)
                d_p = d_p.add(buf, alpha=group["momentum"]) if group["nesterov"] else buf
            p.add_(d_p, alpha=-group["lr"])
