"""Hidden checks for 45_gradient_accumulation.

The model (a small MLP, no BatchNorm), torch's SGD (lr 0.1, no momentum) and the micro-batches are
built inside a probe from data the judge made; the probe records, with hooks registered through
torch's own classes, every forward (batch size, whether every submodule was in training mode),
every backward that reached the first layer's weight, and each optimizer step with a copy of the
grads it used. What comes back is plain data. Expected values come from the judge's own loop: one
SGD step per group on the concatenated group with the mean-reduced loss (clipped with torch's
`clip_grad_norm_` where `max_norm` is set).
"""
import math

import torch
import torch.nn.functional as F

from grader.testing import assert_close, check, requires_cuda

EQUAL = [16] * 8                                       # 2 groups of 4 x 16 = 64 samples
RAGGED = [16, 16, 16, 16, 12, 16, 8, 16, 16, 5]        # 3 groups: 64, 52 and a trailing pair of 21
LOSSES = {"ce": F.cross_entropy, "mse": F.mse_loss}


def _mlp():
    return torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))


def _spec(sizes, loss, seed=45, **extra):
    g = torch.Generator().manual_seed(seed)
    state = {"0.weight": torch.randn(16, 6, generator=g) * 0.4, "0.bias": torch.randn(16, generator=g) * 0.1,
             "2.weight": torch.randn(3, 16, generator=g) * 0.3, "2.bias": torch.randn(3, generator=g) * 0.1}
    batches = []
    for n in sizes:
        x = torch.randn(n, 6, generator=g)
        y = torch.randint(0, 3, (n,), generator=g) if loss == "ce" else torch.randn(n, 3, generator=g)
        batches.append((x, y))
    spec = {"state": state, "batches": batches, "loss": loss, "acc": 4, "max_norm": None, "lr": 0.1,
            "dtype": torch.float32, "device": "cpu", "eval_first": False}
    spec.update(extra)
    return spec


def _cast(t, dtype, device):
    return t.to(device=device, dtype=dtype) if t.is_floating_point() else t.to(device)


def _train(mod, spec):
    """Runs in the worker: build the model, the optimizer and the batches, record what happens
    while the candidate's train_accumulated runs, and return plain data."""
    import weakref

    import torch
    import torch.nn.functional as F

    from grader import probes

    dtype, device = spec["dtype"], spec["device"]
    model = _mlp()
    probes.load_state_dict(model, spec["state"])
    torch.nn.Module.to(model, device=device, dtype=dtype)
    named = probes.named_parameters(model)
    params = list(named.values())
    opt = torch.optim.SGD(params, lr=spec["lr"])
    batches = [(_cast(x, dtype, device), _cast(y, dtype, device)) for x, y in spec["batches"]]
    events = []
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

    def forward_seen(module, args):
        size = int(args[0].shape[0]) if args and isinstance(args[0], torch.Tensor) else -1
        events.append(("F", size, all(m.training for _, m in probes.modules(module)), len(live)))

    def step_seen(optimizer, args, kwargs):
        events.append(("S", [None if p.grad is None else p.grad.detach().to("cpu").clone() for p in params],
                       any(p.grad is not None and (p.grad.requires_grad or p.grad.grad_fn is not None) for p in params)))

    torch.nn.Module.register_forward_pre_hook(model, forward_seen)
    torch.Tensor.register_post_accumulate_grad_hook(params[0], lambda p: events.append(("B",)))
    torch.optim.Optimizer.register_step_pre_hook(opt, step_seen)
    if spec["eval_first"]:
        torch.nn.Module.eval(model)
    loss_fn = {"ce": F.cross_entropy, "mse": F.mse_loss}[spec["loss"]]
    error, out = None, None
    try:
        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            if spec["max_norm"] is None:               # max_norm left at its default
                out = mod.train_accumulated(model, opt, loss_fn, batches, spec["acc"])
            else:
                out = mod.train_accumulated(model, opt, loss_fn, batches, spec["acc"], spec["max_norm"])
    except NotImplementedError:
        raise
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
    if isinstance(out, list):
        kinds = ["float" if isinstance(v, float) else type(v).__name__ for v in out]  # numpy.float64 is a float
        losses = [float(v) if isinstance(v, float) else None for v in out]
    else:
        kinds, losses = type(out).__name__, None
    return {"error": error, "kinds": kinds, "losses": losses, "events": events, "kept": len(live),
            "params": {n: p.detach().to("cpu").clone() for n, p in probes.named_parameters(model).items()},
            "where": sorted({(str(p.dtype), p.device.type) for p in probes.named_parameters(model).values()}),
            "same": [a is b for a, b in zip(probes.named_parameters(model).values(), params)],
            "grads": [None if p.grad is None else p.grad.detach().to("cpu").clone() for p in params]}


def _reference(spec):
    """The judge's loop: one step per group on the concatenated group, mean-reduced loss."""
    dtype = spec["dtype"]
    model = _mlp()
    model.load_state_dict(spec["state"])
    model.to(dtype)
    opt = torch.optim.SGD(model.parameters(), lr=spec["lr"])
    loss_fn = LOSSES[spec["loss"]]
    batches = [(_cast(x, dtype, "cpu"), _cast(y, dtype, "cpu")) for x, y in spec["batches"]]
    losses, step_grads, norms = [], [], []
    for start in range(0, len(batches), spec["acc"]):
        group = batches[start:start + spec["acc"]]
        with torch.no_grad():
            losses += [float(loss_fn(model(x), y)) for x, y in group]
        opt.zero_grad()
        loss_fn(model(torch.cat([x for x, _ in group])), torch.cat([y for _, y in group])).backward()
        norms.append(float(torch.linalg.vector_norm(torch.cat([p.grad.reshape(-1) for p in model.parameters()]))))
        if spec["max_norm"] is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), spec["max_norm"])
        step_grads.append([p.grad.clone() for p in model.parameters()])
        opt.step()
    return {"params": dict(model.named_parameters()), "losses": losses, "step_grads": step_grads, "norms": norms}


def _ran(seen, what):
    assert seen["error"] is None, f"{what} raised {seen['error']}"
    assert seen["losses"] is not None, f"{what} returned {seen['kinds']}, expected a list of floats"


def _same_params(seen, want, what, atol=1e-6, rtol=0.0):
    for name, p in want["params"].items():
        assert_close(seen["params"][name], p.detach(), atol=atol, rtol=rtol,
                     what=f"{what}: parameter {name} after the pass (expected one SGD step per group on the concatenated group)")


@check("value", weight=3)
def test_equal_groups_match_large_batch(sub):
    spec = _spec(EQUAL, "ce")
    seen = sub.probe(_train, sub, spec)
    what = "train_accumulated over 8 micro-batches of 16 with accumulation_steps=4"
    _ran(seen, what)
    _same_params(seen, _reference(spec), what)


@check("value", weight=3)
def test_ragged_groups(sub):
    spec = _spec(RAGGED, "mse")
    seen = sub.probe(_train, sub, spec)
    what = f"train_accumulated over micro-batches of sizes {RAGGED} with accumulation_steps=4"
    _ran(seen, what)
    _same_params(seen, _reference(spec), what)


@check("api", weight=2)
def test_step_count_and_order(sub):
    spec = _spec(RAGGED, "mse")
    seen = sub.probe(_train, sub, spec)
    what = f"train_accumulated over micro-batches of sizes {RAGGED} with accumulation_steps=4"
    _ran(seen, what)
    events = seen["events"]
    passes = [f"forward({e[1]})" if e[0] == "F" else "backward" for e in events if e[0] != "S"]
    want = [name for n in RAGGED for name in (f"forward({n})", "backward")]
    assert passes == want, (f"{what}: the model ran {passes}; expected each micro-batch in order, its forward "
                            "then its backward, one at a time")
    backwards, steps = 0, []
    for e in events:
        backwards += e[0] == "B"
        if e[0] == "S":
            steps.append(backwards)
    expected = [4, 8, 10]
    assert len(steps) == math.ceil(len(RAGGED) / 4), \
        f"{what}: optimizer.step ran {len(steps)} times, expected {math.ceil(len(RAGGED) / 4)} (one per group, the trailing pair included)"
    assert steps == expected, f"{what}: optimizer.step ran after backward number {steps}, expected after {expected}"
    held = [i for i, e in enumerate(e for e in events if e[0] == "F") if e[3]]
    assert not held, (f"{what}: when micro-batch {held[0]} started its forward, tensors saved for an earlier backward "
                      "were still alive: a plain backward() frees each micro-batch's graph (no retain_graph)")
    assert not seen["kept"], f"{what}: tensors saved for backward are still alive after the function returned"
    left = [i for i, g in enumerate(seen["grads"]) if g is not None and bool(g.any())]
    assert not left, f"{what}: parameters {left} still hold a gradient at return; zero the grads after every step"


@check("grad", weight=2)
def test_clip_once_on_group_grad(sub):
    spec = _spec(EQUAL, "ce", max_norm=0.05)
    want = _reference(spec)
    assert min(want["norms"]) > 4 * 0.05, "test data: the group gradients must be well above max_norm"
    seen = sub.probe(_train, sub, spec)
    what = "train_accumulated(..., max_norm=0.05) over 8 micro-batches of 16 with accumulation_steps=4"
    _ran(seen, what)
    steps = [e[1] for e in seen["events"] if e[0] == "S"]
    assert len(steps) == len(want["step_grads"]), f"{what}: optimizer.step ran {len(steps)} times, expected 2"
    names = list(want["params"])
    graphs = [s for s, e in enumerate(e for e in seen["events"] if e[0] == "S") if e[2]]
    assert not graphs, f"{what}: the grads used by step {graphs[0]} carry an autograd graph (backward with create_graph?)"
    for s, (got, exp) in enumerate(zip(steps, want["step_grads"])):
        for name, g, w in zip(names, got, exp):
            assert g is not None, f"{what}: parameter {name} had no grad at step {s}"
            assert_close(g, w, atol=1e-6, rtol=1e-5,
                         what=f"{what}: the grad of {name} used by step {s} (the group's gradient, clipped once to norm 0.05)")
    _same_params(seen, want, what)


@check("dtype")
def test_losses_are_unscaled_floats(sub):
    spec = _spec(RAGGED, "mse")
    seen = sub.probe(_train, sub, spec)
    what = f"train_accumulated over micro-batches of sizes {RAGGED}"
    _ran(seen, what)
    assert seen["kinds"] == ["float"] * len(RAGGED), \
        f"{what} returned a list of {seen['kinds']}, expected {len(RAGGED)} Python floats (one per micro-batch)"
    for i, (got, exp) in enumerate(zip(seen["losses"], _reference(spec)["losses"])):
        assert abs(got - exp) <= 1e-6 + 1e-5 * abs(exp), \
            f"{what}: the loss of micro-batch {i} is {got}, expected {exp} (loss_fn's value, before any scaling)"


@check("mode")
def test_train_mode(sub):
    spec = _spec(EQUAL, "ce", eval_first=True)
    seen = sub.probe(_train, sub, spec)
    what = "train_accumulated on a model put in eval mode before the call"
    _ran(seen, what)
    forwards = [e for e in seen["events"] if e[0] == "F"]
    assert len(forwards) == len(EQUAL), f"{what}: the model ran {len(forwards)} forwards, expected {len(EQUAL)}"
    modes = [e[2] for e in forwards]
    assert all(modes), f"{what}: during forward number {modes.index(False)} some module was not in training mode"
    _same_params(seen, _reference(spec), what)


@check("device")
def test_follows_model_dtype_and_device(sub):
    """CPU fallback of the CUDA check: a float64 model on the CPU is trained where it is, in its
    own dtype (nothing cast, nothing moved), and matches the float64 large-batch loop."""
    spec = _spec(RAGGED, "ce", dtype=torch.float64)
    seen = sub.probe(_train, sub, spec)
    what = "train_accumulated on a float64 model with float64 micro-batches"
    _ran(seen, what)
    assert seen["where"] == [("torch.float64", "cpu")] and all(seen["same"]), \
        f"{what}: the parameters became {seen['where']} (or new objects); train the model where it is"
    _same_params(seen, _reference(spec), what, atol=None, rtol=None)  # float64's documented tolerances


@requires_cuda
@check("device")
def test_cuda_matches_cpu(sub):
    spec = _spec(RAGGED, "ce", device="cuda")
    seen = sub.probe(_train, sub, spec)
    what = "train_accumulated on a CUDA model with CUDA micro-batches"
    _ran(seen, what)
    assert seen["where"] == [("torch.float32", "cuda")], f"{what}: the parameters became {seen['where']}"
    _same_params(seen, _reference(spec), what, atol=1e-5)
