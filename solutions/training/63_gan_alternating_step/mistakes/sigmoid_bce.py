"""Puts D's logits through torch.sigmoid and uses nn.BCELoss (E15): equal here, unstable for large logits.

Caught by: test_forbidden_apis
"""
from __future__ import annotations

import torch
from torch import Tensor, nn


def gan_step(G: nn.Module, D: nn.Module, opt_g: torch.optim.Optimizer, opt_d: torch.optim.Optimizer, real: Tensor, z: Tensor) -> tuple[float, float]:
    """One D update on d_loss = BCEWithLogits(D(real), 1) + BCEWithLogits(D(G(z).detach()), 0) (the sum of the two terms, not their average), then one non-saturating G update through the UPDATED D (fake->1); returns (d_loss, g_loss)."""
    G.train()
    D.train()
    fake = G(z)

    opt_d.zero_grad()
    real_logits = D(real)
    fake_logits = D(fake.detach())
    d_loss = (nn.BCELoss()(torch.sigmoid(real_logits), torch.ones_like(real_logits))
              + nn.BCELoss()(torch.sigmoid(fake_logits), torch.zeros_like(fake_logits)))
    d_loss.backward()
    opt_d.step()

    opt_g.zero_grad()
    out = D(fake)
    g_loss = nn.BCELoss()(torch.sigmoid(out), torch.ones_like(out))
    g_loss.backward()
    opt_g.step()
    return d_loss.item(), g_loss.item()
