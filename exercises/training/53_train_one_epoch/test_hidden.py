"""Hidden checks for 53_train_one_epoch.

The model, torch's SGD (lr 0.1, momentum 0.9) and the loader are built inside a probe from data the
judge made. Hooks registered through torch's own classes record, for every forward, the batch size,
the input's device and whether every submodule was in training mode; for every backward, whether
the parameters' grads were clear (None or zero) when it reached the model's output; for every
optimizer step (the optimizer's own step pre-hook), whether the grads held a gradient. The loss
function handed to the candidate tags each loss with a token that lives as long as its autograd
node, so a graph kept alive after its batch is seen. The probe returns plain data; expected values
come from the judge's own loop.
"""
import pytest
import torch
import torch.nn.functional as F

from grader.testing import assert_close, check, requires_cuda

SIZES = (32, 32, 7)      # 71 samples: the short last batch separates per-sample means from means of batch means


def _mlp(kind):
    if kind == "dropout":
        return torch.nn.Sequential(torch.nn.Linear(5, 16), torch.nn.ReLU(), torch.nn.Dropout(0.5), torch.nn.Linear(16, 3))
    return torch.nn.Sequential(torch.nn.Linear(5, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))


def _spec(seed=53, **extra):
    g = torch.Generator().manual_seed(seed)
    state = {"0.weight": torch.randn(16, 5, generator=g) * 0.5, "0.bias": torch.randn(16, generator=g) * 0.1}
    spec = {"kind": "plain", "loader": "list", "eval_first": False, "model_device": "cpu", "device": "cpu",
            "catch": False, "seed": seed}
    spec.update(extra)
    last = "3" if spec["kind"] == "dropout" else "2"
    state[f"{last}.weight"] = torch.randn(3, 16, generator=g) * 0.4
    state[f"{last}.bias"] = torch.randn(3, generator=g) * 0.1
    xs = torch.randn(sum(SIZES), 5, generator=g) * 1.5 + 0.5
    ys = torch.randint(0, 3, (sum(SIZES),), generator=g)
    spec.update(state=state, x=xs, y=ys)
    return spec


def _batches(spec):
    out, start = [], 0
    for n in SIZES:
        out.append((spec["x"][start:start + n], spec["y"][start:start + n]))
        start += n
    return out


def _train(mod, spec):
    """Runs in the worker: build the model, the optimizer and the loader, record what happens while
    the candidate's train_one_epoch runs, and return plain data."""
    import weakref

    import torch
    import torch.nn.functional as F

    from grader import probes

    model = _mlp(spec["kind"])
    probes.load_state_dict(model, spec["state"])
    torch.nn.Module.to(model, spec["model_device"])
    params = list(probes.named_parameters(model).values())
    opt = torch.optim.SGD(params, lr=0.1, momentum=0.9)
    events, losses_seen = [], []
    tokens = weakref.WeakSet()
    live = weakref.WeakSet()                           # what autograd saved for backward and still holds

    class Saved:
        __slots__ = ("tensor", "__weakref__")

    def pack(t):
        box = Saved()
        box.tensor = t
        live.add(box)
        return box

    def unpack(box):
        return box.tensor

    class Token:
        pass

    class Tag(torch.autograd.Function):
        """Identity whose autograd node holds a token: the token lives as long as the loss's graph."""

        @staticmethod
        def forward(ctx, loss):
            ctx.token = Token()
            tokens.add(ctx.token)
            return loss.clone()

        @staticmethod
        def backward(ctx, grad):
            return grad

    def clear():
        return all(p.grad is None or not bool(p.grad.any()) for p in params)

    def forward_pre(module, args):
        x = args[0] if args and isinstance(args[0], torch.Tensor) else None
        events.append(("F", None if x is None else int(x.shape[0]), None if x is None else x.device.type,
                       all(m.training for _, m in probes.modules(module)), len(tokens), len(live)))

    def forward_post(module, args, out):
        if isinstance(out, torch.Tensor) and out.requires_grad:
            out.register_hook(lambda g: events.append(("B", clear())))

    def step_pre(optimizer, args, kwargs):
        events.append(("S", not clear(), any(p.grad is not None and (p.grad.requires_grad or p.grad.grad_fn is not None)
                                             for p in params)))

    def loss_fn(out, y):
        losses_seen.append({"out": out.device.type, "y": y.device.type})
        return Tag.apply(F.cross_entropy(out, y))

    def loader():
        batches = [(x, y) for x, y in _batches(spec)]
        if spec["loader"] == "generator":
            return (b for b in batches)
        if spec["loader"] == "dataloader":
            data = torch.utils.data.TensorDataset(spec["x"], spec["y"])
            return torch.utils.data.DataLoader(data, batch_size=SIZES[0], shuffle=False)
        return batches

    torch.nn.Module.register_forward_pre_hook(model, forward_pre)
    torch.nn.Module.register_forward_hook(model, forward_post)
    torch.optim.Optimizer.register_step_pre_hook(opt, step_pre)
    if spec["eval_first"]:
        torch.nn.Module.eval(model)
    data = loader()
    error, out = None, None
    torch.manual_seed(spec["seed"])
    try:
        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            out = mod.train_one_epoch(model, data, opt, loss_fn, spec["device"])
    except NotImplementedError:
        raise
    except Exception as exc:
        if not spec["catch"]:
            raise
        error = f"{type(exc).__name__}: {exc}"[:300]
    meta = spec["model_device"] == "meta"
    named = probes.named_parameters(model)
    return {"error": error, "kind": type(out).__name__, "value": out if isinstance(out, float) else None,
            "events": events, "losses_seen": losses_seen, "tokens_left": len(tokens), "saved_left": len(live),
            "params": None if meta else {n: p.detach().to("cpu").clone() for n, p in named.items()},
            "grads": None if meta else {n: None if p.grad is None else p.grad.detach().to("cpu").clone()
                                        for n, p in named.items()},
            "where": sorted({p.device.type for p in named.values()})}


def _reference(spec):
    """The judge's loop: train mode, zero_grad, forward, loss, backward, step per batch."""
    model = _mlp(spec["kind"])
    model.load_state_dict(spec["state"])
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model.train()
    torch.manual_seed(spec["seed"])
    losses = []
    for x, y in _batches(spec):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    n = sum(SIZES)
    return {"params": {k: v.detach().clone() for k, v in model.named_parameters()},
            "grads": {k: v.grad.clone() for k, v in model.named_parameters()},
            "loss": sum(v * s for v, s in zip(losses, SIZES)) / n, "loss_of_means": sum(losses) / len(losses)}


def _ran(seen, what):
    assert seen["error"] is None, f"{what} raised {seen['error']}"


def _same_params(seen, want, what, atol=None):
    """Each parameter against the reference loop's: at assert_close's float32 defaults (atol 1e-5,
    rtol 1e-4) unless a check names its own atol."""
    for name, p in want["params"].items():
        assert_close(seen["params"][name], p, atol=atol, rtol=None if atol is None else 0,
                     what=f"{what}: parameter {name} after the epoch (expected the reference loop's)")


@check("value", weight=3)
def test_matches_reference_loop(sub):
    spec = _spec()
    seen = sub.probe(_train, sub, spec)
    what = f"train_one_epoch with SGD(lr=0.1, momentum=0.9) over batches of sizes {list(SIZES)}"
    _ran(seen, what)
    _same_params(seen, _reference(spec), what)


@check("api", weight=2)
def test_call_order(sub):
    spec = _spec()
    seen = sub.probe(_train, sub, spec)
    what = f"train_one_epoch over batches of sizes {list(SIZES)}"
    _ran(seen, what)
    order = [e[0] for e in seen["events"]]
    want = ["F", "B", "S"] * len(SIZES)
    names = {"F": "forward", "B": "backward", "S": "optimizer.step"}
    assert order == want, (f"{what}: the model and the optimizer ran {[names[o] for o in order]}; expected, per batch, "
                           "one forward, one backward, one optimizer.step")
    sizes = [e[1] for e in seen["events"] if e[0] == "F"]
    assert sizes == list(SIZES), f"{what}: the forwards saw batches of sizes {sizes}, expected {list(SIZES)}"
    backs = [e[1] for e in seen["events"] if e[0] == "B"]
    dirty = [i for i, c in enumerate(backs) if not c]
    assert not dirty, (f"{what}: when the backward of batch {dirty[0]} began, the grads still held the previous "
                       "batch's gradient: zero them (optimizer.zero_grad() or model.zero_grad()) before backward")
    steps = [e[1] for e in seen["events"] if e[0] == "S"]
    empty = [i for i, s in enumerate(steps) if not s]
    assert not empty, (f"{what}: optimizer.step for batch {empty[0]} ran with no gradient on the parameters "
                       "(zeroed between backward and step)")


@check("mode")
def test_train_mode(sub):
    spec = _spec(kind="dropout", eval_first=True)
    seen = sub.probe(_train, sub, spec)
    what = "train_one_epoch on a Dropout model put in eval mode before the call"
    _ran(seen, what)
    forwards = [e for e in seen["events"] if e[0] == "F"]
    assert len(forwards) == len(SIZES), f"{what}: the model ran {len(forwards)} forwards, expected {len(SIZES)}"
    modes = [e[3] for e in forwards]
    assert all(modes), f"{what}: during forward number {modes.index(False)} some module was not in training mode"
    _same_params(seen, _reference(spec), what, atol=1e-6)


@check("value", weight=2)
@pytest.mark.parametrize("loader", ["list", "generator", "dataloader"])
def test_sample_weighted_mean(sub, loader):
    spec = _spec(loader=loader)
    want = _reference(spec)
    assert abs(want["loss"] - want["loss_of_means"]) > 1e-2, "test data: the mean of batch means must differ"
    seen = sub.probe(_train, sub, spec)
    what = f"train_one_epoch over a {loader} of batches of sizes {list(SIZES)}"
    _ran(seen, what)
    assert seen["value"] is not None, f"{what} returned a {seen['kind']}, expected a Python float"
    got = seen["value"]
    assert abs(got - want["loss"]) <= 1e-6 + 1e-5 * abs(want["loss"]), (
        f"{what} returned {got}, expected {want['loss']}: the mean over the 71 samples of the loss each batch had "
        "when it was trained on (each batch's mean weighted by its size)")


@check("grad")
def test_grad_is_last_batch_only(sub):
    spec = _spec()
    seen = sub.probe(_train, sub, spec)
    what = f"train_one_epoch over batches of sizes {list(SIZES)}"
    _ran(seen, what)
    for name, g in _reference(spec)["grads"].items():
        got = seen["grads"][name]
        assert got is not None, f"{what}: {name}.grad is None after return; it should hold the last batch's gradient"
        assert_close(got, g, atol=1e-6, rtol=1e-5,
                     what=f"{what}: {name}.grad after return (the gradient of the last batch's loss alone)")


@check("state")
def test_no_graph_kept(sub):
    spec = _spec()
    seen = sub.probe(_train, sub, spec)
    what = f"train_one_epoch over batches of sizes {list(SIZES)}"
    _ran(seen, what)
    _same_params(seen, _reference(spec), what)
    alive = [e[4] for e in seen["events"] if e[0] == "F"]
    assert len(alive) == len(SIZES), f"{what}: the model ran {len(alive)} forwards, expected {len(SIZES)}"
    kept = [i for i, n in enumerate(alive) if n > 1]
    assert not kept, (f"{what}: when batch {kept[0]} started, the autograd graphs of {alive[kept[0]]} earlier losses "
                      "were still alive (a running total of loss tensors keeps every batch's graph): accumulate numbers")
    assert seen["tokens_left"] == 0, f"{what}: a loss's autograd graph is still alive after the function returned"
    held = [i for i, e in enumerate(e for e in seen["events"] if e[0] == "F") if e[5]]
    assert not held, (f"{what}: when batch {held[0]} started its forward, tensors saved for an earlier backward were "
                      "still alive: a plain loss.backward() frees them (no retain_graph, no create_graph)")
    assert not seen["saved_left"], f"{what}: tensors saved for backward are still alive after the function returned"
    graphs = [i for i, e in enumerate(e for e in seen["events"] if e[0] == "S") if e[2]]
    assert not graphs, f"{what}: the grads used by step {graphs[0]} carry an autograd graph (backward with create_graph?)"


@check("device")
def test_batches_moved_to_device(sub):
    """CPU fallback of the CUDA check: a model on the meta device, CPU batches, device='meta'. A
    correct loop moves x and y there before the forward and the loss; reading a meta loss back
    (.item()) then fails, which is expected: the check looks only at what reached the model and
    the loss function."""
    spec = _spec(model_device="meta", device="meta", catch=True)
    seen = sub.probe(_train, sub, spec)
    what = "train_one_epoch(model_on_meta, cpu_batches, ..., device='meta')"
    forwards = [e for e in seen["events"] if e[0] == "F"]
    assert forwards, f"{what} never ran the model ({seen['error'] or 'no error'})"
    devices = [e[2] for e in forwards]
    assert set(devices) == {"meta"}, f"{what}: the model received batches on {devices}; move each batch to `device`"
    assert seen["losses_seen"] and {d["y"] for d in seen["losses_seen"]} == {"meta"}, \
        f"{what}: loss_fn received targets on {[d['y'] for d in seen['losses_seen']]}; move the targets to `device` too"
    assert seen["where"] == ["meta"], f"{what}: the model's parameters moved to {seen['where']}; do not move the model"


@requires_cuda
@check("device")
def test_cuda_matches_cpu(sub):
    spec = _spec(model_device="cuda", device="cuda")
    seen = sub.probe(_train, sub, spec)
    what = "train_one_epoch on a CUDA model with a loader of CPU batches"
    _ran(seen, what)
    assert {e[2] for e in seen["events"] if e[0] == "F"} == {"cuda"}, f"{what}: the model received batches on the CPU"
    assert seen["where"] == ["cuda"], f"{what}: the parameters moved to {seen['where']}"
    want = _reference(spec)
    _same_params(seen, want, what, atol=1e-5)
    assert seen["value"] is not None and abs(seen["value"] - want["loss"]) <= 1e-5 + 1e-5 * abs(want["loss"]), \
        f"{what} returned {seen['value']!r}, expected {want['loss']}"
