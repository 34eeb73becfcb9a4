"""A correct alternative: detach the whole TD target; EMA by mixing state dicts and loading them back."""
from __future__ import annotations

from torch import Tensor, nn


def td_loss(q_pred: Tensor, reward: Tensor, next_q: Tensor, gamma: float) -> Tensor:
    """mean((q_pred - (reward + gamma * next_q))**2) with NO gradient flowing into next_q."""
    target = (reward + gamma * next_q).detach()
    return (q_pred - target).pow(2).mean()


def ema_update_(target: nn.Module, online: nn.Module, tau: float) -> None:
    """In place, without autograd history: p_t <- (1 - tau) * p_t + tau * p_o for all parameters; buffers are copied from online."""
    # state_dict() tensors carry no graph; load_state_dict copies into the existing tensors under no_grad
    param_names = {name for name, _ in target.named_parameters()}
    online_state = online.state_dict()
    mixed = {}
    for name, value in target.state_dict().items():
        if name in param_names:
            mixed[name] = (1 - tau) * value + tau * online_state[name]
        else:
            mixed[name] = online_state[name].clone()
    target.load_state_dict(mixed)
