"""Hidden checks for 56_nan_hunting.

Models, inputs and losses are built inside probes from data the judge made; the probes return plain
data (the candidate's answer only when it is exactly a `str`, `None` or a `list` of `str`) and what
torch's own registries say afterwards: the hooks on every module and the global ones, every
module's training flag, every parameter's `.grad`, `torch.is_anomaly_enabled()`. A forward hook of
the judge's own on `stem` records whether autograd was on while the candidate's forward ran. The
expected answers come from the judge's own forward in the test process.
"""
import torch

from grader.testing import check, requires_cuda

HOOK_DICTS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks",
              "_forward_hooks_with_kwargs", "_forward_pre_hooks_with_kwargs", "_state_dict_hooks",
              "_load_state_dict_pre_hooks")
GLOBAL_HOOKS = ("_global_forward_hooks", "_global_forward_pre_hooks", "_global_backward_hooks",
                "_global_backward_pre_hooks")


class Log(torch.nn.Module):
    def forward(self, x):
        return torch.log(x)


class Pair(torch.nn.Module):
    """A leaf whose output is a tuple: (x, log(x)) or, clean, (x, None)."""

    def __init__(self, bad):
        super().__init__()
        self.bad = bad

    def forward(self, x):
        return (x, torch.log(x) if self.bad else None)


class First(torch.nn.Module):
    def forward(self, pair):
        return pair[0]


class PairNet(torch.nn.Module):
    def __init__(self, bad=True):
        super().__init__()
        self.stem = torch.nn.Linear(5, 6)
        self.layers = torch.nn.Sequential(torch.nn.ReLU(), Pair(bad), First(), torch.nn.Linear(6, 3))

    def forward(self, x):
        return self.layers(self.stem(x))


class Net(torch.nn.Module):
    """`head` is registered first and runs last: registration order is not execution order."""

    def __init__(self, bad=True):
        super().__init__()
        self.head = torch.nn.Sequential(torch.nn.Linear(6, 4), torch.nn.Dropout(0.25), torch.nn.Tanh())
        self.stem = torch.nn.Linear(5, 6)
        self.body = torch.nn.Sequential(torch.nn.Linear(6, 6), torch.nn.ReLU(), Log() if bad else torch.nn.Softplus(),
                                        torch.nn.Linear(6, 6), torch.nn.Tanh())

    def forward(self, x):
        return self.head(self.body(self.stem(x)))


class Gauge(torch.nn.Module):
    """`root` gets an infinite gradient (sqrt at 0), `gate` a NaN one (0 * inf), `scale` and `inner`
    finite ones, `unused` none, `frozen` never requires grad."""

    def __init__(self):
        super().__init__()
        self.inner = torch.nn.Linear(3, 3)
        self.root = torch.nn.Parameter(torch.tensor([0.0, 1.0, 4.0]))
        self.gate = torch.nn.Parameter(torch.tensor([0.0, 2.0, 3.0]))
        self.scale = torch.nn.Parameter(torch.tensor(1.5))
        self.unused = torch.nn.Parameter(torch.ones(2))
        self.frozen = torch.nn.Parameter(torch.ones(3), requires_grad=False)

    def forward(self, x):
        y = self.inner(x) * self.frozen
        return (y * torch.sqrt(self.root)).sum() * self.scale + (torch.sqrt(self.gate) * 0).sum()


def _state(seed=56):
    g = torch.Generator().manual_seed(seed)
    net = Net()
    return {k: torch.randn(v.shape, generator=g) * 0.8 for k, v in net.state_dict().items()}


def _x(seed=7):
    return torch.randn(4, 5, generator=torch.Generator().manual_seed(seed))


def _hooks(model):
    import torch

    from grader import probes

    seen = {}
    for name, m in probes.modules(model):
        for attr in HOOK_DICTS:
            reg = m.__dict__.get(attr)
            if reg:
                seen[f"{name or 'model'}.{attr}"] = sorted(reg.keys())
    for attr in GLOBAL_HOOKS:
        reg = getattr(torch.nn.modules.module, attr, None)
        if reg:
            seen[attr] = sorted(reg.keys())
    return seen


def _hunt(mod, cases, device="cpu", dtype=None):
    """Runs in the worker: one first_nonfinite_module call per case (bad, training, x)."""
    import torch

    from grader import probes

    out = []
    for bad, training, x in cases:
        model = PairNet(bad == "pair") if bad in ("pair", "pair_clean") else Net(bad)
        probes.load_state_dict(model, {k: v for k, v in _state().items() if k.startswith("stem")}, strict=False)
        if isinstance(model, Net):
            probes.load_state_dict(model, _state())
        torch.nn.Module.to(model, device=device, dtype=dtype)
        torch.nn.Module.train(model, training)
        grad_modes = []
        torch.nn.Module.register_forward_hook(model.stem, lambda m, a, o: grad_modes.append(torch.is_grad_enabled()))
        before_hooks = _hooks(model)
        before_modes = {n: m.training for n, m in probes.modules(model)}
        got = mod.first_nonfinite_module(model, x.to(device=device, dtype=dtype or x.dtype))
        out.append({
            "kind": type(got).__name__, "value": got if got is None or type(got) is str else None,
            "hooks_added": {k: v for k, v in _hooks(model).items() if before_hooks.get(k) != v},
            "modes_changed": sorted(n for n, m in probes.modules(model) if m.training != before_modes[n]),
            "grads": sorted(n for n, p in probes.named_parameters(model).items() if p.grad is not None),
            "grad_modes": grad_modes, "anomaly": torch.is_anomaly_enabled(),
        })
    return out


def _expected(bad, training, x):
    """The judge's own answer, with its own hooks."""
    model = Net(bad)
    model.load_state_dict(_state())
    model.train(training)
    if not torch.isfinite(x).all():
        return "input", []
    order = []
    for name, m in model.named_modules():
        if not list(m.children()):
            m.register_forward_hook(lambda m, a, o, name=name: order.append((name, not bool(torch.isfinite(o).all()))))
    torch.manual_seed(0)
    with torch.no_grad():
        model(x)
    bad_ones = [n for n, b in order if b]
    return (bad_ones[0] if bad_ones else None), bad_ones


def _answer(res, want, what):
    assert res["kind"] in ("str", "NoneType"), f"{what} returned a {res['kind']}, expected a str or None"
    assert res["value"] == want, f"{what} returned {res['value']!r}, expected {want!r}"


@check("value", weight=2)
def test_first_nonfinite_module(sub):
    x = _x()
    want, bad_ones = _expected(True, False, x)
    assert want == "body.2" and bad_ones[-1] == "head.2" and len(bad_ones) >= 3, f"test data: {bad_ones}"
    (res,) = sub.probe(_hunt, sub, [(True, False, x)])
    _answer(res, "body.2", "first_nonfinite_module(net, x) where body.2 takes the log of ReLU zeros (-inf) and "
                           "body.3 onwards carry NaN/Inf to the output (head is registered before body but runs last)")


@check("value")
def test_clean_and_input(sub):
    x = _x()
    nan_x, inf_x = x.clone(), x.clone()
    nan_x[1, 3] = float("nan")
    inf_x[2, 0] = float("inf")
    assert _expected(False, False, x)[0] is None, "test data: the clean model must be finite"
    results = sub.probe(_hunt, sub, [(False, False, x), (True, False, nan_x), (False, True, inf_x), ("pair", False, x),
                                     ("pair_clean", False, x)])
    _answer(results[0], None, "first_nonfinite_module on a model whose outputs are all finite")
    _answer(results[1], "input", "first_nonfinite_module(net, x) with a NaN in x")
    _answer(results[2], "input", "first_nonfinite_module(clean_net, x) with an inf in x")
    _answer(results[3], "layers.1", "first_nonfinite_module on a model whose leaf layers.1 returns the tuple "
                                    "(h, log(h)) with ReLU zeros in h (the next leaf keeps only h)")
    _answer(results[4], None, "first_nonfinite_module on a model whose leaf layers.1 returns the tuple (h, None)")


@check("state")
def test_no_trace_left(sub):
    x = _x()
    results = sub.probe(_hunt, sub, [(True, True, x), (True, False, x), (False, True, x)])
    for res, training, want in zip(results, (True, False, True), ("body.2", "body.2", None)):
        what = f"first_nonfinite_module on a model in {'train' if training else 'eval'} mode"
        _answer(res, want, what)
        assert not res["hooks_added"], f"{what} left hooks behind: {res['hooks_added']}"
        assert not res["modes_changed"], f"{what} changed the training flag of {res['modes_changed']}"
        assert not res["grads"], f"{what} created .grad on {res['grads']} (no backward: nothing should touch .grad)"
        assert res["grad_modes"] and not any(res["grad_modes"]), (
            f"{what}: autograd was on during the forward (grad mode seen at `stem`: {res['grad_modes']}); "
            "run it under torch.no_grad() or torch.inference_mode()")
        assert not res["anomaly"], f"{what} left anomaly detection enabled"


def _grads(mod, device="cpu", dtype=None):
    import torch

    from grader import probes

    torch.manual_seed(0)
    model = Gauge()
    torch.nn.Module.to(model, device=device, dtype=dtype)
    x = torch.arange(6.0).reshape(2, 3).to(device=device, dtype=dtype or torch.float32)
    model(x).backward()
    before = {n: None if p.grad is None else p.grad.detach().cpu().float().clone()
              for n, p in probes.named_parameters(model).items()}
    got = mod.nonfinite_grads(model)
    after = {n: None if p.grad is None else p.grad.detach().cpu().float().clone()
             for n, p in probes.named_parameters(model).items()}
    ok = type(got) is list and all(type(s) is str for s in got)
    return {"kind": type(got).__name__, "value": list(got) if ok else None, "before": before, "after": after,
            "anomaly": torch.is_anomaly_enabled()}


def _check_grads(res, what):
    assert res["value"] is not None, f"{what} returned a {res['kind']}, expected a list of str"
    want = ["gate", "root"]
    assert sorted(res["value"]) == want and len(res["value"]) == 2, (
        f"{what} returned {res['value']}, expected {want} in any order: root's gradient is inf (sqrt at 0), "
        "gate's is NaN (0 * inf); inner and scale have finite grads, unused has none, frozen never requires grad")
    for name, g in res["before"].items():
        after = res["after"][name]
        assert (g is None) == (after is None) and (g is None or torch.equal(g.nan_to_num(), after.nan_to_num())
                                                   and torch.equal(g.isnan(), after.isnan())), \
            f"{what} changed {name}.grad: only read the grads"


@check("value")
def test_nonfinite_grads(sub):
    _check_grads(sub.probe(_grads, sub), "nonfinite_grads(model) after backward")


def _freed(loss, x):
    """True when asking for the gradient again fails because the first backward freed the graph."""
    import torch

    try:
        torch.autograd.grad(loss, [x])
    except RuntimeError as exc:
        return "second time" in str(exc)
    return False


def _anomaly(mod, device="cpu"):
    import warnings

    import torch

    out = []
    for kind in ("sqrt", "log", "clean", "sqrt"):
        x = torch.tensor([0.0, 0.0, 0.0] if kind != "clean" else [1.0, 2.0, 3.0], device=device, requires_grad=True)
        if kind == "sqrt":
            loss = (torch.sqrt(x) * 0).sum()
        elif kind == "log":
            loss = (torch.log(x) * 0).sum()
        else:
            loss = (x * x).sum()
        error = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                got = mod.backward_with_anomaly_detection(loss)
            except NotImplementedError:
                raise
            except Exception as exc:
                got, error = None, f"{type(exc).__name__}: {exc}"[:300]
        out.append({"kind": type(got).__name__, "value": got if got is None or type(got) is str else None,
                    "error": error, "anomaly": torch.is_anomaly_enabled(),
                    "grad": None if x.grad is None else x.grad.detach().cpu().clone(),
                    "grad_graph": x.grad is not None and (x.grad.requires_grad or x.grad.grad_fn is not None),
                    "graph_freed": _freed(loss, x)})
    return out


_ANOMALY_CASES = (("(sqrt(x) * 0).sum() at x = 0", "SqrtBackward0"), ("(log(x) * 0).sum() at x = 0", "LogBackward0"),
                  ("(x * x).sum() at x = [1, 2, 3]", None), ("(sqrt(x) * 0).sum() at x = 0, called again", "SqrtBackward0"))


@check("value", weight=2)
def test_anomaly_names_node(sub):
    for res, (case, want) in zip(sub.probe(_anomaly, sub), _ANOMALY_CASES):
        what = f"backward_with_anomaly_detection({case})"
        assert res["error"] is None, f"{what} raised {res['error']}; return the failing node's name instead"
        _answer(res, want, what)
        if want is None:
            assert res["grad"] is not None and torch.equal(res["grad"], torch.tensor([2.0, 4.0, 6.0])), \
                f"{what}: x.grad is {res['grad']}, expected [2, 4, 6] (the backward must run)"
            assert not res["grad_graph"], f"{what}: x.grad carries an autograd graph (backward with create_graph?)"
            assert res["graph_freed"], (f"{what}: the loss's graph is still usable after the call: a plain "
                                        "loss.backward() frees it (no retain_graph)")


@check("state")
def test_anomaly_mode_restored(sub):
    for res, (case, want) in zip(sub.probe(_anomaly, sub), _ANOMALY_CASES):
        what = f"backward_with_anomaly_detection({case})"
        assert res["error"] is None, f"{what} raised {res['error']}"
        _answer(res, want, what)
        assert not res["anomaly"], f"after {what}, torch.is_anomaly_enabled() is True: restore it on every path"


@check("device")
def test_bfloat16_model(sub):
    """CPU fallback of the CUDA check: a bfloat16 model (no NumPy dtype, like a CUDA tensor has no
    NumPy view): the answers must come from torch's own tests."""
    x = _x()
    (res,) = sub.probe(_hunt, sub, [(True, False, x)], "cpu", torch.bfloat16)
    _answer(res, "body.2", "first_nonfinite_module on a bfloat16 model where body.2 takes the log of zeros")
    _check_grads(sub.probe(_grads, sub, "cpu", torch.bfloat16), "nonfinite_grads on a bfloat16 model")


@requires_cuda
@check("device")
def test_cuda_model(sub):
    x = _x()
    results = sub.probe(_hunt, sub, [(True, False, x), (False, False, x)], "cuda")
    _answer(results[0], "body.2", "first_nonfinite_module on a CUDA model where body.2 takes the log of zeros")
    _answer(results[1], None, "first_nonfinite_module on a clean CUDA model")
    _check_grads(sub.probe(_grads, sub, "cuda"), "nonfinite_grads on a CUDA model")
    for res, (case, want) in zip(sub.probe(_anomaly, sub, "cuda"), _ANOMALY_CASES):
        assert res["error"] is None and res["value"] == want and not res["anomaly"], \
            f"backward_with_anomaly_detection({case}) on CUDA: {res}"
