"""Hidden checks for 68_torch_compile.

Compiling is the expensive part (seconds per compile on a small CPU), so each check compiles as
little as it can: graph breaks and recompilations are counted with a Python callable backend
(Dynamo captures the graph, nothing is generated), and a single `aot_eager` compile per candidate
checks that compiled values and gradients equal eager ones. Expected values are computed here in
the judge, with the reference block loaded with the candidate's weights. The CUDA speed check times
with the judge's clock around the remote calls (`sub.timed`).
"""
import torch
from torch import nn

from grader.testing import assert_close, check, reference, requires_cuda

ref = reference(__file__)

DIM, HIDDEN = 8, 16

# A module with a data-dependent Python branch, built in the worker from this source (registered
# with linecache: the worker cannot read the exercise's files, Dynamo reads the traced code's).
BROKEN = """
import torch
from torch import nn


class Branching(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        if h.sum() > 0:
            return torch.relu(h)
        return h
"""
BROKEN_FILE = "<torch_compile_broken>"


def _broken():
    import linecache
    import types

    module = types.ModuleType("torch_compile_broken")
    module.__file__ = BROKEN_FILE
    linecache.cache[BROKEN_FILE] = (len(BROKEN), None, BROKEN.splitlines(True), BROKEN_FILE)
    exec(compile(BROKEN, BROKEN_FILE, "exec"), module.__dict__)
    return module.Branching()


def _expected(state, clip, *inputs, grad_weights=None):
    """The reference block with the candidate's weights: outputs, and with grad_weights the
    gradients of sum((out_i * g_i).sum()) for the parameters and the inputs."""
    block = ref.CompileFriendlyBlock(DIM, HIDDEN, clip)
    try:
        block.load_state_dict(state)
    except RuntimeError as exc:
        raise AssertionError(f"the block's parameters should be norm (LayerNorm), fc1 and fc2 (Linear): got "
                             f"{sorted(state)}") from exc
    xs = [x.clone().requires_grad_(grad_weights is not None) for x in inputs]
    outs = [block(x) for x in xs]
    if grad_weights is None:
        return [o.detach() for o in outs], None, None
    sum((o * g).sum() for o, g in zip(outs, grad_weights)).backward()
    return ([o.detach() for o in outs], {n: p.grad for n, p in block.named_parameters()}, [x.grad for x in xs])


def _error(exc):
    if isinstance(exc, NotImplementedError):
        raise exc
    return f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:300]}"


# ---------------------------------------------------------------- graph breaks

def _fullgraph(mod, x, clip):
    """Runs in the worker: compile the candidate's block ourselves with fullgraph=True and a
    counting backend (one graph, no break, or Dynamo raises)."""
    from grader import probes

    block = mod.CompileFriendlyBlock(8, 16, clip)
    graphs = []

    def counting(gm, example_inputs):
        graphs.append(len(gm.graph.nodes))
        return gm.forward

    try:
        out = torch.compile(block, backend=counting, fullgraph=True, dynamic=True)(x)
    except Exception as exc:                            # noqa: BLE001 - the error is the observation
        return {"error": _error(exc), "graphs": len(graphs)}
    return {"error": None, "graphs": len(graphs), "out": out.detach() if isinstance(out, torch.Tensor) else None,
            "state": {k: v.detach().clone() for k, v in probes.state_dict(block).items()}}


@check("api", weight=2, timeout_s=120)
def test_no_graph_breaks(sub):
    x = torch.randn(5, DIM) * 4                         # outputs far beyond clip: the clamp's branch is taken
    seen = sub.probe(_fullgraph, sub, x, 0.5)
    assert seen["error"] is None, (
        f"torch.compile(block, fullgraph=True) failed on the block: {seen['error']} (a graph break: .item(), print, "
        "or a Python `if` on tensor values in forward)")
    assert seen["graphs"] == 1, f"compiling the block gave {seen['graphs']} graphs, expected exactly one"
    assert isinstance(seen["out"], torch.Tensor), "the compiled block returned no tensor"
    (expected,), _, _ = _expected(seen["state"], 0.5, x)
    assert_close(seen["out"], expected, what="the compiled block's output")


def _compile_model_fullgraph(mod, x):
    """Runs in the worker: compile_model with a counting backend on a module torch.compile can
    capture whole, then on a module with a data-dependent branch (fullgraph=True must raise)."""
    graphs = []

    def counting(gm, example_inputs):
        graphs.append(len(gm.graph.nodes))
        return gm.forward

    good = nn.Sequential(nn.Linear(8, 8), nn.ReLU())
    try:
        mod.compile_model(good, backend=counting)(x)
        good_error = None
    except Exception as exc:                            # noqa: BLE001 - the error is the observation
        good_error = _error(exc)
    captured = len(graphs)
    try:
        mod.compile_model(_broken(), backend=counting)(x)
        broken_error = None
    except Exception as exc:                            # noqa: BLE001 - the error is the observation
        broken_error = [c.__name__ for c in type(exc).__mro__]
        if "NotImplementedError" in broken_error:
            raise
    return {"good_error": good_error, "captured": captured, "broken_error": broken_error}


@check("api", timeout_s=120)
def test_compile_model_fullgraph(sub):
    seen = sub.probe(_compile_model_fullgraph, sub, torch.randn(3, DIM))
    assert seen["good_error"] is None and seen["captured"] == 1, (
        f"compile_model(model, backend=counting_backend) should compile with the backend given: it called it "
        f"{seen['captured']} times ({seen['good_error'] or 'no error'})")
    assert seen["broken_error"] is not None, (
        "compile_model ran a model with a data-dependent `if` in forward without an error: with fullgraph=True "
        "torch.compile refuses graph breaks")
    assert "TorchDynamoException" in seen["broken_error"], (
        f"compile_model on a model with a graph break raised {seen['broken_error'][0]}, expected Dynamo's error")


# ---------------------------------------------------------------- values

def _compiled_values(mod, xs, grads, clip):
    """Runs in the worker: one aot_eager compile, three batch sizes, one backward over all three."""
    from grader import probes

    block = mod.CompileFriendlyBlock(8, 16, clip)
    state = {k: v.detach().clone() for k, v in probes.state_dict(block).items()}
    compiled = mod.compile_model(block, backend="aot_eager")
    xs = [x.requires_grad_(True) for x in xs]
    outs = [compiled(x) for x in xs]
    if not all(isinstance(o, torch.Tensor) for o in outs):
        return {"state": state, "outs": [probes.qualified_name(o) for o in outs]}
    sum((o * g).sum() for o, g in zip(outs, grads)).backward()
    params = probes.named_parameters(block)
    return {"state": state, "outs": [o.detach() for o in outs],
            "param_grads": {n: None if p.grad is None else p.grad.clone() for n, p in params.items()},
            "x_grads": [x.grad for x in xs]}


@check("value", weight=2, timeout_s=120)
def test_compiled_matches_eager(sub):
    xs = [torch.randn(n, DIM) * 2 for n in (3, 17, 64)]
    grads = [torch.randn(n, DIM) for n in (3, 17, 64)]
    seen = sub.probe(_compiled_values, sub, xs, grads, 1.5)
    outs, param_grads, x_grads = _expected(seen["state"], 1.5, *xs, grad_weights=grads)
    for got, want, n in zip(seen["outs"], outs, (3, 17, 64)):
        assert isinstance(got, torch.Tensor), f"the compiled block returned {got} for a batch of {n}"
        assert_close(got, want, atol=1e-5, rtol=1e-4, what=f"the aot_eager-compiled output for a batch of {n}")
    assert sorted(seen["param_grads"]) == sorted(param_grads), (
        f"the block's parameters are {sorted(seen['param_grads'])}, expected {sorted(param_grads)}")
    for name, want in param_grads.items():
        got = seen["param_grads"][name]
        assert got is not None, f"{name}.grad is None after backward through the compiled block"
        assert_close(got, want, atol=1e-5, rtol=1e-4, what=f"the gradient of {name} through the compiled block")
    for got, want, n in zip(seen["x_grads"], x_grads, (3, 17, 64)):
        assert got is not None, f"the input of the batch of {n} got no gradient through the compiled block"
        assert_close(got, want, atol=1e-5, rtol=1e-4, what=f"the input gradient for a batch of {n}")


def _eager(mod, x, clip):
    """Runs in the worker: the block's eager output (no compile), its registered state and clip."""
    from grader import probes

    block = mod.CompileFriendlyBlock(8, 16) if clip is None else mod.CompileFriendlyBlock(8, 16, clip)
    with torch.no_grad():
        out = block(x)
    return {"out": out if isinstance(out, torch.Tensor) else probes.qualified_name(out),
            "state": {k: v.detach().clone() for k, v in probes.state_dict(block).items()}}


@check("value")
def test_clamp_bounds(sub):
    for clip, scale in ((0.25, 3.0), (None, 40.0)):     # None: the default clip, 10
        x = torch.randn(6, DIM) * scale
        seen = sub.probe(_eager, sub, x, clip)
        out = seen["out"]
        assert isinstance(out, torch.Tensor), f"forward returned {out}, expected a tensor"
        bound = 10.0 if clip is None else clip
        (expected,), _, _ = _expected(seen["state"], bound, x)
        (unclipped,), _, _ = _expected(seen["state"], float("inf"), x)
        assert unclipped.abs().max() > bound    # these inputs do reach the clip
        what = "the default clip (10.0)" if clip is None else f"clip={clip}"
        assert out.abs().max() <= bound, f"with {what} the block returned values up to {out.abs().max():.4g}"
        assert_close(out, expected, what=f"the block's output with {what} (clamp(x + W2(gelu(W1(LayerNorm(x))))))")


# ---------------------------------------------------------------- recompilations

def _recompiles(mod, xs):
    """Runs in the worker: count the graphs a counting backend receives, and whether their sizes are
    symbolic (SymInt inputs), with compile_model's default `dynamic` over several batch sizes, then
    (after a reset) with dynamic=False on one batch."""
    from grader import probes

    graphs = {"default": [], "static": []}

    def counter(key):
        def counting(gm, example_inputs):
            graphs[key].append(any(isinstance(a, torch.SymInt) for a in example_inputs))
            return gm.forward
        return counting

    block = mod.CompileFriendlyBlock(8, 16, 1.0)
    state = {k: v.detach().clone() for k, v in probes.state_dict(block).items()}
    compiled = mod.compile_model(block, backend=counter("default"))
    with torch.no_grad():
        outs = [compiled(x) for x in xs]
    torch._dynamo.reset()
    static = mod.compile_model(mod.CompileFriendlyBlock(8, 16, 1.0), backend=counter("static"), dynamic=False)
    with torch.no_grad():
        static(xs[0])
    return {"state": state, "outs": [o if isinstance(o, torch.Tensor) else None for o in outs], **graphs}


@check("perf", timeout_s=120)
def test_recompilations(sub):
    batches = (3, 17, 64, 5)
    xs = [torch.randn(n, DIM) * 2 for n in batches]
    seen = sub.probe(_recompiles, sub, xs)
    assert 1 <= len(seen["default"]) <= 2, (
        f"compile_model(block) called with batch sizes {batches} compiled {len(seen['default'])} graphs; with dynamic "
        "shapes (the default dynamic=True) at most 2 (static shapes recompile for every new batch size)")
    assert seen["default"][0], (
        "compile_model(block) compiled its first graph for static shapes: the default dynamic=True should be "
        "passed on to torch.compile")
    assert seen["static"] == [False], (
        f"compile_model(block, dynamic=False) gave {len(seen['static'])} graph(s) "
        f"{'with symbolic sizes' if any(seen['static']) else ''}, expected one static graph: pass `dynamic` on")
    for got, want, n in zip(seen["outs"], _expected(seen["state"], 1.0, *xs)[0], batches):
        assert isinstance(got, torch.Tensor), f"the compiled block gave {got!r} for a batch of {n}"
        assert_close(got, want, what=f"the compiled block's output for a batch of {n}")


# ---------------------------------------------------------------- state

def _clean(mod):
    """Runs in the worker: clean_state_dict of a compiled block (compile_model's defaults: an unknown
    backend name raises here) and of a plain block, loaded strictly into fresh blocks through
    torch's own load_state_dict."""
    from grader import probes

    block = mod.CompileFriendlyBlock(8, 16)
    expected = {k: v.detach().clone() for k, v in probes.state_dict(block).items()}
    seen = {"expected": sorted(expected)}
    compiled = mod.compile_model(block)                # the default backend: never called, so never compiled
    for key, model in (("compiled", compiled), ("plain", block)):
        state = mod.clean_state_dict(model)
        if not isinstance(state, dict):
            seen[key] = {"type": probes.qualified_name(state)}
            continue
        fresh = mod.CompileFriendlyBlock(8, 16)
        try:
            probes.load_state_dict(fresh, dict(state), strict=True)
            error = None
        except Exception as exc:                        # noqa: BLE001 - the error is the observation
            error = _error(exc)
        loaded = probes.state_dict(fresh)
        seen[key] = {"type": "dict", "keys": sorted(map(str, state)), "error": error,
                     "equal": error is None and all(torch.equal(loaded[k], expected[k]) for k in expected)}
    return seen


@check("state")
def test_clean_state_dict(sub):
    seen = sub.probe(_clean, sub)
    assert seen["expected"] == ["fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight", "norm.bias", "norm.weight"], (
        f"the block's state_dict keys are {seen['expected']}: expected norm, fc1 and fc2 (LayerNorm, Linear, Linear)")
    for key, what in (("compiled", "a compiled block"), ("plain", "a block that was never compiled")):
        got = seen[key]
        assert got["type"] == "dict", f"clean_state_dict({what}) returned {got['type']}, expected a dict"
        assert got["keys"] == seen["expected"], (
            f"clean_state_dict({what}) has keys {got['keys']}, expected the block's own {seen['expected']}")
        assert got["error"] is None, f"clean_state_dict({what}) does not load strictly into a fresh block: {got['error']}"
        assert got["equal"], f"clean_state_dict({what}) holds other values than the block's"


# ---------------------------------------------------------------- CUDA speed

def _stack(mod, depth, dim):
    torch.manual_seed(0)
    return nn.Sequential(*[mod.CompileFriendlyBlock(dim, 4 * dim) for _ in range(depth)]).cuda().eval()


def _prepare(mod, depth, dim, batch):
    """Runs in the worker: build the stack, compile it with inductor and warm both up; the two
    models come back as handles for the timed calls."""
    model = _stack(mod, depth, dim)
    compiled = mod.compile_model(model, backend="inductor")
    x = torch.randn(batch, dim, device="cuda")
    with torch.no_grad():
        for _ in range(3):
            model(x)
            compiled(x)
    torch.cuda.synchronize()
    return model, compiled


def _forwards(model, batch, dim, runs):
    """Runs in the worker: `runs` forwards on one batch, then wait for the GPU (timed by the judge)."""
    x = torch.randn(batch, dim, device="cuda", generator=torch.Generator("cuda").manual_seed(68))
    with torch.no_grad():
        for _ in range(runs):
            out = model(x)
    torch.cuda.synchronize()
    return out.detach().float().cpu()  # judged too: a fast answer must also be the right one


@requires_cuda
@check("perf", timeout_s=300)
def test_cuda_compiled_not_slower(sub):
    model, compiled = sub.probe(_prepare, sub, 8, 1024, 4096)
    eager_s, compiled_s = [], []
    for _ in range(3):                                   # interleaved: load affects both alike
        eager_out, seconds = sub.timed(_forwards, model, 4096, 1024, 50)
        eager_s.append(seconds)
        compiled_out, seconds = sub.timed(_forwards, compiled, 4096, 1024, 50)
        compiled_s.append(seconds)
        assert_close(compiled_out, eager_out, rtol=1e-3, atol=1e-3, what="the timed compiled forward's output")
    eager, fast = sorted(eager_s)[1], sorted(compiled_s)[1]
    assert fast <= 1.05 * eager, (
        f"50 compiled (inductor) forwards of 8 blocks took {fast:.3f} s, eager {eager:.3f} s: the compiled block "
        "should be at least as fast (within 5 %)")
