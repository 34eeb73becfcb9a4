"""Hidden checks for 57_training_sanity_checks.

Models and data are built inside probes from tensors the judge made; the probes return plain data:
the candidate's answer only when it has exactly the promised type (a `list` of `float`, a `list` of
`str`), and what torch's registries say afterwards (every parameter's `.grad`, every module's
training flag). A forward pre-hook of the judge's own records the training flags while the
candidate trains. Expected losses come from the judge's own Adam loop in the test process.
"""
import torch
import torch.nn.functional as F

from grader.testing import check

STEPS = 300


def _mlp():
    return torch.nn.Sequential(torch.nn.Linear(10, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))


def _batch(seed=0):
    g = torch.Generator().manual_seed(seed)
    state = {k: torch.randn(v.shape, generator=g) * (0.3 if k.endswith("weight") else 0.1)
             for k, v in _mlp().state_dict().items()}
    return state, torch.randn(8, 10, generator=g), torch.randint(0, 4, (8,), generator=g)


def _overfit(mod, state, x, y, steps, lr):
    """Runs in the worker: a 2-layer MLP handed over in eval mode."""
    import torch
    import torch.nn.functional as F

    from grader import probes

    model = _mlp()
    probes.load_state_dict(model, state)
    torch.nn.Module.eval(model)
    modes = []
    torch.nn.Module.register_forward_pre_hook(
        model, lambda m, a: modes.append(all(s.training for _, s in probes.modules(m))))
    if steps is None:
        got = mod.overfit_one_batch(model, x, y, F.cross_entropy)
    else:
        got = mod.overfit_one_batch(model, x, y, F.cross_entropy, steps=steps, lr=lr)
    ok = type(got) is list and all(isinstance(v, float) for v in got)  # numpy.float64 is a Python float
    return {"kind": type(got).__name__,
            "items": sorted({"float" if isinstance(v, float) else type(v).__name__ for v in got}) if isinstance(got, list) else [],
            "value": [float(v) for v in got] if ok else None, "modes": modes,
            "grad_graph": any(p.grad is not None and (p.grad.requires_grad or p.grad.grad_fn is not None)
                              for p in probes.named_parameters(model).values())}


def _reference(state, x, y, steps, lr):
    model = _mlp()
    model.load_state_dict(state)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


@check("value", weight=2)
def test_overfits_one_batch(sub):
    state, x, y = _batch()
    want = _reference(state, x, y, 20, 1e-2)     # 300 steps reach < 4e-4 x the first loss (README)
    seen = sub.probe(_overfit, sub, state, x, y, None, None)
    what = "overfit_one_batch(mlp, x, y, F.cross_entropy) on 8 samples with random labels (defaults: 300 steps, lr 1e-2)"
    assert seen["value"] is not None, f"{what} returned a {seen['kind']} of {seen['items']}, expected a list of floats"
    got = seen["value"]
    assert len(got) == STEPS, f"{what} returned {len(got)} losses, expected {STEPS}"
    assert seen["modes"] and all(seen["modes"]), f"{what}: the model (handed over in eval mode) was not in train mode"
    assert len(seen["modes"]) == STEPS, f"{what} ran {len(seen['modes'])} forwards, expected one per step ({STEPS})"
    for i in range(20):
        assert abs(got[i] - want[i]) <= 1e-5 + 1e-4 * abs(want[i]), (
            f"{what}: the loss at step {i} is {got[i]}, expected {want[i]} (Adam(model.parameters(), lr) from the "
            "model's own weights: zero the grads, forward, loss, backward, step; record the loss of each forward)")
    assert got[-1] < 1e-2 * got[0], f"{what}: the final loss {got[-1]} is not below 1e-2 x the first {got[0]}"
    assert not seen["grad_graph"], f"{what}: the grads left on the parameters carry an autograd graph (create_graph?)"


@check("dtype")
def test_returns_step_floats(sub):
    state, x, y = _batch(1)
    want = _reference(state, x, y, 7, 5e-2)
    seen = sub.probe(_overfit, sub, state, x, y, 7, 5e-2)
    what = "overfit_one_batch(mlp, x, y, F.cross_entropy, steps=7, lr=5e-2)"
    assert seen["value"] is not None, f"{what} returned a {seen['kind']} of {seen['items']}, expected a list of floats"
    assert len(seen["value"]) == 7, f"{what} returned {len(seen['value'])} losses, expected 7"
    for i, (g, w) in enumerate(zip(seen["value"], want)):
        assert abs(g - w) <= 1e-5 + 1e-4 * abs(w), f"{what}: the loss at step {i} is {g}, expected {w}"


class Probe(torch.nn.Module):
    """core and gate are used (gate's ReLU is off for every input: an all-zero gradient), left or right
    runs depending on `switch`, never is never called, frozen_used and frozen_unused never require grad."""

    def __init__(self):
        super().__init__()
        self.never = torch.nn.Linear(4, 4)
        self.core = torch.nn.Linear(4, 4)
        self.gate = torch.nn.Linear(4, 2)
        self.left = torch.nn.Linear(4, 3)
        self.right = torch.nn.Linear(4, 3)
        self.drop = torch.nn.Dropout(0.5)
        self.frozen_used = torch.nn.Parameter(torch.ones(4), requires_grad=False)
        self.frozen_unused = torch.nn.Linear(4, 4)
        for p in self.frozen_unused.parameters():
            p.requires_grad_(False)
        with torch.no_grad():
            self.gate.weight.zero_()
            self.gate.bias.fill_(-1.0)

    def forward(self, x, switch):
        h = torch.tanh(self.core(x)) * self.frozen_used
        off = torch.relu(self.gate(h)).sum()
        branch = self.left(h) if bool(switch.sum() > 0) else self.right(h)
        return (self.drop(branch) + off).double()


class Used(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(3, 3)
        self.b = torch.nn.Linear(3, 1)
        self.frozen = torch.nn.Linear(3, 3)
        self.frozen.requires_grad_(False)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def _unused(mod, cases):
    """Runs in the worker: cases of (model kind, training, preset grads, sign of the switch)."""
    import torch

    from grader import probes

    out = []
    for kind, training, preset, sign in cases:
        torch.manual_seed(57)
        model = Probe() if kind == "probe" else Used()
        torch.nn.Module.train(model, training)
        params = probes.named_parameters(model)
        for name, g in preset.items():
            params[name].grad = g.clone()
        before = {n: m.training for n, m in probes.modules(model)}
        x = torch.randn(5, 4 if kind == "probe" else 3)
        inputs = (x, torch.full((2,), float(sign))) if kind == "probe" else (x,)
        got = mod.unused_parameters(model, *inputs)
        ok = type(got) is list and all(type(s) is str for s in got)
        out.append({"kind": type(got).__name__, "value": list(got) if ok else None,
                    "grads": {n: None if p.grad is None else p.grad.detach().clone() for n, p in params.items()},
                    "modes_changed": sorted(n for n, m in probes.modules(model) if m.training != before[n])})
    return out


def _names(res, want, what):
    assert res["value"] is not None, f"{what} returned a {res['kind']}, expected a list of str"
    assert sorted(res["value"]) == sorted(want) and len(res["value"]) == len(want), (
        f"{what} returned {res['value']}, expected {sorted(want)} in any order")


NEVER_AND_RIGHT = ["never.weight", "never.bias", "right.weight", "right.bias"]
NEVER_AND_LEFT = ["never.weight", "never.bias", "left.weight", "left.bias"]


@check("value", weight=2)
def test_unused_reported(sub):
    results = sub.probe(_unused, sub, [("probe", False, {}, 1), ("probe", False, {}, -1), ("used", True, {}, 0)])
    _names(results[0], NEVER_AND_RIGHT, "unused_parameters(model, x, switch) where `never` is never called, the "
           "`right` branch is not taken and `gate` is used behind a ReLU that is off for every input (zero gradient)")
    _names(results[1], NEVER_AND_LEFT, "unused_parameters(model, x, switch) with the switch taking the `right` branch")
    _names(results[2], [], "unused_parameters on a model that uses every trainable parameter")


@check("value")
def test_frozen_never_reported(sub):
    results = sub.probe(_unused, sub, [("probe", True, {}, 1), ("used", False, {}, 0)])
    for res, want in zip(results, (NEVER_AND_RIGHT, [])):
        what = "unused_parameters on a model with frozen parameters (requires_grad=False), used and unused"
        _names(res, want, what)


def _preset():
    g = torch.Generator().manual_seed(5)
    return {"core.weight": torch.randn(4, 4, generator=g), "never.bias": torch.randn(4, generator=g),
            "gate.bias": torch.randn(2, generator=g), "right.weight": torch.zeros(3, 4)}


@check("state")
def test_grads_unchanged(sub):
    preset = _preset()
    results = sub.probe(_unused, sub, [("probe", True, preset, 1), ("probe", False, {}, -1), ("used", True, {}, 0)])
    for res, pre, want in zip(results, (preset, {}, {}), (NEVER_AND_RIGHT, NEVER_AND_LEFT, [])):
        what = "unused_parameters" + (" on a model whose grads were partly set beforehand" if pre else "")
        _names(res, want, what)
        for name, g in res["grads"].items():
            if name in pre:
                assert g is not None and torch.equal(g, pre[name]), f"{what} changed {name}.grad, which was set before"
            else:
                assert g is None, f"{what} left a .grad on {name}, which had none before"


@check("mode")
def test_mode_unchanged(sub):
    results = sub.probe(_unused, sub, [("probe", True, {}, 1), ("probe", False, {}, 1)])
    for res, training in zip(results, (True, False)):
        what = f"unused_parameters on a model in {'train' if training else 'eval'} mode"
        _names(res, NEVER_AND_RIGHT, what)
        assert not res["modes_changed"], f"{what} changed the training flag of {res['modes_changed']}"
