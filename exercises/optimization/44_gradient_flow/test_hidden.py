"""Hidden checks for 44_gradient_flow.

Models are built in the worker, inside probes, by the candidate's `make_deep_mlp` (or, for the
checks of `layer_grad_norms` and `activation_stds` alone, by classes of this file that travel with
the probe). Gradients and parameters are read through torch's registries (`grader.probes`), never
through the candidate's `named_parameters`; hooks the probes need are registered with
`nn.Module`'s own methods. Expected values (the forward pass, gradient norms, stds) are computed
in the judge from the weights and gradients that come back.
"""
import math

import torch
import torch.nn.functional as F

from grader.testing import assert_close, check

ACTS = {"sigmoid": torch.sigmoid, "relu": torch.relu}


def _grad_norms(mod, depth, width, activation, residual, init, seed, batch):
    """Build the candidate's MLP under `seed`, run sum(model(x)).backward() on x ~ N(0, 1), and
    return every block weight's grad norm (read from torch's registries) and the output's shape."""
    from grader import probes

    torch.manual_seed(seed)
    model = mod.make_deep_mlp(depth, width, activation, residual, init)
    x = torch.randn(batch, width)
    out = model(x)
    if not isinstance(out, torch.Tensor):
        return {"error": f"the model returned {type(out).__name__}"}
    out.sum().backward()
    named = probes.named_parameters(model)
    norms = {}
    for i in range(depth):
        p = named.get(f"blocks.{i}.weight")
        norms[i] = None if p is None or p.grad is None else float(torch.linalg.vector_norm(p.grad.double()))
    return {"error": None, "shape": tuple(out.shape), "norms": norms}


def _ratio(seen, what):
    assert seen["error"] is None, f"{what}: {seen['error']}"
    norms = seen["norms"]
    missing = [i for i, v in norms.items() if v is None]
    assert not missing, f"{what}: blocks.{missing[0]}.weight has no grad after backward"
    first, last = norms[0], norms[len(norms) - 1]
    assert last > 0, f"{what}: the last block's weight grad is zero"
    return first / last


@check("grad", weight=2)
def test_sigmoid_stack_vanishes(sub):
    seen = sub.probe(_grad_norms, sub, 30, 64, "sigmoid", False, "default", 0, 64)
    what = "make_deep_mlp(30, 64, 'sigmoid', residual=False, init='default')"
    ratio = _ratio(seen, what)
    assert ratio < 1e-4, (f"{what}: ||grad blocks.0.weight|| / ||grad blocks.29.weight|| = {ratio:.3g}; a plain "
                          "sigmoid stack of 30 layers makes the first layer's gradient vanish (< 1e-4)")


@check("grad", weight=2)
def test_residual_relu_kaiming_flows(sub):
    ratios = []
    for seed in (0, 1, 2):
        seen = sub.probe(_grad_norms, sub, 30, 64, "relu", True, "kaiming", seed, 64)
        what = f"make_deep_mlp(30, 64, 'relu', residual=True, init='kaiming') (seed {seed})"
        ratios.append(_ratio(seen, what))
        assert 1e-4 <= ratios[-1] <= 1e2, (f"{what}: ||grad blocks.0.weight|| / ||grad blocks.29.weight|| = "
                                          f"{ratios[-1]:.3g}; a residual ReLU stack with Kaiming init keeps it within [1e-4, 1e2]")


def _forwards(mod, cases, batch):
    """For each case (depth, width, activation, residual): the model's structure, its state (read
    from torch's registries) and its output on x ~ N(0, 1)."""
    from grader import probes

    out = []
    for depth, width, activation, residual in cases:
        model = mod.make_deep_mlp(depth, width, activation, residual, "default")
        regs = object.__getattribute__(model, "_modules")
        blocks, head = regs.get("blocks"), regs.get("head")
        seen = {
            "blocks": None if blocks is None else probes.qualified_name(blocks),
            "linears": [] if blocks is None else [
                (issubclass(type(b), torch.nn.Linear), int(b.in_features), int(b.out_features))
                if issubclass(type(b), torch.nn.Linear) else probes.qualified_name(b)
                for b in object.__getattribute__(blocks, "_modules").values()],
            "head": None if head is None else (issubclass(type(head), torch.nn.Linear), tuple(head.weight.shape)),
            "params": sorted(probes.named_parameters(model)),
            "state": {n: p.detach().clone() for n, p in probes.named_parameters(model).items()},
        }
        x = torch.randn(batch, width)
        with torch.no_grad():
            y = model(x)
        seen["x"] = x
        seen["y"] = y.detach().clone() if isinstance(y, torch.Tensor) else type(y).__name__
        out.append(seen)
    return out


def _expected_forward(state, x, depth, activation, residual):
    h = x.double()
    f = ACTS[activation]
    for i in range(depth):
        z = f(F.linear(h, state[f"blocks.{i}.weight"].double(), state[f"blocks.{i}.bias"].double()))
        h = h + z if residual else z
    return F.linear(h, state["head.weight"].double(), state["head.bias"].double()).float()


CASES = [(3, 8, "relu", False), (4, 8, "relu", True), (3, 6, "sigmoid", False), (5, 6, "sigmoid", True)]


@check("value", weight=2)
def test_forward_structure(sub):
    for (depth, width, activation, residual), seen in zip(CASES, sub.probe(_forwards, sub, CASES, 5)):
        what = f"make_deep_mlp({depth}, {width}, {activation!r}, residual={residual}, init='default')"
        assert seen["blocks"] == "torch.nn.modules.container.ModuleList", \
            f"{what}: model.blocks is {seen['blocks']}, expected an nn.ModuleList"
        assert seen["linears"] == [(True, width, width)] * depth, \
            f"{what}: model.blocks holds {seen['linears']}, expected {depth} nn.Linear({width}, {width})"
        assert seen["head"] == (True, (1, width)), f"{what}: model.head is {seen['head']}, expected nn.Linear({width}, 1)"
        names = sorted([f"blocks.{i}.{k}" for i in range(depth) for k in ("weight", "bias")] + ["head.weight", "head.bias"])
        assert seen["params"] == names, f"{what}: the parameters are {seen['params']}, expected {names}"
        assert isinstance(seen["y"], torch.Tensor), f"{what}: the forward returned {seen['y']}"
        want = _expected_forward(seen["state"], seen["x"], depth, activation, residual)
        rule = "x + act(block(x))" if residual else "act(block(x))"
        assert_close(seen["y"], want, atol=1e-5, rtol=1e-4,
                     what=f"{what}: the output on a batch of 5 (each block computes {rule}, then the head)")


def _init(mod, width):
    """Block weights and biases of a default and a kaiming model (depth 3)."""
    from grader import probes

    out = {}
    for init in ("default", "kaiming"):
        named = probes.named_parameters(mod.make_deep_mlp(3, width, "relu", False, init))
        out[init] = {n: p.detach().clone() for n, p in named.items() if n.startswith("blocks.")}
    return out


@check("state")
def test_init_state(sub):
    width = 256
    seen = sub.probe(_init, sub, width)
    bound, default_std, kaiming_std = 1 / math.sqrt(width), 1 / math.sqrt(3 * width), math.sqrt(2 / width)
    for i in range(3):
        w, b = seen["kaiming"][f"blocks.{i}.weight"], seen["kaiming"][f"blocks.{i}.bias"]
        assert not b.any(), f"init='kaiming': blocks.{i}.bias is not all zeros"
        assert abs(w.std().item() / kaiming_std - 1) < 0.1, (
            f"init='kaiming': blocks.{i}.weight has std {w.std().item():.4f}, expected about sqrt(2 / {width}) = "
            f"{kaiming_std:.4f} (Kaiming for ReLU)")
        w, b = seen["default"][f"blocks.{i}.weight"], seen["default"][f"blocks.{i}.bias"]
        for name, t, tol in (("weight", w, 0.1), ("bias", b, 0.25)):
            inside = t.abs().max().item() <= bound
            assert inside and abs(t.std().item() / default_std - 1) < tol, (
                f"init='default': blocks.{i}.{name} is not nn.Linear's own init (uniform in +-1/sqrt({width}), std "
                f"{default_std:.4f}); got max |.| {t.abs().max().item():.4f}, std {t.std().item():.4f}")


def _stds(mod, seeds, width, depth, batch):
    """The candidate's activation_stds on its own relu MLP (no residual), and the same stds
    measured here with hooks of nn.Module's own, for both inits."""
    out = {}
    for init in ("kaiming", "default"):
        for seed in seeds:
            torch.manual_seed(seed)
            model = mod.make_deep_mlp(depth, width, "relu", False, init)
            x = torch.randn(batch, width)
            got = mod.activation_stds(model, x)
            kinds = type(got).__name__ if not isinstance(got, list) else [type(v).__name__ for v in got]
            mine = []
            blocks = object.__getattribute__(model, "_modules")["blocks"]
            handles = [torch.nn.Module.register_forward_hook(b, lambda m, a, o: mine.append(float(o.double().std())))
                       for b in object.__getattribute__(blocks, "_modules").values()]
            with torch.no_grad():
                model(x)
            for h in handles:
                h.remove()
            out[(init, seed)] = {"kinds": kinds, "got": [float(v) for v in got] if isinstance(got, list)
                                 and all(isinstance(v, float) for v in got) else None, "mine": mine}
    return out


@check("value", weight=2)
def test_activation_stds_kaiming_vs_default(sub):
    seeds, depth = (0, 1), 30
    seen = sub.probe(_stds, sub, seeds, 256, depth, 64)
    for seed in seeds:
        last = {}
        for init in ("kaiming", "default"):
            s = seen[(init, seed)]
            what = f"activation_stds on make_deep_mlp({depth}, 256, 'relu', residual=False, init={init!r}) (seed {seed})"
            assert s["got"] is not None, f"{what} returned {s['kinds']}, expected a list of {depth} floats"
            assert len(s["got"]) == depth == len(s["mine"]), f"{what}: {len(s['got'])} values, expected {depth}"
            for i, (g, m) in enumerate(zip(s["got"], s["mine"])):
                assert math.isclose(g, m, rel_tol=1e-3), \
                    f"{what}: value {i} is {g:.5g}, but the std of blocks[{i}]'s output is {m:.5g}"
            rel = [v / s["mine"][0] for v in s["mine"]]
            last[init] = rel[-1]
            if init == "kaiming":
                bad = [i for i, r in enumerate(rel) if not 0.1 <= r <= 10]
                assert not bad, (f"{what}: block {bad[0]}'s output std is {rel[bad[0]]:.3g} x the first block's; "
                                 "Kaiming init for ReLU keeps every layer within [0.1, 10] x")
        assert last["default"] * 3 <= last["kaiming"], (
            f"seed {seed}: last/first output std is {last['default']:.3g} with init='default' and "
            f"{last['kaiming']:.3g} with init='kaiming'; the default init should shrink it at least 3x more")


class _Net(torch.nn.Module):
    """A model of the shape make_deep_mlp builds (residual ReLU blocks and a head), from this file."""

    def __init__(self, depth, width):
        super().__init__()
        self.blocks = torch.nn.ModuleList(torch.nn.Linear(width, width) for _ in range(depth))
        self.head = torch.nn.Linear(width, 1)

    def forward(self, x):
        for block in self.blocks:
            x = x + torch.relu(block(x))
        return self.head(x)


def _hooks(m):
    names = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")
    return sum(len(object.__getattribute__(m, n)) for n in names)


def _stds_and_hooks(mod, state, x):
    from torch.nn.modules import module as tmod

    from grader import probes

    model = _Net(4, 6)
    probes.load_state_dict(model, state)
    first = object.__getattribute__(object.__getattribute__(model, "_modules")["blocks"], "_modules")["0"]
    fired = []
    mine = torch.nn.Module.register_forward_hook(first, lambda m, a, o: fired.append(1))
    before = {n: _hooks(m) for n, m in probes.modules(model)}
    global_before = len(tmod._global_forward_hooks) + len(tmod._global_forward_pre_hooks)
    got = mod.activation_stds(model, x)
    after = {n: _hooks(m) for n, m in probes.modules(model)}
    global_after = len(tmod._global_forward_hooks) + len(tmod._global_forward_pre_hooks)
    kept = mine.id in object.__getattribute__(first, "_forward_hooks")
    mine.remove()
    ok = isinstance(got, list) and all(isinstance(v, float) for v in got)
    return {"got": [float(v) for v in got] if ok else None, "kind": repr(got)[:80], "before": before, "after": after,
            "globals": (global_before, global_after), "kept": kept, "fired": len(fired)}


def _net_state(depth=4, width=6):
    torch.manual_seed(44)
    return _Net(depth, width).state_dict(), torch.randn(9, width)


@check("value")
def test_activation_stds_values(sub):
    state, x = _net_state()
    seen = sub.probe(_stds_and_hooks, sub, state, x)
    what = "activation_stds on a 4-block residual ReLU model (x + relu(blocks[i](x)))"
    assert seen["got"] is not None, f"{what} returned {seen['kind']}, expected a list of 4 floats"
    h, want = x, []
    for i in range(4):
        z = F.linear(h, state[f"blocks.{i}.weight"], state[f"blocks.{i}.bias"])
        want.append(z.std().item())
        h = h + torch.relu(z)
    assert len(seen["got"]) == 4, f"{what}: {len(seen['got'])} values, expected one per block (4)"
    for i, (g, w) in enumerate(zip(seen["got"], want)):
        assert math.isclose(g, w, rel_tol=1e-3), \
            f"{what}: value {i} is {g:.5g}, expected the std of blocks[{i}]'s output {w:.5g}"


@check("state")
def test_no_hooks_remain(sub):
    state, x = _net_state()
    seen = sub.probe(_stds_and_hooks, sub, state, x)
    what = "activation_stds"
    assert seen["got"] is not None and len(seen["got"]) == 4, f"{what} returned {seen['kind']}, expected 4 floats"
    assert seen["fired"] >= 1, f"{what} never ran the model's forward"
    left = [n or "the model" for n in seen["after"] if seen["after"][n] != seen["before"][n]]
    assert not left, f"{what}: after it returned, the hooks of {left} are not what they were before the call"
    assert seen["globals"][0] == seen["globals"][1], f"{what} left a global module hook registered"
    assert seen["kept"], f"{what} removed a forward hook it had not registered (one the caller put on blocks[0])"


class _Mixed(torch.nn.Module):
    """Weights of several kinds: used, frozen, unused, zero-gradient, and a `weight_scale` that is not a weight."""

    def __init__(self):
        super().__init__()
        self.inp = torch.nn.Linear(4, 5)
        self.norm = torch.nn.LayerNorm(5)
        self.frozen = torch.nn.Linear(5, 5)
        self.frozen.weight.requires_grad_(False)
        self.unused = torch.nn.Linear(5, 5)
        self.silent = torch.nn.Linear(5, 5)
        self.weight_scale = torch.nn.Parameter(torch.tensor(1.5))
        self.weight = torch.nn.Parameter(torch.randn(2, 5))

    def forward(self, x):
        h = self.frozen(self.norm(self.inp(x))) * self.weight_scale + 0 * self.silent(x[:, :1].expand(-1, 5))
        return F.linear(h, self.weight)


def _grad_norm_probe(mod, x):
    from grader import probes

    torch.manual_seed(7)
    model = _Mixed()
    model(x).pow(2).sum().backward()
    grads = {n: None if p.grad is None else p.grad.detach().clone() for n, p in probes.named_parameters(model).items()}
    got = mod.layer_grad_norms(model)
    after = {n: None if p.grad is None else p.grad.detach().clone() for n, p in probes.named_parameters(model).items()}
    changed = sorted(n for n in grads if (grads[n] is None) != (after[n] is None)
                     or (grads[n] is not None and not torch.equal(grads[n], after[n])))
    if not isinstance(got, dict):
        return {"kind": type(got).__name__, "got": None, "grads": grads, "changed": changed}
    return {"kind": "dict", "got": {str(k): (type(v).__name__, float(v) if isinstance(v, float) else None)
                                    for k, v in got.items()}, "grads": grads, "changed": changed}


@check("value", weight=2)
def test_layer_grad_norms_keys_and_floats(sub):
    seen = sub.probe(_grad_norm_probe, sub, torch.randn(6, 4))
    assert seen["got"] is not None, f"layer_grad_norms returned a {seen['kind']}, expected a dict name -> float"
    want = {n: torch.linalg.vector_norm(g.double()).item() for n, g in seen["grads"].items()
            if n.endswith("weight") and g is not None}
    assert sorted(seen["got"]) == sorted(want), (
        f"layer_grad_norms returned the keys {sorted(seen['got'])}, expected {sorted(want)}: every parameter whose "
        "name ends in 'weight' and has a .grad (not frozen or unused ones, not 'weight_scale', not biases)")
    for name, (kind, value) in seen["got"].items():
        assert value is not None, f"layer_grad_norms[{name!r}] is a {kind}, expected a Python float"
        assert math.isclose(value, want[name], rel_tol=1e-5, abs_tol=1e-7), \
            f"layer_grad_norms[{name!r}] is {value:.6g}, expected the L2 norm of its .grad, {want[name]:.6g}"
    assert not seen["changed"], f"layer_grad_norms changed the .grad of {seen['changed']}; it only reads them"


def _kaiming_calls(mod, depth, width):
    from grader import probes

    with probes.spy("torch.nn.init.kaiming_uniform_", "torch.nn.init.kaiming_normal_", module=mod) as seen:
        model = mod.make_deep_mlp(depth, width, "relu", False, "kaiming")
    named = probes.named_parameters(model)
    last = {}
    for target, args, kwargs in seen.calls:
        t = args[0] if args else kwargs.get("tensor")
        if not isinstance(t, torch.Tensor):
            continue
        nonlin = kwargs["nonlinearity"] if "nonlinearity" in kwargs else (args[3] if len(args) > 3 else "leaky_relu")
        for i in range(depth):
            w = named.get(f"blocks.{i}.weight")
            if w is not None and t.data_ptr() == w.data_ptr() and t.shape == w.shape:
                last[i] = (target.rsplit(".", 1)[-1], str(nonlin))
    x = torch.randn(3, width)
    with torch.no_grad():
        y = model(x)
    state = {n: p.detach().clone() for n, p in named.items()}
    return last, state, x, y.detach().clone() if isinstance(y, torch.Tensor) else type(y).__name__


@check("api")
def test_kaiming_relu_spy(sub):
    sub.static.require_implemented("make_deep_mlp")
    depth = 4
    last, state, x, y = sub.probe(_kaiming_calls, sub, depth, 16)
    what = f"make_deep_mlp({depth}, 16, 'relu', residual=False, init='kaiming')"
    assert isinstance(y, torch.Tensor) and all(f"blocks.{i}.bias" in state for i in range(depth)) and \
        "head.weight" in state and "head.bias" in state, f"{what}: not a model of the contract's layout"
    assert_close(y, _expected_forward(state, x, depth, "relu", False), atol=1e-5, rtol=1e-4,
                 what=f"{what}: the output on a batch of 3")
    assert not any(state[f"blocks.{i}.bias"].any() for i in range(depth)), f"{what}: the block biases are not zero"
    for i in range(depth):
        assert i in last, f"init='kaiming': no torch.nn.init.kaiming_* call initialised blocks.{i}.weight"
        fn, nonlin = last[i]
        assert nonlin == "relu", (f"init='kaiming': the last {fn} call on blocks.{i}.weight used nonlinearity="
                                  f"{nonlin!r}, expected 'relu'")
