"""Builds float label vectors on real's device with torch.full, flattens D's output to (N,), uses
the nn.BCEWithLogitsLoss module for D and -logsigmoid for G, and clears with set_to_none=False."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def gan_step(G: nn.Module, D: nn.Module, opt_g: torch.optim.Optimizer, opt_d: torch.optim.Optimizer, real: Tensor, z: Tensor) -> tuple[float, float]:
    """One D update on d_loss = BCEWithLogits(D(real), 1) + BCEWithLogits(D(G(z).detach()), 0) (the sum of the two terms, not their average), then one non-saturating G update through the UPDATED D (fake->1); returns (d_loss, g_loss)."""
    criterion = nn.BCEWithLogitsLoss()
    G.train()
    D.train()
    n, m = real.shape[0], z.shape[0]
    ones = torch.full((n,), 1.0, dtype=torch.float32, device=real.device)
    zeros = torch.full((m,), 0.0, dtype=torch.float32, device=real.device)
    fake = G(z)
    opt_d.zero_grad(set_to_none=False)
    loss_real = criterion(D(real).reshape(n), ones)
    loss_fake = criterion(D(fake.detach()).reshape(m), zeros)
    d_loss = loss_real + loss_fake
    d_loss.backward()
    opt_d.step()

    opt_g.zero_grad(set_to_none=False)
    g_loss = -F.logsigmoid(D(fake).reshape(m)).mean()
    g_loss.backward()
    opt_g.step()
    return d_loss.item(), g_loss.item()
