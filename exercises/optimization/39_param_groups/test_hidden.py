"""Hidden checks for 39_param_groups.

The model is built in the worker (its parameters must be the very objects the groups hold), the
candidate's groups are matched to parameter names by identity with torch's registries
(`probes.named_parameters`, plus every tied alias), and the effective lr and weight decay of each
parameter are read from a `torch.optim.AdamW` built over the groups: a group that leaves out 'lr'
or 'weight_decay' gets AdamW's defaults, which is what a training run would use.
"""
import pytest
import torch
from torch import nn

from grader.testing import check

OVERRIDES = {"backbone": 1e-4, "backbone.layer1": 1e-5, "head": 1e-3}
BASE_LR, WD = 3e-4, 0.05


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 4, 3)
        self.layer1 = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
        self.layer10 = nn.Linear(4, 4)                 # "backbone.layer1" is a string prefix, not a module prefix
        self.norm = nn.GroupNorm(2, 4)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = Backbone()
        self.embed = nn.Embedding(10, 4)
        self.proj = nn.LayerNorm(4)                     # a norm layer with a name that does not say so
        self.head = nn.Linear(4, 2)
        self.header = nn.Linear(4, 4, bias=False)       # "head" is a string prefix, not a module prefix
        self.scale = nn.Parameter(torch.ones(4))        # 1-D, but neither a bias nor a norm parameter
        self.decoder = nn.Linear(4, 10)
        self.decoder.weight = self.embed.weight         # tied: one parameter, two names (its bias is its own)
        self.frozen = nn.Linear(4, 4)
        for p in self.frozen.parameters():
            p.requires_grad_(False)
        self.partial = nn.Linear(4, 4)                  # weight frozen, bias trainable
        self.partial.weight.requires_grad_(False)


# name -> (weight decay, lr with OVERRIDES) for every trainable parameter, under its first name
EXPECTED = {
    "backbone.stem.weight": (WD, 1e-4), "backbone.stem.bias": (0.0, 1e-4),
    "backbone.layer1.0.weight": (WD, 1e-5), "backbone.layer1.0.bias": (0.0, 1e-5),
    "backbone.layer1.1.weight": (0.0, 1e-5), "backbone.layer1.1.bias": (0.0, 1e-5),
    "backbone.layer10.weight": (WD, 1e-4), "backbone.layer10.bias": (0.0, 1e-4),
    "backbone.norm.weight": (0.0, 1e-4), "backbone.norm.bias": (0.0, 1e-4),
    "embed.weight": (WD, BASE_LR), "proj.weight": (0.0, BASE_LR), "proj.bias": (0.0, BASE_LR),
    "head.weight": (WD, 1e-3), "head.bias": (0.0, 1e-3), "header.weight": (WD, BASE_LR),
    "scale": (WD, BASE_LR), "decoder.bias": (0.0, BASE_LR), "partial.bias": (0.0, BASE_LR),
}

# Overrides that produce the contract's edge cases: a module with only no-decay parameters (a
# BatchNorm), one whose parameters are all frozen, one without a bias. Groups pre-built per
# (override, decay) pair come out empty here; with OVERRIDES every such pair has a parameter.
EDGE_OVERRIDES = {"backbone": 1e-4, "backbone.layer1.1": 2e-5, "frozen": 5e-5, "header": 7e-4}
EDGE_LR = {
    "backbone.stem.weight": 1e-4, "backbone.stem.bias": 1e-4,
    "backbone.layer1.0.weight": 1e-4, "backbone.layer1.0.bias": 1e-4,
    "backbone.layer1.1.weight": 2e-5, "backbone.layer1.1.bias": 2e-5,
    "backbone.layer10.weight": 1e-4, "backbone.layer10.bias": 1e-4,
    "backbone.norm.weight": 1e-4, "backbone.norm.bias": 1e-4,
    "embed.weight": BASE_LR, "proj.weight": BASE_LR, "proj.bias": BASE_LR,
    "head.weight": BASE_LR, "head.bias": BASE_LR, "header.weight": 7e-4,
    "scale": BASE_LR, "decoder.bias": BASE_LR, "partial.bias": BASE_LR,
}
OVERRIDE_CASES = {"overrides": OVERRIDES, "none": None, "edge": EDGE_OVERRIDES}


def _groups(mod, model_cls, base_lr, wd, overrides, step=False):
    """Probe: the candidate's groups, described by parameter name, and AdamW's view of them."""
    from torch import nn

    from grader import probes

    model = model_cls()
    names = {}
    for module_name, m in probes.modules(model):
        for key, p in object.__getattribute__(m, "_parameters").items():
            if p is not None:
                names.setdefault(id(p), f"{module_name}.{key}" if module_name else key)
    groups = mod.build_param_groups(model, base_lr, wd, overrides)
    seen = {"type": type(groups).__name__, "groups": [], "adamw": None, "error": None}
    if not isinstance(groups, list):
        return seen
    for g in groups:
        if not isinstance(g, dict):
            seen["groups"].append({"type": type(g).__name__})
            continue
        params = g.get("params")
        entry = {"type": "dict", "params_type": type(params).__name__,
                 "lr": g.get("lr"), "weight_decay": g.get("weight_decay")}
        if isinstance(params, list):
            entry["names"] = [names.get(id(p), "<not a parameter of the model>") for p in params]
        seen["groups"].append(entry)
    try:
        with probes.capture_warnings() as warned:
            opt = torch.optim.AdamW(groups)
    except Exception as exc:  # noqa: BLE001 - reported as data; the check decides
        seen["error"] = f"{type(exc).__name__}: {exc}"[:300]
        return seen
    held = object.__getattribute__(opt, "__dict__")["param_groups"]
    effective = {}
    for g in held:
        for p in g["params"]:
            effective.setdefault(names.get(id(p), "<not a parameter of the model>"), []).append(
                (float(g["weight_decay"]), float(g["lr"])))
    seen["adamw"] = effective
    seen["warnings"] = warned.as_data()
    if step:
        params = dict(probes.named_parameters(model))
        before = {n: p.detach().clone() for n, p in params.items()}
        for g in held:
            for p in g["params"]:
                p.grad = torch.zeros_like(p)
        opt.step()
        seen["before"], seen["after"] = before, {n: p.detach().clone() for n, p in params.items()}
    return seen


def _effective(seen):
    """name -> (wd, lr) from AdamW, after the structural checks every value check needs."""
    assert seen["type"] == "list", f"build_param_groups returned a {seen['type']}, expected a list of dicts"
    assert seen["groups"], "build_param_groups returned no groups"
    assert seen["error"] is None, f"torch.optim.AdamW(groups) failed: {seen['error']}"
    effective = seen["adamw"]
    missing = sorted(set(EXPECTED) - set(effective))
    assert not missing, f"trainable parameters missing from the groups: {missing}"
    return effective


@check("state", weight=2)
def test_every_trainable_param_once(sub):
    seen = sub.probe(_groups, sub, Net, BASE_LR, WD, OVERRIDES)
    effective = _effective(seen)
    twice = sorted(n for n, where in effective.items() if len(where) > 1)
    assert not twice, f"parameters in more than one group: {twice}"
    frozen = sorted(n for n in effective if n.startswith("frozen.") or n == "partial.weight")
    assert not frozen, f"frozen parameters (requires_grad=False) in the groups: {frozen}"
    extra = sorted(set(effective) - set(EXPECTED))
    assert not extra, f"the groups hold tensors that are not trainable parameters of the model: {extra}"
    assert len(effective) == len(EXPECTED)


@check("value", weight=2)
def test_no_decay_for_biases_and_norms(sub):
    effective = _effective(sub.probe(_groups, sub, Net, BASE_LR, WD, OVERRIDES))
    wrong = {n: effective[n][0][0] for n, (wd, _) in EXPECTED.items() if effective[n][0][0] != wd}
    assert not wrong, (f"weight decay is wrong for {sorted(wrong)}: biases and every parameter of a LayerNorm/"
                       f"BatchNorm/GroupNorm layer (whatever its name) get 0, every other parameter {WD}")


@check("value", weight=2)
@pytest.mark.parametrize("case", list(OVERRIDE_CASES))
def test_longest_prefix_lr(sub, case):
    overrides = OVERRIDE_CASES[case]
    effective = _effective(sub.probe(_groups, sub, Net, BASE_LR, WD, overrides))
    want = {"overrides": {n: lr for n, (_, lr) in EXPECTED.items()}, "none": dict.fromkeys(EXPECTED, BASE_LR),
            "edge": EDGE_LR}[case]
    wrong = {n: effective[n][0][1] for n, lr in want.items() if effective[n][0][1] != lr}
    assert not wrong, (f"lr is wrong for {sorted(wrong)} with lr_overrides={overrides}: a parameter takes the lr of "
                       f"the longest module prefix (whole dotted names) that matches, otherwise base_lr")


@check("state")
@pytest.mark.parametrize("case", list(OVERRIDE_CASES))
def test_groups_are_plain_lists(sub, case):
    overrides = OVERRIDE_CASES[case]
    seen = sub.probe(_groups, sub, Net, BASE_LR, WD, overrides)
    _effective(seen)
    for i, g in enumerate(seen["groups"]):
        assert g["type"] == "dict", f"group {i} is a {g['type']}, expected a dict"
        assert g["params_type"] == "list", f"group {i}'s 'params' is a {g['params_type']}, expected a list"
        assert g["names"], f"group {i} is empty with lr_overrides={overrides}: leave empty groups out"


@check("state")
def test_adamw_accepts_groups(sub):
    """Tied weights: one parameter under two names must not enter two groups (AdamW raises) nor one
    group twice (AdamW warns about duplicate parameters)."""
    seen = sub.probe(_groups, sub, Net, BASE_LR, WD, OVERRIDES)
    assert seen["type"] == "list" and seen["groups"], f"build_param_groups returned {seen['type']}"
    assert seen["error"] is None, f"torch.optim.AdamW(groups) failed: {seen['error']}"
    warned = seen["warnings"]
    assert not warned["tampered"], f"the warnings module was changed while AdamW was built: {warned['tampered']}"
    messages = [r["message"] for r in warned["records"]]
    assert not messages, f"torch.optim.AdamW(groups) warned: {messages[0][:200]}"
    assert set(seen["adamw"]) == set(EXPECTED), "AdamW(groups) does not hold exactly the trainable parameters"


@check("value", weight=2)
def test_zero_grad_step_shrinks_decayed_only(sub):
    seen = sub.probe(_groups, sub, Net, BASE_LR, WD, OVERRIDES, True)
    _effective(seen)
    before, after = seen["before"], seen["after"]
    for name, (wd, lr) in EXPECTED.items():
        if wd:
            want = before[name] * (1 - lr * wd)
            assert torch.allclose(after[name], want, atol=0, rtol=1e-6) and not torch.equal(after[name], before[name]), \
                f"{name} should shrink by exactly (1 - lr * wd) in one AdamW step with zero grads"
        else:
            assert torch.equal(after[name], before[name]), \
                f"{name} changed in an AdamW step with zero grads: it must not be weight-decayed"
    for name in ("frozen.weight", "frozen.bias", "partial.weight"):
        assert torch.equal(after[name], before[name]), f"the frozen {name} changed"
