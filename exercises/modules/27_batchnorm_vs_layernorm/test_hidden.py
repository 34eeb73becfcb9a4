"""Hidden checks for 27_batchnorm_vs_layernorm.

Expected values come from `nn.BatchNorm1d` and `F.layer_norm` in the judge. Probes build the
candidate's `MyBatchNorm1d`, load states with `nn.Module.load_state_dict`, switch modes with
`nn.Module.train` and read parameters and buffers from torch's registries (`probes.state_dict`,
`probes.named_parameters`), never through methods the candidate's class could override.
"""
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from grader import probes
from grader.testing import assert_close, assert_shape, check, requires_cuda

KEYS = ["bias", "num_batches_tracked", "running_mean", "running_var", "weight"]
STATIC_FORBIDDEN = [
    "torch.nn.functional.batch_norm", "torch.batch_norm", "torch.native_batch_norm",
    "torch.nn.functional.layer_norm", "torch.layer_norm", "torch.native_layer_norm",
    "torch.nn.functional.instance_norm", "torch.instance_norm", "torch.nn.functional.group_norm",
    "torch.group_norm", "torch.nn.BatchNorm1d", "torch.nn.BatchNorm2d", "torch.nn.BatchNorm3d",
    "torch.nn.LazyBatchNorm1d", "torch.nn.SyncBatchNorm", "torch.nn.LayerNorm", "torch.nn.GroupNorm",
    "torch.nn.InstanceNorm1d", "torch.nn.modules.batchnorm", "torch.nn.modules.normalization",
    "torch.nn.modules.instancenorm", "torch.ops.aten",
]
RUNTIME_FORBIDDEN = (
    "torch.nn.functional.batch_norm", "torch.batch_norm", "torch.native_batch_norm",
    "torch.nn.functional.layer_norm", "torch.layer_norm", "torch.native_layer_norm",
    "torch.nn.functional.instance_norm", "torch.nn.functional.group_norm", "torch.group_norm",
)
# Their kernels, refused at torch's dispatcher (probes.forbid_ops): a reference kept in a list, a
# name built at run time or torch.ops.aten reaches them all the same.
FORBIDDEN_OPS = ("batch_norm", "_batch_norm_impl_index", "native_batch_norm", "_native_batch_norm_legit",
                 "_native_batch_norm_legit_no_training", "layer_norm", "native_layer_norm", "instance_norm",
                 "group_norm", "native_group_norm")


def _batches(shape, steps, seed):
    """Batches with per-channel shifts and scales, so that mean and variance both matter."""
    g = torch.Generator().manual_seed(seed)
    c = shape[1]
    view = [1, c] + [1] * (len(shape) - 2)
    shift, scale = 3 * torch.randn(c, generator=g), 0.5 + 2 * torch.rand(c, generator=g)
    return [torch.randn(*shape, generator=g) * scale.view(view) + shift.view(view) for _ in range(steps)]


def _state(c, seed=27):
    g = torch.Generator().manual_seed(seed)
    return {"weight": torch.randn(c, generator=g), "bias": torch.randn(c, generator=g),
            "running_mean": torch.randn(c, generator=g), "running_var": 0.5 + torch.rand(c, generator=g),
            "num_batches_tracked": torch.tensor(7)}


def _bn_run(mod, c, kwargs, state, batches, train=True):
    """Probe: MyBatchNorm1d(c, **kwargs), optionally loaded with `state`, run on each batch in one
    mode; outputs, and the registered state before and after."""
    from torch import nn

    model = mod.MyBatchNorm1d(c, **kwargs)
    seen = {"init": probes.state_dict(model), "params": sorted(probes.named_parameters(model)),
            "buffers": sorted(k for k, _ in nn.Module.named_buffers(model))}
    if state is not None:
        seen["load"] = probes.load_state_dict(model, state, strict=False)
    nn.Module.train(model, train)
    seen["before"] = probes.state_dict(model)
    seen["outs"] = [model(x).detach() for x in batches]
    seen["after"] = probes.state_dict(model)
    return seen


def _expected(c, kwargs, state, batches, train=True):
    bn = nn.BatchNorm1d(c, **kwargs)
    if state is not None:
        bn.load_state_dict(state)
    bn.train(train)
    with torch.no_grad():
        outs = [bn(x) for x in batches]
    return outs, bn.state_dict()


def _loaded(seen):
    missing, unexpected = seen["load"]
    assert not missing and not unexpected, \
        f"an nn.BatchNorm1d state_dict does not load: missing {missing}, unexpected {unexpected}"


TRAIN_CASES = {
    "default": [((8, 4), {}, False), ((5, 3, 6), {}, False)],
    "affine": [((6, 4), {"eps": 0.5}, True), ((4, 5, 3), {"momentum": 0.3}, True)],
}


@check("value", weight=2)
@pytest.mark.parametrize("case", list(TRAIN_CASES), ids=list(TRAIN_CASES))
def test_train_outputs_match(sub, case):
    for k, (shape, kwargs, affine) in enumerate(TRAIN_CASES[case]):
        c = shape[1]
        state = _state(c) if affine else None
        batches = _batches(shape, 2, seed=10 * len(case) + k)
        seen = sub.probe(_bn_run, sub, c, kwargs, state, batches)
        if affine:
            _loaded(seen)
        expected, _ = _expected(c, kwargs, state, batches)
        for i, (got, want) in enumerate(zip(seen["outs"], expected)):
            assert_close(got, want, atol=1e-5, rtol=1e-4,
                         what=f"train-mode output #{i + 1} of MyBatchNorm1d({c}, {kwargs}) for {shape} input"
                              + (" (weight and bias loaded)" if affine else ""))


STATE_CASES = [((8, 4), {}), ((3, 5, 4), {"momentum": 0.3})]


@check("state", weight=2)
def test_running_stats_after_training(sub):
    for k, (shape, kwargs) in enumerate(STATE_CASES):
        c = shape[1]
        batches = _batches(shape, 5, seed=k + 1)
        seen = sub.probe(_bn_run, sub, c, kwargs, None, batches)
        assert sorted(seen["init"]) == KEYS, f"registered state is {sorted(seen['init'])}, nn.BatchNorm1d has {KEYS}"
        assert seen["params"] == ["bias", "weight"], f"the parameters are {seen['params']}: only weight and bias"
        for key, want in nn.BatchNorm1d(c, **kwargs).state_dict().items():
            got = seen["init"][key]
            assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape) and torch.equal(got, want), \
                f"at construction {key} is {got.dtype} {tuple(got.shape)} {got.tolist()}, expected {want.dtype} " \
                f"{tuple(want.shape)} {want.tolist()}"
        _, want = _expected(c, kwargs, None, batches)
        got = seen["after"]
        for key in ("running_mean", "running_var"):
            assert_close(got[key], want[key], atol=1e-5, rtol=1e-5,
                         what=f"{key} after 5 train steps on {shape} batches, {kwargs or 'default momentum'}")
        assert got["num_batches_tracked"].dtype == torch.long and int(got["num_batches_tracked"]) == 5, \
            f"num_batches_tracked after 5 train steps is {got['num_batches_tracked']!r}, expected tensor(5) (int64)"

    c, kwargs = 4, {}

    def load(mod, state):
        model = mod.MyBatchNorm1d(c, **kwargs)
        return probes.load_state_dict(model, state, strict=False), probes.state_dict(model)

    trained = nn.BatchNorm1d(c, **kwargs)
    trained.load_state_dict(_state(c))
    (missing, unexpected), loaded = sub.probe(load, sub, trained.state_dict())
    assert not missing and not unexpected, \
        f"nn.BatchNorm1d's state_dict does not load with strict=True: missing {missing}, unexpected {unexpected}"
    for key, value in trained.state_dict().items():
        assert torch.equal(loaded[key], value), f"{key} did not take the loaded value"


@check("mode", weight=2)
def test_eval_uses_running_stats(sub):
    c = 4
    state = _state(c)
    batches = _batches((6, c), 1, seed=5) + _batches((1, c), 1, seed=6) + _batches((3, c, 5), 1, seed=7)
    seen = sub.probe(_bn_run, sub, c, {}, state, batches, False)
    _loaded(seen)
    expected, _ = _expected(c, {}, state, batches, train=False)
    for x, got, want in zip(batches, seen["outs"], expected):
        assert_close(got, want, atol=1e-5, rtol=1e-4,
                     what=f"eval-mode output for {tuple(x.shape)} input (running stats loaded)")
    for key in KEYS:
        before, after = seen["before"][key], seen["after"].get(key)
        assert after is not None and torch.equal(before, after), f"an eval-mode forward changed {key}"


@check("value")
def test_batch_of_one_raises(sub):
    def train_on(mod, shapes):
        from torch import nn

        results = []
        for shape in shapes:
            model = mod.MyBatchNorm1d(shape[1])
            nn.Module.train(model, True)
            try:
                out = model(torch.randn(*shape) + 1.0)
            except ValueError:
                results.append("ValueError")
            except NotImplementedError:
                raise
            except Exception as exc:  # noqa: BLE001 - reported as data
                results.append(f"{type(exc).__name__}")
            else:
                results.append(out.detach())
        return results

    one, one_step, one_long, two = sub.probe(train_on, sub, [(1, 4), (1, 4, 1), (1, 4, 5), (2, 4)])
    assert one == "ValueError", f"a (1, 4) batch in train mode gave {_what(one)}: raise ValueError like nn.BatchNorm1d"
    assert one_step == "ValueError", f"a (1, 4, 1) batch in train mode gave {_what(one_step)}: one value per channel, raise ValueError"
    for shape, result in (((1, 4, 5), one_long), ((2, 4), two)):
        assert isinstance(result, torch.Tensor) and tuple(result.shape) == shape, \
            f"a {shape} batch in train mode gave {_what(result)}: it has more than one value per channel and is valid"


def _what(result):
    return f"a {tuple(result.shape)} tensor" if isinstance(result, torch.Tensor) else result


@check("grad", weight=2)
def test_train_grads_match(sub):
    def grads(mod, state, x, r):
        from torch import nn

        model = mod.MyBatchNorm1d(x.shape[1])
        probes.load_state_dict(model, state, strict=False)
        nn.Module.train(model, True)
        x = x.clone().requires_grad_()
        (model(x) * r).sum().backward()
        params = probes.named_parameters(model)
        seen = {"x": x.grad, **{n: None if params.get(n) is None or params[n].grad is None else params[n].grad.clone()
                                for n in ("weight", "bias")}}
        seen["graph"] = sorted(n for n, b in nn.Module.named_buffers(model) if b.requires_grad or b.grad_fn is not None)
        return seen

    for k, shape in enumerate([(6, 4), (3, 4, 5)]):
        c = shape[1]
        state = _state(c)
        x = _batches(shape, 1, seed=11 + k)[0]
        r = torch.randn(*shape)
        got = sub.probe(grads, sub, state, x, r)
        bn = nn.BatchNorm1d(c)
        bn.load_state_dict(state)
        xr = x.clone().requires_grad_()
        (bn(xr) * r).sum().backward()
        assert not got["graph"], f"after a train step the buffers {got['graph']} are part of the autograd graph: " \
                                 "update the running statistics outside autograd"
        for name, want in (("x", xr.grad), ("weight", bn.weight.grad), ("bias", bn.bias.grad)):
            assert got[name] is not None, f"no gradient reached {name}"
            assert_close(got[name], want, atol=1e-4, rtol=1e-4, what=f"gradient w.r.t. {name} in train mode, {shape} input")


LN_CASES = {
    "1d-affine": ((4, 6), (6,), True, True, 1e-5),
    "2d-affine": ((3, 4, 5), (4, 5), True, True, 1e-5),
    "1d-no-affine": ((2, 3, 8), (8,), False, False, 1e-5),
    "2d-weight-only-eps": ((3, 2, 6), (2, 6), True, False, 0.5),
}


@check("value", weight=2)
@pytest.mark.parametrize("case", ["shapes", "per-sample"], ids=["shapes", "per-sample"])
def test_layer_norm_matches(sub, case):
    if case == "per-sample":
        x = 3 * torch.randn(5, 7) + 2
        other = x.clone()
        other[1:] = 100 * torch.randn(4, 7) - 40
        w, b = torch.randn(7), torch.randn(7)
        first, second = sub.layer_norm(x, (7,), w, b), sub.layer_norm(other, (7,), w, b)
        assert_close(first, F.layer_norm(x, (7,), w, b), what="layer_norm of a (5, 7) batch")
        assert_shape(second, (5, 7), what="layer_norm of the batch with samples 1-4 replaced")
        assert torch.allclose(first[0], second[0], atol=1e-6, rtol=0), \
            "sample 0's output changed when the other samples changed: statistics must be per sample"
        return
    for shape, normalized, has_w, has_b, eps in LN_CASES.values():
        x = 3 * torch.randn(*shape) + 2
        w = torch.randn(*normalized) if has_w else None
        b = torch.randn(*normalized) if has_b else None
        assert_close(sub.layer_norm(x, normalized, w, b, eps=eps), F.layer_norm(x, normalized, w, b, eps),
                     what=f"layer_norm of {shape} over {normalized}, weight {'given' if has_w else 'None'}, "
                          f"bias {'given' if has_b else 'None'}, eps={eps}")


@check("api")
def test_no_builtin_norms(sub):
    sub.static.require_implemented("MyBatchNorm1d.__init__", "MyBatchNorm1d.forward", "layer_norm")
    for api in STATIC_FORBIDDEN:
        lines = sub.static.uses(api)
        assert not lines, f"the submission uses {api} (line {lines[0]}): compute the statistics yourself"

    def guarded(mod, x, state):
        from torch import nn

        outs = []
        with probes.forbid(*RUNTIME_FORBIDDEN, module=mod) as seen:
            def run():
                model = mod.MyBatchNorm1d(x.shape[1])
                probes.load_state_dict(model, state, strict=False)
                outs.append(model(x).detach())
                nn.Module.train(model, False)
                outs.append(model(x).detach())
                outs.append(mod.layer_norm(x, (x.shape[1],), None, None))

            _, ops = probes.forbid_ops(run, FORBIDDEN_OPS)  # a call the spies refused ends run early
        return seen.names() + probes.at_dispatcher(ops), outs

    c = 4
    x, state = _batches((6, c), 1, seed=3)[0], _state(c)
    called, outs = sub.probe(guarded, sub, x, state)
    assert not called, f"the submission called {sorted(set(called))}: compute the statistics yourself"
    assert len(outs) == 3, "the runtime guard run did not finish"
    bn = nn.BatchNorm1d(c)
    bn.load_state_dict(state)
    with torch.no_grad():
        want_train = bn(x)
        want_eval = bn.eval()(x)
    assert_close(outs[0], want_train, atol=1e-5, rtol=1e-4, what="train-mode output under the runtime guard")
    assert_close(outs[1], want_eval, atol=1e-5, rtol=1e-4, what="eval-mode output under the runtime guard")
    assert_close(outs[2], F.layer_norm(x, (c,)), what="layer_norm under the runtime guard")


@check("device")
def test_meta_device_fallback(sub):
    def on_meta(mod, xs):
        return [probes.meta_forward(mod.MyBatchNorm1d(x.shape[1]), x) for x in xs]

    shapes = [(6, 4), (3, 4, 5)]
    for shape, seen in zip(shapes, sub.probe(on_meta, sub, [torch.randn(*s) for s in shapes])):
        assert seen["params"] == ["meta"], f"after .to('meta') the parameters are on {seen['params']}"
        assert seen["buffers"] == ["meta"], \
            f"after .to('meta') the buffers are on {seen['buffers']}: register the running statistics as buffers"
        assert seen["error"] is None, f"a train-mode forward of a {shape} input on the meta device failed: {seen['error']}"
        assert seen["out"] == [("meta", shape)], f"meta forward of a {shape} input gave {seen['out']}"


@requires_cuda
@check("device", weight=2)
def test_cuda_no_host_sync(sub):
    def on_cuda(mod, x, state):
        from torch import nn

        model = nn.Module.cuda(mod.MyBatchNorm1d(x.shape[1]))
        probes.load_state_dict(model, state, strict=False)
        xc = x.cuda()
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")
        try:
            train_out = model(xc)
            nn.Module.train(model, False)
            eval_out = model(xc)
            ln = mod.layer_norm(xc, (x.shape[1],), None, None)
        finally:
            torch.cuda.set_sync_debug_mode(0)
        return [(t.device.type, t.detach().cpu()) for t in (train_out, eval_out, ln)]

    c = 4
    x, state = _batches((6, c), 1, seed=9)[0], _state(c)
    seen = sub.probe(on_cuda, sub, x, state)
    bn = nn.BatchNorm1d(c)
    bn.load_state_dict(state)
    with torch.no_grad():
        wants = [bn(x), bn.eval()(x), F.layer_norm(x, (c,))]
    for (device, got), want, what in zip(seen, wants, ("train output", "eval output", "layer_norm")):
        assert device == "cuda", f"{what} on {device}, expected cuda"
        assert_close(got, want, atol=1e-4, rtol=1e-4, what=f"{what} on CUDA")
