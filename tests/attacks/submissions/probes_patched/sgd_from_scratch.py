"""An optimizer that never steps, and a patched `grader.probes.train_steps` that quietly runs
torch's own SGD instead: probes that import the worker's copy of `grader.probes` would record
torch's trajectory as the candidate's."""
import torch

import grader.probes as _probes
from grader.probes import optimizers as _optimizers


class MomentumSGD(torch.optim.Optimizer):
    def __init__(self, params, lr, momentum=0.0, weight_decay=0.0, nesterov=False):
        super().__init__(params, {"lr": lr, "momentum": momentum, "weight_decay": weight_decay, "nesterov": nesterov})

    @torch.no_grad()
    def step(self, closure=None):
        return None


_real = _optimizers.train_steps


def _forged(opt, params, loss_fn, steps, **kwargs):
    groups = [dict(group) for group in opt.param_groups]
    return _real(torch.optim.SGD(groups, lr=groups[0]["lr"]), params, loss_fn, steps, **kwargs)


_probes.train_steps = _optimizers.train_steps = _forged
