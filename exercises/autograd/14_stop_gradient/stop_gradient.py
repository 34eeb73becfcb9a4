from __future__ import annotations

from torch import Tensor, nn


def td_loss(q_pred: Tensor, reward: Tensor, next_q: Tensor, gamma: float) -> Tensor:
    """Return the mean squared TD error between q_pred and reward + gamma * next_q as a 0-dim tensor. No gradient flows into next_q."""
    raise NotImplementedError


def ema_update_(target: nn.Module, online: nn.Module, tau: float) -> None:
    """Update target in place: each parameter becomes (1 - tau) times itself plus tau times the online parameter, and each buffer a copy of the online one."""
    raise NotImplementedError
