"""Writes the losses with softplus (softplus(-x) = -log sigmoid(x)), clears with model.zero_grad(),
and runs G twice (once under no_grad for the D step, once for the G step)."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def gan_step(G: nn.Module, D: nn.Module, opt_g: torch.optim.Optimizer, opt_d: torch.optim.Optimizer, real: Tensor, z: Tensor) -> tuple[float, float]:
    """One D update on d_loss = BCEWithLogits(D(real), 1) + BCEWithLogits(D(G(z).detach()), 0) (the sum of the two terms, not their average), then one non-saturating G update through the UPDATED D (fake->1); returns (d_loss, g_loss)."""
    G.train()
    D.train()
    with torch.no_grad():
        fake = G(z)
    D.zero_grad()
    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
    d_loss.backward()
    opt_d.step()
    d_value = float(d_loss)

    G.zero_grad()
    g_loss = F.softplus(-D(G(z))).mean()
    g_loss.backward()
    opt_g.step()
    return d_value, float(g_loss)
