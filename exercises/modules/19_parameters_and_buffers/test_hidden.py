"""Hidden checks for 19_parameters_and_buffers.

Probes read the module through `nn.Module`'s own methods (`named_parameters`, `named_buffers`,
`state_dict`, `load_state_dict`, `train`, `to`, `double`), never methods the candidate's class can
override; values come from the candidate's real forward and are compared in the judge with the
reference's.
"""
import torch

from grader import probes
from grader.testing import assert_close, check, reference, requires_cuda

ref = reference(__file__)

F_ = 4
PARAMS = ["bias", "weight"]
STATE = ["bias", "running_mean", "running_var", "weight"]


def _batches(dtype=torch.float32):
    g = torch.Generator().manual_seed(19)
    return [torch.randn(3, 5, F_, generator=g, dtype=dtype) * (i + 2) + i - 1 for i in range(3)]


def _registered(mod, *args):
    from torch import nn

    model = mod.RunningStandardizer(*args)
    return {"params": {n: (tuple(p.shape), p.requires_grad) for n, p in nn.Module.named_parameters(model)},
            "buffers": {n: (tuple(b.shape), b.detach().clone()) for n, b in nn.Module.named_buffers(model)},
            "state": list(nn.Module.state_dict(model))}


def _train_then_eval(mod, batches, eval_x, momentum=0.1, eps=1e-5, dtype=None):
    """Three train-mode batches, then one eval batch; buffers read with nn.Module's methods."""
    from torch import nn

    model = mod.RunningStandardizer(batches[0].shape[-1], momentum, eps)
    if dtype is not None:
        nn.Module.to(model, dtype)

    def buffers():
        return {n: b.detach().clone() for n, b in nn.Module.named_buffers(model)}

    nn.Module.train(model, True)
    with torch.no_grad():
        outs = [model(x) for x in batches]
    trained = buffers()
    nn.Module.train(model, False)
    with torch.no_grad():
        out_eval = model(eval_x)
    return {"train_outs": outs, "trained": trained, "eval_out": out_eval, "after_eval": buffers()}


def _expected(batches, eval_x, momentum=0.1, eps=1e-5):
    model = ref.RunningStandardizer(batches[0].shape[-1], momentum, eps).to(batches[0].dtype).train()
    with torch.no_grad():
        outs = [model(x) for x in batches]
        trained = {n: b.clone() for n, b in model.named_buffers()}
        out_eval = model.eval()(eval_x)
    return outs, trained, out_eval


def _tensor(value, what):
    assert isinstance(value, torch.Tensor), f"{what} is {type(value).__name__}, not a tensor"
    return value


@check("state")
def test_parameters_and_buffers(sub):
    seen = sub.probe(_registered, sub, F_, 0.1, 1e-3)
    assert sorted(seen["params"]) == PARAMS, \
        f"named_parameters() must be exactly {PARAMS}, got {sorted(seen['params'])}"
    wrong = {n: s for n, (s, _) in seen["params"].items() if s != (F_,)}
    assert not wrong, f"weight and bias must have shape ({F_},), got {wrong}"
    missing = [b for b in ("eps", "running_mean", "running_var") if b not in seen["buffers"]]
    assert not missing, (f"{missing} must be registered buffers (register_buffer), named_buffers() is "
                         f"{sorted(seen['buffers'])}")
    for name in ("running_mean", "running_var"):
        shape, _ = seen["buffers"][name]
        assert shape == (F_,), f"buffer {name} must have shape ({F_},), got {shape}"
    _, eps = seen["buffers"]["eps"]
    assert eps.numel() >= 1 and torch.allclose(eps.double().flatten(), torch.tensor([1e-3], dtype=torch.float64)), \
        f"the eps buffer must hold the eps passed to __init__ (1e-3), got {eps.flatten().tolist()[:4]}"


@check("state")
def test_state_dict_keys(sub):
    keys = sorted(sub.probe(_registered, sub, F_)["state"])
    assert keys == STATE, f"state_dict keys must be exactly {STATE} (eps is non-persistent), got {keys}"


@check("device")
def test_meta_device_fallback(sub):
    def on_meta(mod, x):
        model = mod.RunningStandardizer(x.shape[-1])
        return probes.meta_forward(model, x)

    seen = sub.probe(on_meta, sub, torch.randn(2, 3, F_))
    assert seen["params"] == ["meta"], f"after .to('meta') parameters are on {seen['params']}"
    assert seen["buffers"] == ["meta"], f"after .to('meta') buffers are on {seen['buffers']}"
    assert seen["error"] is None, (f"forward of a meta model failed ({seen['error']}): a tensor the "
                                   "module uses did not move with .to(); register it as a buffer")
    assert seen["out"] == [("meta", (2, 3, F_))], f"forward on a (2, 3, {F_}) meta input gave {seen['out']}"


@requires_cuda
@check("device", weight=2)
def test_cuda_moves_everything(sub):
    def on_cuda(mod, x):
        from torch import nn

        model = nn.Module.cuda(mod.RunningStandardizer(x.shape[-1]))
        devices = {n: t.device.type for n, t in [*nn.Module.named_parameters(model), *nn.Module.named_buffers(model)]}
        nn.Module.train(model, True)
        return devices, model(x.cuda()).cpu()

    x = torch.randn(6, F_)
    devices, out = sub.probe(on_cuda, sub, x)
    left = {n: d for n, d in devices.items() if d != "cuda"}
    assert "eps" in devices and not left, f".cuda() left {left or 'eps unregistered'} off the GPU"
    expected = ref.RunningStandardizer(F_).train()
    with torch.no_grad():
        assert_close(_tensor(out, "forward on CUDA"), expected(x), atol=1e-5, rtol=1e-4)


@check("dtype")
def test_double_converts_buffers(sub):
    def doubled(mod, xs):
        from torch import nn

        model = nn.Module.double(mod.RunningStandardizer(xs[0].shape[-1]))
        dtypes = {n: t.dtype for n, t in [*nn.Module.named_parameters(model), *nn.Module.named_buffers(model)]}
        nn.Module.train(model, True)
        with torch.no_grad():
            outs = [model(x) for x in xs]
        return dtypes, outs

    xs = _batches(torch.float64)
    dtypes, outs = sub.probe(doubled, sub, xs)
    not64 = {n: str(d) for n, d in dtypes.items() if d != torch.float64}
    assert "eps" in dtypes and not not64, f".double() left {not64 or 'eps unregistered'} not float64"
    expected, _, _ = _expected(xs, xs[0])
    for i, (got, want) in enumerate(zip(outs, expected)):
        assert_close(_tensor(got, f"output {i}"), want, what=f"float64 train-mode output of batch {i}")


@check("mode", weight=2)
def test_train_updates_eval_freezes(sub):
    xs, eval_x = _batches(), torch.randn(7, F_) * 3 + 1
    seen = sub.probe(_train_then_eval, sub, xs, eval_x, 0.3, 1e-3)
    outs, trained, out_eval = _expected(xs, eval_x, 0.3, 1e-3)
    for name in ("running_mean", "running_var"):
        got = _tensor(seen["trained"].get(name), f"buffer {name}")
        assert_close(got, trained[name], atol=1e-5, rtol=1e-5,
                     what=f"{name} after 3 train batches (momentum 0.3, unbiased var over every leading dim)")
        assert torch.equal(seen["after_eval"][name], got), f"an eval-mode forward changed {name}"
    for i, (got, want) in enumerate(zip(seen["train_outs"], outs)):
        assert_close(_tensor(got, f"train output {i}"), want,
                     what=f"train-mode output of batch {i} (normalised with the stats updated first)")
    assert_close(_tensor(seen["eval_out"], "eval output"), out_eval, what="eval-mode output (running stats)")


@check("grad")
def test_buffers_never_require_grad(sub):
    def graph_state(mod, x):
        from torch import nn

        model = mod.RunningStandardizer(x.shape[-1])
        nn.Module.train(model, True)
        x = x.clone().requires_grad_(True)
        out = model(x)
        if not isinstance(out, torch.Tensor):
            return None
        out.sum().backward()
        buffers = {n: (b.requires_grad, b.grad_fn is not None) for n, b in nn.Module.named_buffers(model)}
        opt = torch.optim.SGD(nn.Module.parameters(model), lr=0.1)
        grads = {n: p.grad is not None for n, p in nn.Module.named_parameters(model)}
        return {"buffers": buffers, "n_opt": sum(len(g["params"]) for g in opt.param_groups), "grads": grads,
                "x_grad": x.grad is not None}

    seen = sub.probe(graph_state, sub, torch.randn(8, F_) * 2 + 1)
    assert seen is not None, "forward did not return a tensor"
    bad = {n: v for n, v in seen["buffers"].items() if any(v)}
    assert seen["buffers"] and not bad, \
        f"buffers {sorted(bad)} require grad or carry a graph after a train-mode forward: update them under no_grad"
    assert seen["n_opt"] == 2, f"an optimizer over parameters() holds {seen['n_opt']} tensors, expected 2"
    assert seen["grads"] == {"bias": True, "weight": True} and seen["x_grad"], \
        f"weight, bias and x must all get gradients from the output, got {seen['grads']}, x: {seen['x_grad']}"


@check("state")
def test_load_state_dict_restores_stats(sub):
    xs = _batches()
    _, trained, _ = _expected(xs, xs[0])

    def restored(mod, xs, eval_x, ref_state):
        from torch import nn

        source = mod.RunningStandardizer(xs[0].shape[-1])
        nn.Module.train(source, True)
        with torch.no_grad():
            for x in xs:
                source(x)
        target = mod.RunningStandardizer(xs[0].shape[-1])
        nn.Module.load_state_dict(target, nn.Module.state_dict(source), strict=True)
        nn.Module.train(target, False)
        other = mod.RunningStandardizer(xs[0].shape[-1])
        nn.Module.load_state_dict(other, ref_state, strict=True)
        nn.Module.train(other, False)
        with torch.no_grad():
            out = target(eval_x)
            out_ref_state = other(eval_x)
        return {n: b.detach().clone() for n, b in nn.Module.named_buffers(target)}, out, out_ref_state

    eval_x = torch.randn(5, F_)
    expected = ref.RunningStandardizer(F_)
    expected.load_state_dict({"weight": torch.randn(F_) + 1.5, "bias": torch.randn(F_),
                              "running_mean": trained["running_mean"], "running_var": trained["running_var"]})
    with torch.no_grad():
        want = expected.eval()(eval_x)
        plain = ref.RunningStandardizer(F_)
        plain.load_state_dict({**plain.state_dict(), "running_mean": trained["running_mean"],
                               "running_var": trained["running_var"]})
        want_plain = plain.eval()(eval_x)
    buffers, out, out_ref_state = sub.probe(restored, sub, xs, eval_x, expected.state_dict())
    for name in ("running_mean", "running_var"):
        assert_close(_tensor(buffers.get(name), name), trained[name], atol=1e-6, rtol=1e-6,
                     what=f"{name} restored from another trained instance")
    assert_close(_tensor(out, "eval output"), want_plain, what="eval output of the restored model")
    assert_close(_tensor(out_ref_state, "eval output"), want,
                 what="eval output with the reference's state (weight and bias scale and shift)")
    # the public path: the candidate's own load_state_dict takes the reference's trained state
    model = sub.RunningStandardizer(F_)
    model.load_state_dict(expected.state_dict())
    model.eval()
    with torch.no_grad():
        assert_close(model(eval_x), want, what="eval output after model.load_state_dict(reference state)")
