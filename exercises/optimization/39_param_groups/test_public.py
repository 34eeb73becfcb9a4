"""Public checks for 39_param_groups: run them with `grader check 39`.

The model is built inside a probe (a function that runs next to your code), so that the groups
hold its real parameters; the probe sends back which parameter landed where.
"""
from torch import nn

from grader.testing import check


class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 3)
        self.norm = nn.LayerNorm(3)
        self.out = nn.Linear(3, 1)


def _describe(mod, overrides):
    from torch import nn

    model = Small()
    names = {id(p): n for n, p in nn.Module.named_parameters(model)}
    groups = mod.build_param_groups(model, 0.1, 0.01, overrides)
    return sorted((names[id(p)], g["lr"], g["weight_decay"]) for g in groups for p in g["params"])


@check("value")
def test_decay_split(sub):
    seen = sub.probe(_describe, sub, None)
    assert seen == [("body.bias", 0.1, 0.0), ("body.weight", 0.1, 0.01), ("norm.bias", 0.1, 0.0),
                    ("norm.weight", 0.1, 0.0), ("out.bias", 0.1, 0.0), ("out.weight", 0.1, 0.01)], seen


@check("value")
def test_lr_override(sub):
    seen = sub.probe(_describe, sub, {"out": 1.0})
    lrs = {name: lr for name, lr, _ in seen}
    assert lrs == {"body.bias": 0.1, "body.weight": 0.1, "norm.bias": 0.1, "norm.weight": 0.1,
                   "out.bias": 1.0, "out.weight": 1.0}, lrs
