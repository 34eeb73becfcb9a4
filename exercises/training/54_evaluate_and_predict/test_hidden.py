"""Hidden checks for 54_evaluate_and_predict.

The model (Linear -> BatchNorm1d -> ReLU -> Dropout -> Linear, with running statistics far from
what a batch of the test data has, so that train-mode and eval-mode outputs differ) and the loader
are built inside a probe from data the judge made. A forward pre-hook, registered through torch's
own `nn.Module` method, records for every forward the grad mode, the inference mode, the
`training` flag of every submodule, the input's device and size; the loss function handed to
`evaluate` records the devices it is given. The probe returns plain data: what the candidate's
functions returned (types and values), the model's state before and after, the modes after, and the
parameters' grads. Expected values come from the judge's own eval-mode loop.
"""
import pytest
import torch
import torch.nn.functional as F

from grader.testing import assert_close, check, requires_cuda

SIZES = (32, 32, 7)      # 71 samples: the short last batch is what separates per-sample means from means of means


def _model():
    return torch.nn.Sequential(torch.nn.Linear(5, 16), torch.nn.BatchNorm1d(16), torch.nn.ReLU(),
                               torch.nn.Dropout(0.5), torch.nn.Linear(16, 4))


def _spec(seed=54, **extra):
    g = torch.Generator().manual_seed(seed)
    state = {"0.weight": torch.randn(16, 5, generator=g) * 0.6, "0.bias": torch.randn(16, generator=g) * 0.2,
             "1.weight": 1 + 0.3 * torch.randn(16, generator=g), "1.bias": 0.2 * torch.randn(16, generator=g),
             "1.running_mean": torch.randn(16, generator=g), "1.running_var": 0.5 + torch.rand(16, generator=g) * 2,
             "1.num_batches_tracked": torch.tensor(7),
             "4.weight": torch.randn(4, 16, generator=g) * 0.5, "4.bias": torch.randn(4, generator=g) * 0.2}
    xs = torch.randn(sum(SIZES), 5, generator=g) * 1.5 + 0.5
    ys = torch.randint(0, 4, (sum(SIZES),), generator=g)
    spec = {"state": state, "x": xs, "y": ys, "sizes": SIZES, "loader": "list", "prior": True,
            "calls": ["evaluate"], "model_device": "cpu", "device": "cpu", "catch": False}
    spec.update(extra)
    return spec


def _batches(spec):
    out, start = [], 0
    for n in spec["sizes"]:
        out.append((spec["x"][start:start + n], spec["y"][start:start + n]))
        start += n
    return out


def _run(mod, spec):
    """Runs in the worker: build the model and the loader, call the candidate's functions, record
    what each forward saw, and return plain data."""
    import torch
    import torch.nn.functional as F

    from grader import probes

    model = _model()
    probes.load_state_dict(model, spec["state"])
    torch.nn.Module.to(model, spec["model_device"])
    torch.nn.Module.train(model, spec["prior"])
    forwards, losses = [], []

    def pre(module, args):
        x = args[0] if args and isinstance(args[0], torch.Tensor) else None
        forwards.append({"grad": torch.is_grad_enabled(), "inference": torch.is_inference_mode_enabled(),
                         "training": [m.training for _, m in probes.modules(module)],
                         "device": None if x is None else x.device.type, "n": None if x is None else int(x.shape[0])})

    def loss_fn(out, y):
        losses.append({"out": out.device.type, "y": y.device.type})
        return F.cross_entropy(out, y)

    def loader():
        batches = _batches(spec)
        if spec["loader"] == "generator":
            return (b for b in batches)
        if spec["loader"] == "dataloader":
            data = torch.utils.data.TensorDataset(spec["x"], spec["y"])
            return torch.utils.data.DataLoader(data, batch_size=spec["sizes"][0], shuffle=False)
        return batches

    def plain(value):
        if isinstance(value, torch.Tensor):
            return {"kind": "Tensor", "dtype": str(value.dtype), "shape": tuple(value.shape), "device": value.device.type,
                    "requires_grad": value.requires_grad,
                    "value": value.detach().to("cpu").clone() if value.device.type != "meta" else None}
        if isinstance(value, float):            # a Python float (numpy.float64 is one)
            return {"kind": "float", "value": float(value)}
        if type(value) in (int, bool):
            return {"kind": type(value).__name__, "value": value}
        if isinstance(value, (tuple, list)):     # a namedtuple is a tuple
            return {"kind": "tuple" if isinstance(value, tuple) else "list", "items": [plain(v) for v in value]}
        return {"kind": probes.qualified_name(value)}

    torch.nn.Module.register_forward_pre_hook(model, pre)
    before = probes.state_dict(model)
    results, error = [], None
    try:
        for call in spec["calls"]:
            if call == "evaluate":
                out = mod.evaluate(model, loader(), loss_fn, spec["device"])
            else:
                out = mod.predict(model, spec["x"].to(spec["model_device"]))
            results.append(plain(out))
    except NotImplementedError:
        raise
    except Exception as exc:
        if not spec["catch"]:
            raise
        error = f"{type(exc).__name__}: {exc}"[:300]
    after = probes.state_dict(model)
    return {"results": results, "error": error, "forwards": forwards, "losses": losses,
            "before": before if spec["model_device"] != "meta" else None,
            "after": {k: v.to("cpu") for k, v in after.items()} if spec["model_device"] != "meta" else None,
            "modes": [m.training for _, m in probes.modules(model)],
            "grads": [n for n, p in probes.named_parameters(model).items() if p.grad is not None]}


def _expected(spec):
    """The judge's eval-mode loop: per-batch mean losses, weighted by batch size; predictions."""
    model = _model()
    model.load_state_dict(spec["state"])
    model.eval()
    with torch.no_grad():
        batches = _batches(spec)
        losses = [float(F.cross_entropy(model(x), y)) for x, y in batches]
        hits = [int((model(x).argmax(dim=1) == y).sum()) for x, y in batches]
        n = sum(spec["sizes"])
        return {"loss": sum(v * len(x) for v, (x, _) in zip(losses, batches)) / n,
                "accuracy": sum(hits) / n,
                "loss_of_means": sum(losses) / len(losses),
                "accuracy_of_means": sum(h / len(x) for h, (x, _) in zip(hits, batches)) / len(batches),
                "predict": model(spec["x"]).argmax(dim=1)}


def _pair(result, what):
    """(loss, accuracy) from evaluate's plain result; both must be Python floats."""
    items = result.get("items")
    assert result["kind"] == "tuple" and items is not None and len(items) == 2, \
        f"{what} returned {result['kind']}, expected a tuple (loss, accuracy)"
    kinds = [i["kind"] for i in items]
    assert kinds == ["float", "float"], f"{what} returned a tuple of {kinds}, expected two Python floats"
    return items[0]["value"], items[1]["value"]


def _evaluated(result, want, what):
    loss, acc = _pair(result, what)
    assert abs(loss - want["loss"]) <= 1e-6 + 1e-5 * abs(want["loss"]), \
        f"{what}: the loss is {loss}, expected {want['loss']} (the eval-mode mean over all 71 samples)"
    assert abs(acc - want["accuracy"]) <= 1e-6, f"{what}: the accuracy is {acc}, expected {want['accuracy']}"


def _predicted(result, want, what):
    assert result["kind"] == "Tensor", f"{what} returned {result['kind']}, expected a tensor of class indices"
    assert result["dtype"] == "torch.int64" and result["shape"] == tuple(want.shape), \
        f"{what} returned {result['dtype']} of shape {result['shape']}, expected torch.int64 of shape {tuple(want.shape)}"
    assert_close(result["value"], want, what=f"{what}: the class indices (eval-mode argmax over dim 1)")


def _check_call(call, result, want, what):
    if call == "evaluate":
        _evaluated(result, want, what)
    else:
        _predicted(result, want["predict"], what)


@check("mode", weight=2)
@pytest.mark.parametrize("call", ["evaluate", "predict"])
def test_eval_mode_is_deterministic(sub, call):
    spec = _spec(calls=[call, call], prior=True)
    seen = sub.probe(_run, sub, spec)
    want = _expected(spec)
    what = f"{call} called twice on a Dropout + BatchNorm model in training mode"
    assert len(seen["results"]) == 2
    for i, result in enumerate(seen["results"]):
        _check_call(call, result, want, f"{what} (call {i + 1})")
    for name, value in seen["before"].items():
        assert torch.equal(seen["after"][name], value), \
            f"{what}: {name} changed (BatchNorm updated its running statistics: the forward ran in training mode)"


@check("mode")
@pytest.mark.parametrize("prior", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("call", ["evaluate", "predict"])
def test_restores_prior_mode(sub, call, prior):
    spec = _spec(calls=[call], prior=prior)
    seen = sub.probe(_run, sub, spec)
    what = f"{call} on a model in {'training' if prior else 'eval'} mode"
    _check_call(call, seen["results"][0], _expected(spec), what)
    assert seen["forwards"] and not any(any(f["training"]) for f in seen["forwards"]), \
        f"{what}: some module was in training mode during a forward"
    wrong = [i for i, m in enumerate(seen["modes"]) if m != prior]
    assert not wrong, (f"{what}: afterwards {len(wrong)} of {len(seen['modes'])} modules have training="
                       f"{not prior}; restore the mode the model had before the call")


@check("grad", weight=2)
def test_no_autograd(sub):
    spec = _spec()
    seen = sub.probe(_run, sub, spec)
    what = "evaluate"
    _evaluated(seen["results"][0], _expected(spec), what)
    assert [f["n"] for f in seen["forwards"]] == list(SIZES), \
        f"{what}: the model ran on batches of sizes {[f['n'] for f in seen['forwards']]}, expected {list(SIZES)}"
    enabled = [i for i, f in enumerate(seen["forwards"]) if f["grad"]]
    assert not enabled, f"{what}: gradient recording was enabled during forward number {enabled[0]} (graphs were built)"
    assert not seen["grads"], f"{what}: parameters {seen['grads']} have a .grad after evaluation"


@check("value", weight=2)
@pytest.mark.parametrize("loader", ["list", "generator", "dataloader"])
def test_sample_weighted_loss(sub, loader):
    spec = _spec(loader=loader, prior=False)
    want = _expected(spec)
    assert abs(want["loss"] - want["loss_of_means"]) > 1e-2, "test data: the mean of batch means must differ"
    seen = sub.probe(_run, sub, spec)
    what = f"evaluate over a {loader} of batches of sizes {list(SIZES)}"
    loss, _ = _pair(seen["results"][0], what)
    assert abs(loss - want["loss"]) <= 1e-6 + 1e-5 * abs(want["loss"]), \
        f"{what}: the loss is {loss}, expected {want['loss']} (the mean over the 71 samples, each batch weighted by its size)"


@check("value")
def test_accuracy(sub):
    spec = _spec(prior=False)
    want = _expected(spec)
    assert abs(want["accuracy"] - want["accuracy_of_means"]) > 1e-2, "test data: the mean of batch accuracies must differ"
    seen = sub.probe(_run, sub, spec)
    what = f"evaluate over batches of sizes {list(SIZES)}"
    _, acc = _pair(seen["results"][0], what)
    assert abs(acc - want["accuracy"]) <= 1e-6, \
        f"{what}: the accuracy is {acc}, expected {want['accuracy']} (correct predictions / 71 samples)"


@check("api")
def test_predict_inference_mode(sub):
    spec = _spec(calls=["predict"], prior=False)
    seen = sub.probe(_run, sub, spec)
    what = "predict"
    _predicted(seen["results"][0], _expected(spec)["predict"], what)
    assert len(seen["forwards"]) == 1, f"{what}: the model ran {len(seen['forwards'])} forwards, expected 1"
    # behaviour, not the API: no graph recorded (inference_mode and no_grad both switch grad mode off)
    assert not seen["forwards"][0]["grad"], f"{what}: gradient recording was enabled during the forward (a graph was built)"
    assert not seen["grads"], f"{what}: parameters {seen['grads']} have a .grad after predict"


@check("dtype")
def test_predict_dtype_shape(sub):
    spec = _spec(calls=["predict"], prior=False)
    seen = sub.probe(_run, sub, spec)
    result = seen["results"][0]
    _predicted(result, _expected(spec)["predict"], "predict on 71 samples")
    assert not result["requires_grad"], "predict returned a tensor that requires grad"


@check("device")
def test_batches_moved_to_device(sub):
    """CPU fallback of the CUDA check: a model on the meta device and a loader of CPU batches,
    device='meta'. A correct evaluate moves x and y there before the forward and the loss; reading
    a meta loss back with .item() then fails (a meta tensor has no data), which is expected: the
    check looks only at what reached the model and the loss function."""
    spec = _spec(model_device="meta", device="meta", catch=True)
    seen = sub.probe(_run, sub, spec)
    what = "evaluate(model_on_meta, cpu_batches, loss_fn, device='meta')"
    assert seen["forwards"], f"{what} never ran the model ({seen['error'] or 'no error'})"
    devices = [f["device"] for f in seen["forwards"]]
    assert set(devices) == {"meta"}, f"{what}: the model received batches on {devices}; move each batch to `device`"
    assert seen["losses"] and {d["y"] for d in seen["losses"]} == {"meta"}, \
        f"{what}: loss_fn received targets on {[d['y'] for d in seen['losses']]}; move the targets to `device` too"


@requires_cuda
@check("device")
def test_cuda_matches_cpu(sub):
    spec = _spec(model_device="cuda", device="cuda", calls=["evaluate", "predict"])
    seen = sub.probe(_run, sub, spec)
    want = _expected(spec)
    what = "evaluate on a CUDA model with a loader of CPU batches"
    assert {f["device"] for f in seen["forwards"]} == {"cuda"}, f"{what}: the model received batches on the CPU"
    loss, acc = _pair(seen["results"][0], what)
    assert abs(loss - want["loss"]) <= 1e-5 + 1e-5 * abs(want["loss"]), f"{what}: the loss is {loss}, expected {want['loss']}"
    assert abs(acc - want["accuracy"]) <= 1e-6, f"{what}: the accuracy is {acc}, expected {want['accuracy']}"
    result = seen["results"][1]
    assert result["kind"] == "Tensor" and result["device"] == "cuda", "predict on CUDA input must return a CUDA tensor"
    _predicted(result, want["predict"], "predict on a CUDA model")
