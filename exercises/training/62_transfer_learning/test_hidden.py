"""Hidden checks for 62_transfer_learning.

The "pretrained" backbones are small modules defined here (a conv net with three BatchNorm2d layers
and an MLP with a BatchNorm1d), loaded from a state dict the judge generates: nothing is
downloaded, and torchvision is used only by one optional check. Models are built inside probes;
the probes read torch's registries directly (`grader.probes`: named parameters, modules, an
optimizer's own `param_groups`) and return plain data. Expected trajectories come from the judge's
own AdamW loop over the same starting values.
"""
import ast

import pytest
import torch
import torch.nn.functional as F

from grader.testing import check, requires_cuda


class Tiny(torch.nn.Module):
    """stem, layer1, layer2 (conv + BatchNorm2d + ReLU each), global average pool, head `classifier`."""

    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.stem = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.BatchNorm2d(6), nn.ReLU())
        self.layer1 = nn.Sequential(nn.Conv2d(6, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.layer2 = nn.Sequential(nn.Conv2d(8, 12, 3, padding=1, bias=False), nn.BatchNorm2d(12), nn.ReLU())
        self.classifier = nn.Linear(12, 10)

    def forward(self, x):
        return self.classifier(self.layer2(self.layer1(self.stem(x))).mean(dim=(2, 3)))


class Mlp(torch.nn.Module):
    """body (Linear + BatchNorm1d + ReLU), head `fc` (20 -> 7)."""

    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.body = nn.Sequential(nn.Linear(5, 20), nn.BatchNorm1d(20), nn.ReLU())
        self.fc = nn.Linear(20, 7)

    def forward(self, x):
        return self.fc(self.body(x))


MODELS = {"tiny": Tiny, "mlp": Mlp}


def _pretrained(kind, seed=0):
    """A 'pretrained' state: random weights and non-trivial BatchNorm running statistics."""
    g = torch.Generator().manual_seed(seed)
    state = {}
    for name, t in MODELS[kind]().state_dict().items():
        if name.endswith("running_var"):
            state[name] = torch.rand(t.shape, generator=g) + 0.5
        elif name.endswith("num_batches_tracked"):
            state[name] = torch.tensor(1000)
        else:
            state[name] = torch.randn(t.shape, generator=g) * 0.3
    return state


def _data(kind, classes, seed=1):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(6, 3, 5, 5, generator=g) if kind == "tiny" else torch.randn(6, 5, generator=g)
    return x, torch.randint(0, classes, (6,), generator=g)


def _build(kind, state, dtype=torch.float32, device="cpu"):
    """Runs in the worker or the judge."""
    from grader import probes

    model = MODELS[kind]()
    probes.load_state_dict(model, state)
    return torch.nn.Module.to(model, device=device, dtype=dtype)


def _prepare(mod, kind, state, head, classes, prefixes, dtype, device, backward):
    """Runs in the worker: prepare_for_finetuning on a 'pretrained' model, what it left behind."""
    import torch
    import torch.nn.functional as F

    from grader import probes

    model = _build(kind, state, dtype, device)
    got = mod.prepare_for_finetuning(model, head, classes, prefixes)
    params = probes.named_parameters(model)
    mods = object.__getattribute__(model, "__dict__")["_modules"]
    new = mods.get(head)
    out = {"same": got is model, "linear": isinstance(new, torch.nn.Linear),
           "requires_grad": {n: bool(p.requires_grad) for n, p in params.items()},
           "shapes": {n: tuple(p.shape) for n, p in params.items()},
           "dtypes": sorted({str(p.dtype) for n, p in params.items() if n.startswith(head + ".")}),
           "devices": sorted({p.device.type for n, p in params.items() if n.startswith(head + ".")}),
           "values": {n: p.detach().clone() for n, p in params.items()
                      if not n.startswith(head + ".") and p.device.type != "meta"},
           "grads": None, "out": None}
    if backward:
        x, y = _data(kind, classes)
        loss = F.cross_entropy(model(x.to(device=device, dtype=dtype)), y.to(device))
        loss.backward()
        out["grads"] = {n: p.grad is not None for n, p in params.items()}
        out["out"] = str(model(x.to(device=device, dtype=dtype)).dtype)
    return out


def _expect_trainable(kind, head, prefixes):
    names = MODELS[kind]().state_dict(keep_vars=True)
    return {n: n.startswith(head + ".") or any(n.startswith(p + ".") for p in prefixes)
            for n, t in names.items() if isinstance(t, torch.nn.Parameter)}


PREPARE_CASES = [("tiny", "classifier", 4, ("layer2",)), ("tiny", "classifier", 3, ("stem.1", "layer1")),
                 ("mlp", "fc", 2, ())]


@check("state", weight=2)
@pytest.mark.parametrize("kind,head,classes,prefixes", PREPARE_CASES, ids=["tiny-layer2", "tiny-stem_bn-layer1", "mlp-head-only"])
def test_trainable_params(sub, kind, head, classes, prefixes):
    state = _pretrained(kind)
    seen = sub.probe(_prepare, sub, kind, state, head, classes, prefixes, torch.float32, "cpu", False)
    what = f"prepare_for_finetuning({kind} model, {head!r}, {classes}, {prefixes})"
    assert seen["same"], f"{what} did not return the model it was given (it modifies the model in place and returns it)"
    assert seen["linear"], f"{what}: model.{head} is not an nn.Linear"
    inf = state[f"{head}.weight"].shape[1]
    assert seen["shapes"].get(f"{head}.weight") == (classes, inf), (
        f"{what}: the new head's weight has shape {seen['shapes'].get(f'{head}.weight')}, expected {(classes, inf)} "
        "(num_classes x the old head's in_features)")
    assert seen["shapes"].get(f"{head}.bias") == (classes,), f"{what}: the new head has no bias of shape ({classes},)"
    want = _expect_trainable(kind, head, prefixes)
    wrong = sorted(n for n in want if seen["requires_grad"].get(n) != want[n])
    assert not wrong and set(seen["requires_grad"]) == set(want), (
        f"{what}: requires_grad is wrong for {wrong}; only the head and the params under {prefixes} are trainable")
    for n, v in seen["values"].items():
        assert torch.equal(v, state[n]), f"{what} changed the pretrained value of {n}"


def _finetune(mod, kind, state, head, classes, prefixes, x, y, head_lr, backbone_lr, steps):
    """Runs in the worker: prepare, optimizer, train mode, `steps` AdamW steps."""
    import torch
    import torch.nn.functional as F

    from grader import probes

    model = _build(kind, state)
    torch.nn.Module.eval(model)
    mod.prepare_for_finetuning(model, head, classes, prefixes)
    params = probes.named_parameters(model)
    start = {n: t.detach().clone() for n, t in probes.state_dict(model).items()}
    opt = mod.finetune_optimizer(model, head, head_lr, backbone_lr)
    mod.set_finetune_mode(model)
    names = list(params)
    seen = probes.train_steps(opt, [params[n] for n in names], lambda: F.cross_entropy(model(x), y), steps)
    return {"names": names, "start": start, "params": seen["params"], "losses": seen["losses"],
            "buffers": {n: t.detach().clone() for n, t in probes.state_dict(model).items() if n not in params}}


def _reference_run(kind, start, head, classes, prefixes, x, y, head_lr, backbone_lr, steps):
    model = MODELS[kind]()
    setattr(model, head, torch.nn.Linear(getattr(model, head).in_features, classes))
    model.load_state_dict(start)
    trainable = _expect_trainable(kind, head, prefixes)
    for n, p in model.named_parameters():
        p.requires_grad_(trainable[n])
    model.train()
    for m in model.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and not any(p.requires_grad for p in m.parameters()):
            m.eval()
    named = dict(model.named_parameters())
    groups = [{"params": [p for n, p in named.items() if n.startswith(head + ".")], "lr": head_lr},
              {"params": [p for n, p in named.items() if p.requires_grad and not n.startswith(head + ".")],
               "lr": backbone_lr}]
    opt = torch.optim.AdamW(groups)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
        out.append({n: p.detach().clone() for n, p in named.items()})
    return out, {n: b.detach().clone() for n, b in model.named_buffers()}


@check("value", weight=2)
@pytest.mark.parametrize("kind,head,classes,prefixes", [PREPARE_CASES[0], PREPARE_CASES[2]], ids=["tiny-layer2", "mlp-head-only"])
def test_three_steps(sub, kind, head, classes, prefixes):
    state = _pretrained(kind, 3)
    x, y = _data(kind, classes, 4)
    seen = sub.probe(_finetune, sub, kind, state, head, classes, prefixes, x, y, 1e-2, 1e-3, 3)
    what = (f"prepare_for_finetuning({kind} model, {head!r}, {classes}, {prefixes}), finetune_optimizer(model, {head!r}, "
            "head_lr=1e-2, backbone_lr=1e-3), set_finetune_mode(model), then 3 AdamW steps")
    want, _ = _reference_run(kind, seen["start"], head, classes, prefixes, x, y, 1e-2, 1e-3, 3)
    trainable = _expect_trainable(kind, head, prefixes)
    for i, n in enumerate(seen["names"]):
        got = seen["params"][2][i]
        if not trainable.get(n, False):
            assert torch.equal(got, state[n]), f"{what}: the frozen parameter {n} changed"
    for i, n in enumerate(seen["names"]):
        if n.startswith(head + "."):
            assert not torch.equal(seen["params"][2][i], seen["start"][n]), f"{what}: the head parameter {n} did not change"
    for step in range(3):
        for i, n in enumerate(seen["names"]):
            w = want[step].get(n)
            assert w is not None and seen["params"][step][i].shape == w.shape and torch.allclose(
                seen["params"][step][i], w, atol=1e-6, rtol=1e-5), (
                f"{what}: {n} after step {step + 1} differs from AdamW (defaults) with the head at head_lr and the other "
                "trainable parameters at backbone_lr, in train mode with the frozen BatchNorm layers in eval mode")


def _modes(mod, kind, state, trainable, start_eval, steps):
    """Runs in the worker: the judge freezes the model, set_finetune_mode, then judge-made SGD steps."""
    import torch

    from grader import probes

    model = _build(kind, state)
    torch.nn.Module.train(model, not start_eval)
    params = probes.named_parameters(model)
    for n, p in params.items():
        p.requires_grad_(n in trainable)
    mod.set_finetune_mode(model)
    flags = {n: m.training for n, m in probes.modules(model)}
    opt = torch.optim.SGD([p for n, p in params.items() if n in trainable], lr=0.1)
    g = torch.Generator().manual_seed(7)
    for _ in range(steps):
        x = torch.randn(6, 3, 5, 5, generator=g) if kind == "tiny" else torch.randn(6, 5, generator=g)
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
    return {"flags": flags, "buffers": {n: t.detach().clone() for n, t in probes.state_dict(model).items()
                                        if n not in params}}


MODE_CASES = [
    ("tiny", ("layer2.0.weight", "layer2.1.weight", "layer2.1.bias", "classifier.weight", "classifier.bias"), True,
     {"stem.1", "layer1.1"}),
    ("tiny", ("stem.1.bias", "classifier.weight", "classifier.bias"), False, {"layer1.1", "layer2.1"}),
    ("mlp", ("fc.weight", "fc.bias"), True, {"body.1"}),
]


@check("mode", weight=2)
@pytest.mark.parametrize("kind,trainable,start_eval,frozen_bn", MODE_CASES,
                         ids=["tiny-layer2-from-eval", "tiny-half-frozen-bn-from-train", "mlp-from-eval"])
def test_frozen_batchnorm_stats(sub, kind, trainable, start_eval, frozen_bn):
    state = _pretrained(kind, 5)
    seen = sub.probe(_modes, sub, kind, state, set(trainable), start_eval, 3)
    what = (f"set_finetune_mode on a {kind} model (in {'eval' if start_eval else 'train'} mode) where only "
            f"{list(trainable)} require grad, then 3 training steps")
    for name, flag in seen["flags"].items():
        want = name not in frozen_bn
        assert flag is want, (f"{what}: module {name or '(the model)'} has training={flag}, expected {want} "
                              "(train mode everywhere except the BatchNorm layers whose parameters are all frozen)")
    for name, t in seen["buffers"].items():
        owner = name.rsplit(".", 1)[0]
        if owner in frozen_bn:
            assert torch.equal(t, state[name]), f"{what}: the frozen BatchNorm buffer {name} changed"
        else:
            assert not torch.equal(t, state[name]), f"{what}: the trainable BatchNorm buffer {name} did not update"


def _groups(mod, kind, state, head, classes, trainable, head_lr, backbone_lr):
    """Runs in the worker: the judge replaces the head and freezes; finetune_optimizer's own param_groups."""
    import torch

    from grader import probes

    model = _build(kind, state)
    torch.nn.Module.__setattr__(model, head, torch.nn.Linear(state[f"{head}.weight"].shape[1], classes))
    params = probes.named_parameters(model)
    for n, p in params.items():
        p.requires_grad_(n in trainable)
    opt = mod.finetune_optimizer(model, head, head_lr, backbone_lr)
    if not isinstance(opt, torch.optim.AdamW):
        return {"type": type(opt).__name__}
    name_of = {id(p): n for n, p in params.items()}
    groups = object.__getattribute__(opt, "__dict__")["param_groups"]
    return {"type": "AdamW", "groups": [{"lr": float(g["lr"]), "names": [name_of.get(id(p), "?") for p in g["params"]],
                                         "weight_decay": float(g["weight_decay"])} for g in groups]}


GROUP_CASES = [("tiny", "classifier", 4, {"layer2.0.weight", "layer2.1.weight", "layer2.1.bias", "classifier.weight",
                                         "classifier.bias"}),
               ("tiny", "classifier", 5, {"stem.0.bias", "classifier.weight", "classifier.bias"}),
               ("mlp", "fc", 3, {"fc.weight", "fc.bias"})]


@check("state", weight=2)
@pytest.mark.parametrize("kind,head,classes,trainable", GROUP_CASES, ids=["tiny-layer2", "tiny-one-bias", "mlp-head-only"])
def test_param_groups(sub, kind, head, classes, trainable):
    seen = sub.probe(_groups, sub, kind, _pretrained(kind), head, classes, trainable, 3e-3, 2e-4)
    what = f"finetune_optimizer(model, {head!r}, head_lr=3e-3, backbone_lr=2e-4) where only {sorted(trainable)} require grad"
    assert seen["type"] == "AdamW", f"{what} returned a {seen['type']}, expected a torch.optim.AdamW"
    listed = [n for g in seen["groups"] for n in g["names"]]
    assert sorted(listed) == sorted(trainable), (
        f"{what}: the param groups hold {sorted(listed)}, expected each trainable parameter exactly once and no frozen one")
    for g in seen["groups"]:
        for n in g["names"]:
            want = 3e-3 if n.startswith(head + ".") else 2e-4
            assert g["lr"] == want, f"{what}: {n} is in a group with lr {g['lr']}, expected {want}"
        assert g["weight_decay"] == 0.01, f"{what}: a group has weight_decay {g['weight_decay']}, expected AdamW's default 0.01"


@check("grad")
def test_frozen_grads_none(sub):
    kind, head, classes, prefixes = PREPARE_CASES[1]
    seen = sub.probe(_prepare, sub, kind, _pretrained(kind, 2), head, classes, prefixes, torch.float32, "cpu", True)
    what = f"after prepare_for_finetuning(tiny model, {head!r}, {classes}, {prefixes}) and one backward"
    want = _expect_trainable(kind, head, prefixes)
    assert seen["grads"] is not None and set(seen["grads"]) == set(want), f"{what}: the parameters are not the expected ones"
    for n, trainable in want.items():
        assert seen["grads"][n] is trainable, (
            f"{what}: {n}.grad is {'None' if not seen['grads'][n] else 'set'}, expected "
            f"{'a gradient' if trainable else 'None (frozen)'}")


@check("dtype")
def test_float64_head(sub):
    seen = sub.probe(_prepare, sub, "mlp", _pretrained("mlp", 6), "fc", 3, ("body.0",), torch.float64, "cpu", True)
    what = "prepare_for_finetuning(float64 mlp, 'fc', 3, ('body.0',))"
    assert seen["shapes"].get("fc.weight") == (3, 20), f"{what}: the new head's weight has shape {seen['shapes'].get('fc.weight')}, expected (3, 20)"
    assert seen["dtypes"] == ["torch.float64"], f"{what}: the new head's parameters are {seen['dtypes']}, expected float64"
    assert seen["out"] == "torch.float64", f"{what}: the model's output is {seen['out']}, expected float64"


@check("device")
def test_head_on_model_device_meta(sub):
    seen = sub.probe(_prepare, sub, "tiny", _pretrained("tiny", 7), "classifier", 6, (), torch.float32, "meta", False)
    what = "prepare_for_finetuning(model on the meta device, 'classifier', 6) (CPU stand-in for a model on an accelerator)"
    assert seen["shapes"].get("classifier.weight") == (6, 12), f"{what}: the new head's weight has shape {seen['shapes'].get('classifier.weight')}, expected (6, 12)"
    assert seen["devices"] == ["meta"], f"{what}: the new head's parameters are on {seen['devices']}, expected the model's device (meta)"


@requires_cuda
@check("device")
def test_head_on_cuda(sub):
    seen = sub.probe(_prepare, sub, "tiny", _pretrained("tiny", 8), "classifier", 6, ("layer2",), torch.float32, "cuda", True)
    assert seen["devices"] == ["cuda"], f"prepare_for_finetuning(CUDA model): the new head is on {seen['devices']}, expected cuda"
    assert seen["shapes"].get("classifier.weight") == (6, 12)
    assert seen["grads"]["classifier.weight"] and not seen["grads"]["stem.0.weight"]


DOWNLOADS = ("torch.hub.load", "torch.hub.load_state_dict_from_url", "torch.utils.model_zoo.load_url",
             "torch.hub.download_url_to_file")
# Every download route at run time: torch.hub's functions (torchvision's weight enums load through
# load_state_dict_from_url) and the URL opener they end in. They are Python functions: the call
# watch sees them run whatever reference reached them (`getattr(torch.hub, "lo" + "ad")`, a kept one).
RUNTIME_DOWNLOADS = ("torch.hub.load", "torch.hub.list", "torch.hub.help", "torch.hub.load_state_dict_from_url",
                     "torch.hub.download_url_to_file", "urllib.request.urlopen", "urllib.request.urlretrieve")


def _downloads(mod, state, targets):
    """Probe: prepare_for_finetuning, finetune_optimizer and set_finetune_mode on a 'pretrained'
    model with every download route forbidden (and recorded, through any reference)."""
    from grader import probes

    with probes.forbid(*targets, module=mod) as seen:
        try:
            model = _build("mlp", state)
            mod.prepare_for_finetuning(model, "fc", 4, ())
            mod.finetune_optimizer(model, "fc", 1e-2, 1e-3)
            mod.set_finetune_mode(model)
        except NotImplementedError:
            raise
        except Exception:  # noqa: BLE001 - a refused download may end the run; the recorder decides
            pass
    return seen.names()


@check("api")
def test_no_pretrained_download(sub):
    sub.static.require_implemented("prepare_for_finetuning", "finetune_optimizer", "set_finetune_mode")
    seen = sub.probe(_prepare, sub, "mlp", _pretrained("mlp"), "fc", 4, (), torch.float32, "cpu", False)
    assert seen["shapes"].get("fc.weight") == (4, 20) and seen["requires_grad"]["fc.weight"] \
        and not seen["requires_grad"]["body.0.weight"], "prepare_for_finetuning does not replace and freeze as specified"
    # at run time (authoritative: a name built with getattr or a kept reference runs the same code)
    called = sub.probe(_downloads, sub, _pretrained("mlp"), RUNTIME_DOWNLOADS)
    assert not called, f"the grader is offline: the code tried to download ({', '.join(sorted(set(called)))})"
    # and in the source (a secondary reason: weight enums, pretrained=, a branch the run did not take)
    found = []
    for api in DOWNLOADS:
        found += [f"{api} (line {line})" for line in sub.static.uses(api)]
    for node in ast.walk(sub.static.tree):
        if isinstance(node, ast.keyword) and node.arg == "pretrained" and not (
                isinstance(node.value, ast.Constant) and node.value.value in (False, None)):
            found.append(f"pretrained= (line {node.value.lineno})")
        if isinstance(node, ast.Attribute) and (node.attr.endswith("_Weights") or node.attr == "DEFAULT"
                                                or node.attr.startswith("IMAGENET1K")):
            found.append(f".{node.attr} (line {node.lineno})")
        if isinstance(node, ast.Name) and node.id.endswith("_Weights"):
            found.append(f"{node.id} (line {node.lineno})")
    assert not found, f"the grader is offline: no pretrained downloads or weight enums, found {found}"


def _resnet(mod):
    """Runs in the worker, with torchvision installed: resnet18(weights=None) with a 5-class head."""
    import torchvision

    from grader import probes

    model = torchvision.models.resnet18(weights=None)
    mod.prepare_for_finetuning(model, "fc", 5, ("layer4",))
    params = probes.named_parameters(model)
    return {"fc": tuple(params["fc.weight"].shape),
            "trainable": sorted(n for n, p in params.items() if p.requires_grad)}


@check("state")
def test_resnet18_head(sub):
    pytest.importorskip("torchvision")
    seen = sub.probe(_resnet, sub)
    assert seen["fc"] == (5, 512), f"prepare_for_finetuning(resnet18, 'fc', 5): fc.weight has shape {seen['fc']}, expected (5, 512)"
    assert seen["trainable"] and all(n.startswith(("fc.", "layer4.")) for n in seen["trainable"]) \
        and "fc.weight" in seen["trainable"] and "layer4.0.conv1.weight" in seen["trainable"], (
            f"prepare_for_finetuning(resnet18, 'fc', 5, ('layer4',)): trainable are {seen['trainable'][:6]}..., "
            "expected fc.* and layer4.* only")
