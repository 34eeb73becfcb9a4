"""Attack: hands the whole update to torch.optim's fused Adam/AdamW kernel, `torch._fused_adam_`
/ `torch._fused_adamw_`, reached by a name built at run time: no line names torch.optim or a
`_foreach_` function (38's AST check), and neither name is one of the functions the runtime guard
patched (torch.optim's classes and functions, torch._foreach_*).
Honest baseline: the state keys, the step count and every update are torch's own, so every check
but the API check passes.
Expected: test_no_torch_optim fails: the fused kernel's operator (aten._fused_adam_ /
aten._fused_adamw_) is reached at torch's dispatcher.
"""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor


def adam_update(param: Tensor, grad: Tensor, state: dict[str, Any], lr: float, betas: tuple[float, float] = (0.9, 0.999),
                eps: float = 1e-8, weight_decay: float = 0.0, decoupled: bool = False) -> None:
    kernel = getattr(torch, "_fused_adam" + ("w_" if decoupled else "_"))
    with torch.no_grad():
        if "step" not in state:
            state["step"] = 0
            state["exp_avg"] = torch.zeros_like(param, memory_format=torch.preserve_format)
            state["exp_avg_sq"] = torch.zeros_like(param, memory_format=torch.preserve_format)
        state["step"] += 1
        step = torch.tensor(float(state["step"]), dtype=torch.float32, device=param.device)
        kernel([param], [grad.clone()], [state["exp_avg"]], [state["exp_avg_sq"]], [], [step], lr=lr,
               beta1=betas[0], beta2=betas[1], weight_decay=weight_decay, eps=eps, amsgrad=False, maximize=False)
