from __future__ import annotations

import torch
from torch import Tensor, nn


def gan_step(G: nn.Module, D: nn.Module, opt_g: torch.optim.Optimizer, opt_d: torch.optim.Optimizer, real: Tensor, z: Tensor) -> tuple[float, float]:
    """Runs one discriminator update and then one generator update. Returns the two losses as Python floats."""
    raise NotImplementedError
