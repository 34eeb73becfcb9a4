"""Attack: leaves logit space in 63's GAN step through sigmoid's operator reached by a name built
at run time (`getattr(torch.ops.aten, "sig" + "moid")`), then a hand-written BCE on the
probabilities: no line names torch.sigmoid, F.sigmoid, expit, nn.Sigmoid or BCE (the AST check),
and no attribute the runtime spies patch is called (torch.ops.aten is not one of them).
Honest baseline: the step is otherwise right (D on the detached fake with the sum of the two
terms, then G through the updated D; the logits stay moderate, so the values match the
reference), so every check but the API check passes.
Expected: test_forbidden_apis fails: aten.sigmoid is reached at torch's dispatcher
(probes.forbid_forward_ops), outside a backward pass.
"""
from __future__ import annotations

import torch
from torch import Tensor, nn

_SQUASH = getattr(torch.ops.aten, "sig" + "moid")


def _bce(logits: Tensor, target: float) -> Tensor:
    p = _SQUASH(logits)
    return -(target * torch.log(p) + (1.0 - target) * torch.log1p(-p)).mean()


def gan_step(G: nn.Module, D: nn.Module, opt_g: torch.optim.Optimizer, opt_d: torch.optim.Optimizer,
             real: Tensor, z: Tensor) -> tuple[float, float]:
    G.train()
    D.train()
    fake = G(z)
    opt_d.zero_grad()
    d_loss = _bce(D(real), 1.0) + _bce(D(fake.detach()), 0.0)
    d_loss.backward()
    opt_d.step()
    opt_g.zero_grad()
    g_loss = _bce(D(fake), 1.0)
    g_loss.backward()
    opt_g.step()
    return d_loss.item(), g_loss.item()
