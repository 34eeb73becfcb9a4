"""Hidden checks for 25_weight_init.

Models are built from torch's own layers inside probes (the candidate never supplies a class), the
candidate's `init_weights_` runs on them, and the parameters come back read from torch's registries
(`probes.named_parameters`); statistics are computed in the judge.
"""
import math

import pytest
import torch
from torch import nn

from grader import probes
from grader.testing import assert_close, check, requires_cuda

SCHEMES = ["xavier", "kaiming", "gpt2"]


def _big():
    """Layers large enough for a standard deviation to within 1 % (the check allows 5 %)."""
    return nn.ModuleDict({
        "linear": nn.Linear(512, 1024),          # weight 1024 x 512: fan_in 512, fan_out 1024
        "conv2d": nn.Conv2d(64, 128, 3),         # fan_in 576, fan_out 1152
        "conv1d": nn.Conv1d(32, 64, 5),          # fan_in 160, fan_out 320
        "embedding": nn.Embedding(1000, 64, padding_idx=3),
    })


def _small():
    """Every layer kind of the contract, nested, with and without biases and padding rows."""
    return nn.ModuleDict({
        "emb": nn.Embedding(30, 16, padding_idx=0),
        "emb_pad5": nn.Embedding(20, 16, padding_idx=5),
        "emb_nopad": nn.Embedding(20, 16),
        "conv1": nn.Conv1d(16, 8, 3),
        "conv2": nn.Conv2d(4, 8, 3),
        "conv3": nn.Conv3d(2, 4, 3),
        "bn1": nn.BatchNorm1d(8), "bn2": nn.BatchNorm2d(8), "bn3": nn.BatchNorm3d(4),
        "ln": nn.LayerNorm(16), "ln_nobias": nn.LayerNorm(16, bias=False), "gn": nn.GroupNorm(2, 8),
        "block": nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Sequential(nn.Linear(32, 8, bias=False))),
    })


def _init(mod, build, scheme, perturb=False):
    """Probe: build a model, optionally set every bias and norm weight to a non-default value,
    run the candidate's init and return (result is model, registered parameters)."""
    model = build()
    if perturb:
        with torch.no_grad():
            for name, p in probes.named_parameters(model).items():
                if name.endswith("bias") or name.split(".")[0] in ("bn1", "bn2", "bn3", "ln", "ln_nobias", "gn"):
                    p.uniform_(0.5, 1.5)
    returned = mod.init_weights_(model, scheme)
    params = {n: p.detach().clone() for n, p in probes.named_parameters(model).items()}
    return returned is model, params


def _fans(w):
    receptive = w[0][0].numel()
    return w.shape[1] * receptive, w.shape[0] * receptive


def _weights(sub, build, scheme, perturb=False):
    same, params = sub.probe(_init, sub, build, scheme, perturb)
    assert same, f"init_weights_(model, {scheme!r}) must return the model it was given"
    return params


@check("value", weight=3)
@pytest.mark.parametrize("scheme", SCHEMES)
def test_weight_std(sub, scheme):
    params = _weights(sub, _big, scheme)
    for layer in ("linear", "conv2d", "conv1d"):
        w = params[f"{layer}.weight"].double()
        fan_in, fan_out = _fans(w)
        std = {"xavier": math.sqrt(2 / (fan_in + fan_out)), "kaiming": math.sqrt(2 / fan_in), "gpt2": 0.02}[scheme]
        seen = w.std().item()
        assert abs(seen - std) <= 0.05 * std, \
            f"{scheme}: {layer} weight {tuple(w.shape)} has std {seen:.4g}, expected {std:.4g} (within 5 %)"
        assert abs(w.mean().item()) <= 0.05 * std, f"{scheme}: {layer} weight has mean {w.mean().item():.3g}, expected 0"
        peak = w.abs().max().item() / std
        if scheme == "xavier":
            assert 0.95 * math.sqrt(3) <= peak <= math.sqrt(3) * (1 + 1e-5), \
                f"xavier: {layer} weight is not uniform on ±√(6/(fan_in+fan_out)) (max |w| = {peak:.3g} std)"
        else:
            assert peak > 2.5, f"{scheme}: {layer} weight is not normal (max |w| = {peak:.3g} std: uniform?)"
    emb = params["embedding.weight"].double()
    rows = torch.cat([emb[:3], emb[4:]])
    assert abs(rows.std().item() - 0.02) <= 0.001 and abs(rows.mean().item()) <= 0.001, \
        f"{scheme}: Embedding rows have mean {rows.mean().item():.3g} and std {rows.std().item():.4g}, expected N(0, 0.02)"
    assert rows.abs().max().item() > 2.5 * 0.02, f"{scheme}: Embedding rows are not normal"


@check("value", weight=2)
def test_biases_and_norms(sub):
    for scheme in SCHEMES:
        params = _weights(sub, _small, scheme, perturb=True)
        for name, p in params.items():
            norm = name.split(".")[0] in ("bn1", "bn2", "bn3", "ln", "ln_nobias", "gn")
            if name.endswith("bias"):
                assert torch.count_nonzero(p) == 0, f"{scheme}: {name} must be exactly 0 after init"
            elif norm:
                assert torch.equal(p, torch.ones_like(p)), f"{scheme}: {name} (a norm layer's weight) must be exactly 1"
        for name in ("conv1.weight", "conv2.weight", "conv3.weight", "block.0.weight", "block.2.0.weight"):
            w = params[name]
            fan_in, fan_out = _fans(w)
            bound = {"xavier": math.sqrt(6 / (fan_in + fan_out)), "kaiming": 6 * math.sqrt(2 / fan_in), "gpt2": 0.12}[scheme]
            assert w.abs().max().item() <= bound and torch.count_nonzero(w) == w.numel(), \
                f"{scheme}: {name} does not look initialised by the scheme"


@check("value")
def test_padding_row_zero(sub):
    for scheme in SCHEMES:
        params = _weights(sub, _small, scheme)
        for name, pad in (("emb.weight", 0), ("emb_pad5.weight", 5), ("emb_nopad.weight", None)):
            w = params[name]
            others = torch.cat([w[:pad], w[pad + 1:]]) if pad is not None else w
            if pad is not None:
                assert torch.count_nonzero(w[pad]) == 0, f"{scheme}: {name} row padding_idx={pad} must stay exactly 0"
            assert bool((others.abs().sum(-1) > 0).all()) and others.abs().max().item() < 0.2, \
                f"{scheme}: the other rows of {name} must be drawn from N(0, 0.02)"


@check("value", weight=2)
def test_default_linear_bound(sub):
    for fan_in in (256, 7, 1000):
        b = sub.default_linear_bound(fan_in)
        assert isinstance(b, float), f"default_linear_bound({fan_in}) must return a float, got {type(b).__name__}"
        # a Python float at assert_close's documented defaults (rel 1e-6, abs 1e-8): a bound computed
        # through float32 (torch.rsqrt of a tensor) is the same bound
        assert_close(b, 1 / math.sqrt(fan_in),
                     what=f"default_linear_bound({fan_in}) (the bound of nn.Linear's default init, 1/sqrt(fan_in))")
        top = nn.Linear(fan_in, 4096).weight.abs().max().item()
        assert 0.99 * b < top <= b * (1 + 1e-6), f"nn.Linear({fan_in}, 4096) weights reach {top:.6g}, not ~{b:.6g}"


@check("grad", weight=2)
def test_parameters_kept(sub):
    def kept(mod, build):
        from torch import nn

        model = build()
        before = probes.named_parameters(model)
        optimizer = torch.optim.SGD(nn.Module.parameters(model), lr=0.1)
        old = {n: p.detach().clone() for n, p in before.items()}
        mod.init_weights_(model, "gpt2")
        after = probes.named_parameters(model)
        in_optimizer = {id(p) for group in optimizer.param_groups for p in group["params"]}
        return {
            "names": sorted(before) == sorted(after), "count": len(before),
            "same": [n for n in before if after.get(n) is before[n]],
            "parameter": [n for n, p in after.items() if isinstance(p, nn.Parameter)],
            "leaf": [n for n, p in after.items() if p.grad_fn is None and p.is_leaf],
            "requires_grad": [n for n, p in after.items() if p.requires_grad],
            "optimizer": [n for n, p in after.items() if id(p) in in_optimizer],
            "changed": [n for n, p in after.items() if not torch.equal(p.detach(), old[n])],
            "weight": after["block.0.weight"].detach().clone(),
        }

    seen = sub.probe(kept, sub, _small)
    names = sorted(seen["same"])
    assert seen["names"] and len(names) == seen["count"], \
        f"init must keep every parameter object: only {names} are the same objects after init"
    for key, what in (("parameter", "nn.Parameter"), ("leaf", "a leaf with grad_fn None"),
                      ("requires_grad", "requires_grad=True"), ("optimizer", "in the optimizer built before init")):
        missing = sorted(set(names) - set(seen[key]))
        assert not missing, f"after init {missing[:4]} are no longer {what}: initialise in place under torch.no_grad"
    assert "block.0.weight" in seen["changed"] and abs(seen["weight"].std().item() - 0.02) < 0.005, \
        "init_weights_(model, 'gpt2') did not initialise the Linear weights in place"


@check("value")
def test_seeded_determinism(sub):
    def twice(mod, build):
        models = [build() for _ in range(3)]  # built before seeding: different default values
        for model, seed in zip(models, (5, 5, 6)):
            torch.manual_seed(seed)
            mod.init_weights_(model, "gpt2")
        return [{n: p.detach().clone() for n, p in probes.named_parameters(m).items()} for m in models]

    a, b, c = sub.probe(twice, sub, _small)
    for name in a:
        assert torch.equal(a[name], b[name]), f"{name} differs between two inits after torch.manual_seed(5): use torch's RNG"
    assert not torch.equal(a["block.0.weight"], c["block.0.weight"]), "torch.manual_seed(5) and (6) gave the same weights"


@check("device")
def test_meta_model(sub):
    def on_meta(mod, build):
        from torch import nn

        cpu = build()
        with torch.no_grad():
            nn.Module.get_submodule(cpu, "ln").weight.fill_(3.0)
        mod.init_weights_(cpu, "kaiming")
        model = nn.Module.to(build(), "meta")
        error = None
        try:
            returned = mod.init_weights_(model, "kaiming")
        except NotImplementedError:
            raise
        except Exception as exc:  # noqa: BLE001 - reported as data
            returned, error = None, f"{type(exc).__name__}: {exc}"[:300]
        return {"cpu_ln": nn.Module.get_submodule(cpu, "ln").weight.detach().clone(), "error": error,
                "same": returned is model,
                "devices": sorted({p.device.type for p in probes.named_parameters(model).values()})}

    seen = sub.probe(on_meta, sub, _small)
    assert torch.equal(seen["cpu_ln"], torch.ones(16)), "init_weights_ must set LayerNorm weights to 1"
    assert seen["error"] is None, f"init_weights_ failed on a meta model: {seen['error']}"
    assert seen["same"] and seen["devices"] == ["meta"], f"after init a meta model's parameters are on {seen['devices']}"


@requires_cuda
@check("device")
def test_cuda_model(sub):
    def on_cuda(mod, build):
        from torch import nn

        model = nn.Module.cuda(build())
        mod.init_weights_(model, "xavier")
        params = probes.named_parameters(model)
        return sorted({p.device.type for p in params.values()}), params["ln.weight"].detach().cpu()

    devices, ln = sub.probe(on_cuda, sub, _small)
    assert devices == ["cuda"], f"after init a CUDA model's parameters are on {devices}"
    assert torch.equal(ln, torch.ones(16)), "init_weights_ must set LayerNorm weights to 1"
