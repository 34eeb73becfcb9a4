"""Hidden checks for 63_gan_alternating_step.

G (Linear-LeakyReLU-Linear, latent 3 -> 4 features), D (Linear-LeakyReLU-Linear to one logit,
optionally flattened to (N,)) and torch's SGD optimizers (momentum 0.9) are built inside a probe from
weights and data the judge made. Hooks registered through torch's own classes record, for every
forward of G and D, whether all their submodules were in training mode, and, at `opt_d`'s own step
pre-hook, whether the D step's backward reached G's parameters. The probe returns plain data;
expected values come from the judge's own step (`_reference`), written here, not imported.
"""
import torch
import torch.nn.functional as F

from grader.testing import assert_close, check, requires_cuda

FORBIDDEN = ["torch.nn.BCELoss", "torch.nn.functional.binary_cross_entropy", "torch.sigmoid",
             "torch.nn.functional.sigmoid", "torch.special.expit", "torch.nn.Sigmoid"]
RUNTIME_FORBIDDEN = ["torch.sigmoid", "torch.Tensor.sigmoid", "torch.nn.functional.sigmoid", "torch.special.expit",
                     "torch.nn.functional.binary_cross_entropy", "torch.nn.BCELoss.forward", "torch.nn.Sigmoid.forward"]
# sigmoid's and BCE's kernels, refused at torch's dispatcher when the candidate's code reaches them
# (probes.forbid_forward_ops: a name built at run time, a kept reference, torch.ops.aten or the
# in-place and out= forms meet them there); torch's own backward of the allowed losses computes
# sigmoid, which runs as usual.
FORBIDDEN_OPS = ("sigmoid", "sigmoid_", "sigmoid.out", "binary_cross_entropy", "binary_cross_entropy.out")


def _models(flat):
    nn = torch.nn
    G = nn.Sequential(nn.Linear(3, 8), nn.LeakyReLU(0.2), nn.Linear(8, 4))
    layers = [nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1)]
    D = nn.Sequential(*layers, nn.Flatten(0)) if flat else nn.Sequential(*layers)
    return G, D


def _spec(seed=63, n=6, m=6, **extra):
    g = torch.Generator().manual_seed(seed)
    spec = {"lr_g": 0.1, "lr_d": 0.1, "calls": 1, "flat": False, "stale": False, "eval_first": False,
            "device": "cpu", "catch": False, "forbid": False}
    spec.update(extra)
    spec["g_state"] = {"0.weight": torch.randn(8, 3, generator=g) * 0.6, "0.bias": torch.randn(8, generator=g) * 0.1,
                       "2.weight": torch.randn(4, 8, generator=g) * 0.4, "2.bias": torch.randn(4, generator=g) * 0.1}
    spec["d_state"] = {"0.weight": torch.randn(8, 4, generator=g) * 0.6, "0.bias": torch.randn(8, generator=g) * 0.1,
                       "2.weight": torch.randn(1, 8, generator=g) * 0.5, "2.bias": torch.randn(1, generator=g) * 0.1}
    spec["real"] = [torch.randn(n, 4, generator=g) + 1.0 for _ in range(spec["calls"])]
    spec["z"] = [torch.randn(m, 3, generator=g) for _ in range(spec["calls"])]
    spec["stale_g"] = {k: torch.randn(v.shape, generator=g) for k, v in spec["g_state"].items()}
    spec["stale_d"] = {k: torch.randn(v.shape, generator=g) for k, v in spec["d_state"].items()}
    return spec


def _run(mod, spec):
    """Runs in the worker: build G, D and their optimizers, call gan_step `calls` times while hooks
    record the modes and what the D step did to G's grads, and return plain data."""
    import torch

    from grader import probes

    G, D = _models(spec["flat"])
    probes.load_state_dict(G, spec["g_state"])
    probes.load_state_dict(D, spec["d_state"])
    dev = spec["device"]
    torch.nn.Module.to(G, dev)
    torch.nn.Module.to(D, dev)
    g_params, d_params = probes.named_parameters(G), probes.named_parameters(D)
    if spec["stale"]:
        for name, p in g_params.items():
            p.grad = spec["stale_g"][name].to(dev)
        for name, p in d_params.items():
            p.grad = spec["stale_d"][name].to(dev)
    opt_g = torch.optim.SGD(list(g_params.values()), lr=spec["lr_g"], momentum=0.9)
    opt_d = torch.optim.SGD(list(d_params.values()), lr=spec["lr_d"], momentum=0.9)
    events = []

    def training(module):
        return all(m.training for _, m in probes.modules(module))

    def clear(params):
        if dev == "meta":
            return all(p.grad is None for p in params)
        return all(p.grad is None or not bool(p.grad.any()) for p in params)

    torch.nn.Module.register_forward_pre_hook(G, lambda mod_, args: events.append(("G", training(mod_))))
    torch.nn.Module.register_forward_pre_hook(D, lambda mod_, args: events.append(("D", training(mod_))))
    def graph(params):
        return any(p.grad is not None and (p.grad.requires_grad or p.grad.grad_fn is not None) for p in params)

    torch.optim.Optimizer.register_step_pre_hook(
        opt_d, lambda o, a, k: events.append(("step_d", clear(g_params.values()), graph(d_params.values()))))
    torch.optim.Optimizer.register_step_pre_hook(
        opt_g, lambda o, a, k: events.append(("step_g", None, graph(g_params.values()))))
    if spec["eval_first"]:
        torch.nn.Module.eval(G)
        torch.nn.Module.eval(D)
    outs, after, error, called, reached = [], [], None, [], []
    for real, z in zip(spec["real"], spec["z"]):
        try:
            if spec["forbid"]:
                with probes.forbid(*spec["forbid"], module=mod) as seen:
                    try:
                        out, ops = probes.forbid_forward_ops(mod.gan_step, FORBIDDEN_OPS, G, D, opt_g, opt_d,
                                                             real.to(dev), z.to(dev))
                        reached += probes.at_dispatcher(ops)
                    finally:
                        called = seen.names() + reached
            else:
                out = mod.gan_step(G, D, opt_g, opt_d, real.to(dev), z.to(dev))
        except NotImplementedError:
            raise
        except Exception as exc:
            if not spec["catch"]:
                raise
            error = f"{type(exc).__name__}: {exc}"[:300]
            break
        ok = isinstance(out, (tuple, list)) and len(out) == 2 and all(isinstance(v, float) for v in out)  # numpy.float64 too
        outs.append({"kind": type(out).__name__ if not isinstance(out, (tuple, list)) else
                     f"{type(out).__name__} of {[type(v).__name__ for v in out]}",
                     "values": [float(v) for v in out] if ok else None})
        after.append(None if dev == "meta" else {
            "G": {k: p.detach().to("cpu").clone() for k, p in g_params.items()},
            "D": {k: p.detach().to("cpu").clone() for k, p in d_params.items()}})
    grads = None if dev == "meta" else {k: None if p.grad is None else p.grad.detach().to("cpu").clone()
                                        for k, p in g_params.items()}
    return {"error": error, "outs": outs, "after": after, "grads": grads, "events": events, "forbidden": called,
            "where": sorted({p.device.type for p in list(g_params.values()) + list(d_params.values())})}


def _reference(spec):
    """The judge's step: D on the detached fake (sum of the two BCE terms), then G through the updated D."""
    G, D = _models(spec["flat"])
    G.load_state_dict(spec["g_state"])
    D.load_state_dict(spec["d_state"])
    opt_g = torch.optim.SGD(G.parameters(), lr=spec["lr_g"], momentum=0.9)
    opt_d = torch.optim.SGD(D.parameters(), lr=spec["lr_d"], momentum=0.9)
    losses, after = [], []
    for real, z in zip(spec["real"], spec["z"]):
        fake = G(z)
        opt_d.zero_grad()
        r, f = D(real), D(fake.detach())
        d_loss = F.binary_cross_entropy_with_logits(r, torch.ones_like(r)) + \
            F.binary_cross_entropy_with_logits(f, torch.zeros_like(f))
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        out = D(fake)
        g_loss = F.binary_cross_entropy_with_logits(out, torch.ones_like(out))
        g_loss.backward()
        opt_g.step()
        losses.append([d_loss.item(), g_loss.item()])
        after.append({"G": {k: p.detach().clone() for k, p in G.named_parameters()},
                      "D": {k: p.detach().clone() for k, p in D.named_parameters()}})
    return {"losses": losses, "after": after, "grads": {k: p.grad.clone() for k, p in G.named_parameters()}}


def _ran(seen, spec, what):
    assert seen["error"] is None, f"{what} raised {seen['error']}"
    assert len(seen["after"]) == spec["calls"], f"{what}: gan_step did not return"


def _same(seen, want, what, nets=("G", "D"), atol=1e-6):
    for i, (got, ref) in enumerate(zip(seen["after"], want["after"])):
        for net in nets:
            for name, p in ref[net].items():
                assert_close(got[net][name], p, atol=atol, rtol=1e-5,
                             what=f"{what}: {net}'s {name} after call {i + 1} (expected the reference step's)")


@check("value", weight=2)
def test_d_step_matches_reference(sub):
    spec = _spec(lr_g=0.0)
    seen = sub.probe(_run, sub, spec)
    what = "gan_step with opt_g's lr 0 (only the D step moves anything)"
    _ran(seen, spec, what)
    _same(seen, _reference(spec), what, nets=("D",))
    spec = _spec(lr_d=0.0, seed=64)
    seen = sub.probe(_run, sub, spec)
    what = "gan_step with opt_d's lr 0 (only the G step moves anything)"
    _ran(seen, spec, what)
    _same(seen, _reference(spec), what, nets=("G",))


@check("grad", weight=2)
def test_g_grads_match_reference(sub):
    for stale in (False, True):
        spec = _spec(stale=stale, seed=65 + stale)
        seen = sub.probe(_run, sub, spec)
        what = "gan_step" + (" called with stale .grad values left on every parameter of G and D" if stale else "")
        _ran(seen, spec, what)
        if not stale:
            at_d = [e[1] for e in seen["events"] if e[0] == "step_d"]
            assert at_d, f"{what}: opt_d.step() was never called"
            assert all(at_d), (f"{what}: when opt_d.step() ran, G's parameters held gradients: the D step's backward "
                               "reached G (use G(z).detach() for the D step)")
            graphs = [e[0] for e in seen["events"] if e[0].startswith("step") and e[2]]
            assert not graphs, (f"{what}: the grads {graphs[0].replace('step_', 'opt_')}.step() used carry an autograd "
                                "graph: a plain backward() (no create_graph)")
        want = _reference(spec)
        for name, g in want["grads"].items():
            got = seen["grads"][name]
            assert got is not None, f"{what}: G's {name}.grad is None after return; it should hold the G step's gradient"
            assert_close(got, g, atol=1e-6, rtol=1e-5,
                         what=f"{what}: G's {name}.grad after return (the gradient of g_loss alone)")
        _same(seen, want, what)


@check("value", weight=2)
def test_two_consecutive_steps(sub):
    spec = _spec(calls=2)
    seen = sub.probe(_run, sub, spec)
    what = "two consecutive gan_step calls (SGD with momentum 0.9, both lr 0.1)"
    _ran(seen, spec, what)
    want = _reference(spec)
    _same(seen, want, what)
    for i, (out, ref) in enumerate(zip(seen["outs"], want["losses"])):
        assert out["values"] is not None, f"{what}: call {i + 1} returned a {out['kind']}, expected two Python floats"
        assert_close(torch.tensor(out["values"]), torch.tensor(ref), atol=1e-6, rtol=1e-5,
                     what=f"{what}: (d_loss, g_loss) returned by call {i + 1}")


@check("dtype")
def test_labels_and_output_shapes(sub):
    for flat, n, m in ((True, 6, 5), (False, 5, 7)):
        spec = _spec(flat=flat, n=n, m=m, seed=70 + n)
        seen = sub.probe(_run, sub, spec)
        shape = f"({n},)" if flat else f"({n}, 1)"
        what = f"gan_step with {n} real samples, {m} latent vectors and a D whose output has shape {shape}"
        _ran(seen, spec, what)
        want = _reference(spec)
        _same(seen, want, what)
        out = seen["outs"][0]
        assert out["values"] is not None, f"{what} returned a {out['kind']}, expected two Python floats"
        assert_close(torch.tensor(out["values"]), torch.tensor(want["losses"][0]), atol=1e-6, rtol=1e-5,
                     what=f"{what}: (d_loss, g_loss)")
    # CPU fallback of the CUDA check: on the meta device, labels made on the CPU fail inside the loss
    # before any backward; a correct step reaches opt_d.step() (reading a meta loss back fails later).
    spec = _spec(device="meta", catch=True)
    seen = sub.probe(_run, sub, spec)
    what = "gan_step with G, D, real and z on the meta device"
    assert any(e[0] == "step_d" for e in seen["events"]), (
        f"{what} never reached opt_d.step() ({seen['error'] or 'no error'}): create the labels on real.device")
    assert seen["where"] == ["meta"], f"{what}: the parameters moved to {seen['where']}"


@check("api")
def test_forbidden_apis(sub):
    sub.static.require_implemented("gan_step")
    spec = _spec(forbid=RUNTIME_FORBIDDEN, catch=True)
    seen = sub.probe(_run, sub, spec)
    assert not seen["forbidden"], (f"gan_step called {sorted(set(seen['forbidden']))} at run time: stay in logit "
                                   "space (binary_cross_entropy_with_logits, logsigmoid or softplus)")
    _ran(seen, spec, "gan_step under the runtime guard")
    _same(seen, _reference(spec), "gan_step under the runtime guard")
    for api in FORBIDDEN:
        lines = sub.static.uses(api)
        assert not lines, (f"{api} is used (line {lines[0]}): D outputs logits; use binary_cross_entropy_with_logits, "
                           "logsigmoid or softplus")


@check("mode")
def test_train_mode(sub):
    spec = _spec(eval_first=True)
    seen = sub.probe(_run, sub, spec)
    what = "gan_step with G and D put in eval mode before the call"
    _ran(seen, spec, what)
    for net in ("G", "D"):
        modes = [e[1] for e in seen["events"] if e[0] == net]
        assert modes, f"{what}: {net} never ran a forward"
        assert all(modes), f"{what}: {net} (or one of its submodules) was in eval mode during a forward: call {net}.train()"


@check("dtype")
def test_returns_floats(sub):
    spec = _spec(seed=80)
    seen = sub.probe(_run, sub, spec)
    what = "gan_step"
    _ran(seen, spec, what)
    out = seen["outs"][0]
    assert out["values"] is not None, f"{what} returned a {out['kind']}, expected a tuple of two Python floats"
    d_loss, g_loss = _reference(spec)["losses"][0]
    assert_close(out["values"][0], d_loss, atol=1e-6, rtol=1e-5,
                 what=f"{what}: d_loss (the sum of the real and fake BCE terms, before the D step)")
    assert_close(out["values"][1], g_loss, atol=1e-6, rtol=1e-5,
                 what=f"{what}: g_loss (fake labelled 1, through the updated D)")


@requires_cuda
@check("device")
def test_cuda_matches_cpu(sub):
    spec = _spec(device="cuda", calls=2, flat=True, m=5)
    seen = sub.probe(_run, sub, spec)
    what = "gan_step with G, D, real and z on CUDA"
    _ran(seen, spec, what)
    assert seen["where"] == ["cuda"], f"{what}: the parameters moved to {seen['where']}"
    want = _reference(spec)
    _same(seen, want, what, atol=1e-5)
    for i, (out, ref) in enumerate(zip(seen["outs"], want["losses"])):
        assert out["values"] is not None, f"{what}: call {i + 1} returned a {out['kind']}, expected two Python floats"
        assert_close(torch.tensor(out["values"]), torch.tensor(ref), atol=1e-5, rtol=1e-5,
                     what=f"{what}: (d_loss, g_loss) of call {i + 1}")

