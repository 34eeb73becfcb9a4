"""Hidden checks for 26_inverted_dropout.

Modes are switched with `nn.Module.train` (torch's, not an override); outputs come from the
candidate's forward and statistics are computed in the judge. The ban on torch's dropout is
checked in the source and at run time (`probes.forbid`).
"""
import pytest
import torch

from grader import probes
from grader.testing import assert_dtype, assert_shape, check, requires_cuda

FORBIDDEN_STATIC = [
    "torch.nn.Dropout", "torch.nn.Dropout1d", "torch.nn.Dropout2d", "torch.nn.Dropout3d",
    "torch.nn.AlphaDropout", "torch.nn.FeatureAlphaDropout",
    "torch.nn.functional.dropout", "torch.nn.functional.dropout1d", "torch.nn.functional.dropout2d",
    "torch.nn.functional.dropout3d", "torch.nn.functional.alpha_dropout",
    "torch.nn.functional.feature_alpha_dropout", "torch.dropout", "torch.dropout_",
    "torch.feature_dropout", "torch.alpha_dropout", "torch.native_dropout",
]
FORBIDDEN_RUNTIME = [
    "torch.nn.functional.dropout", "torch.nn.functional.dropout1d", "torch.nn.functional.dropout2d",
    "torch.nn.functional.dropout3d", "torch.nn.functional.alpha_dropout",
    "torch.nn.functional.feature_alpha_dropout", "torch.dropout", "torch.dropout_", "torch.feature_dropout",
    "torch.alpha_dropout", "torch.native_dropout", "torch.nn.modules.dropout.Dropout.forward",
]
# Their kernels, refused at torch's dispatcher (probes.forbid_ops): a reference kept in a list, a
# name built at run time or torch.ops.aten reaches them all the same.
FORBIDDEN_OPS = ("dropout", "dropout_", "native_dropout", "feature_dropout", "feature_dropout_", "alpha_dropout",
                 "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_")


def _apply(mod, p, x, train=True, seed=None):
    """Probe: InvertedDropout(p) (p None: the default) in train (or eval) mode applied to x; with
    the input's values before and after (the input must not change)."""
    from torch import nn

    layer = mod.InvertedDropout() if p is None else mod.InvertedDropout(p)
    nn.Module.train(layer, train)
    before = x.clone()
    if seed is not None:
        torch.manual_seed(seed)
    with torch.no_grad():
        out = layer(x)
    return out, torch.equal(x, before)


def _is_dropout(out, x, p, what):
    """Every element is 0 or x / (1 - p), survivors scaled by one common factor."""
    assert_shape(out, tuple(x.shape), what=what)
    assert_dtype(out, x.dtype, what=what)
    kept = out != 0
    scale = out[kept].double() / x[kept].double()
    assert kept.any() and (~kept).any(), f"{what}: expected some zeros and some survivors"
    assert torch.allclose(scale, torch.full_like(scale, 1 / (1 - p)), rtol=1e-6 if x.dtype in (torch.float32, torch.float64) else 1e-2, atol=0), \
        f"{what}: survivors are not x / (1 - p) = x * {1 / (1 - p):.6g}"
    return kept


@check("value", weight=3)
def test_train_statistics(sub):
    x = torch.ones(10**6)
    out, untouched = sub.probe(_apply, sub, 0.3, x)
    kept = _is_dropout(out, x, 0.3, "train output for p=0.3, x=ones(10**6)")
    survivors = out[kept].unique()
    assert survivors.numel() == 1, f"survivors take {survivors.numel()} different values, expected one (1/0.7)"
    zeros = 1 - kept.double().mean().item()
    assert abs(zeros - 0.3) <= 0.005, f"fraction of zeros is {zeros:.4f}, expected 0.3 ± 0.005"
    mean = out.double().mean().item()
    assert abs(mean - 1) <= 0.01, f"mean output is {mean:.4f}, expected 1 ± 0.01 (inverted scaling)"
    assert untouched, "forward modified its input"

    x = torch.randn(400, 100)
    out, untouched = sub.probe(_apply, sub, None, x)
    kept = _is_dropout(out, x, 0.5, "train output of InvertedDropout() (default p=0.5) on randn(400, 100)")
    assert untouched, "forward modified its input"
    rows, cols = kept.all(1) | (~kept).all(1), kept.all(0) | (~kept).all(0)
    assert rows.sum() < 3 and cols.sum() < 3, \
        "whole rows or columns are kept or dropped together: draw one mask element per input element"


@check("mode", weight=2)
def test_eval_identity(sub):
    def modes(mod, x):
        from torch import nn

        layer = mod.InvertedDropout(0.5)
        nn.Module.train(layer, False)
        with torch.no_grad():
            first = layer(x)
            nn.Module.train(layer, True)
            trained = layer(x)
            nn.Module.train(layer, False)
            again = layer(x)
        return first, trained, again

    x = torch.randn(64, 32)
    first, trained, again = sub.probe(modes, sub, x)
    _is_dropout(trained, x, 0.5, "train output after .train()")
    for out, when in ((first, "in eval mode"), (again, "back in eval mode after .train()")):
        assert_shape(out, (64, 32), what=f"output {when}")
        assert_dtype(out, torch.float32, what=f"output {when}")
        assert torch.equal(out, x), f"the output {when} must equal x exactly"


@check("value")
def test_edge_probabilities(sub):
    x = torch.randn(50, 20) * 1e3
    out, _ = sub.probe(_apply, sub, 1.0, x)
    assert_shape(out, (50, 20), what="output for p=1")
    assert_dtype(out, torch.float32, what="output for p=1")
    assert torch.isfinite(out).all() and torch.count_nonzero(out) == 0, "p=1 must give all zeros, with no NaN/Inf"
    out, _ = sub.probe(_apply, sub, 0.0, x)
    assert_shape(out, (50, 20), what="output for p=0")
    assert torch.equal(out, x), "p=0 in train mode must return x unchanged"
    for p in (1.2, -0.1):
        with pytest.raises(ValueError):
            sub.InvertedDropout(p)


@check("grad", weight=2)
def test_grad_uses_forward_mask(sub):
    layer = sub.InvertedDropout(0.4)
    x = torch.randn(300, 20, requires_grad=True)
    out = layer(x)
    _is_dropout(out.detach(), x.detach(), 0.4, "train output for p=0.4")
    assert out.requires_grad, "the output does not depend on x through autograd"
    g = torch.randn(300, 20)
    out.backward(g)
    assert x.grad is not None, "x got no gradient"
    expected = g * (out.detach() != 0) / 0.6
    assert torch.allclose(x.grad, expected, rtol=1e-5, atol=1e-6), \
        "the gradient is not grad_output * mask / (1 - p) with the mask of the forward pass"


@check("api", weight=2)
def test_no_builtin_dropout(sub):
    sub.static.require_implemented("InvertedDropout.forward")
    for api in FORBIDDEN_STATIC:
        lines = sub.static.uses(api)
        assert not lines, f"{api} is used (line {lines[0]}): write the mask yourself"

    def guarded(mod, x):
        from torch import nn

        with probes.forbid(*FORBIDDEN_RUNTIME, module=mod) as seen:
            try:
                layer = mod.InvertedDropout(0.5)
                nn.Module.train(layer, True)
                with torch.no_grad():
                    out, ops = probes.forbid_ops(layer, FORBIDDEN_OPS, x)
            except probes.ForbiddenAPIError:
                out, ops = None, []
        return seen.names() + probes.at_dispatcher(ops), out

    x = torch.randn(100, 10)
    called, out = sub.probe(guarded, sub, x)
    assert not called, f"forward called {sorted(set(called))}: build the mask from torch's random numbers yourself"
    _is_dropout(out, x, 0.5, "train output under the runtime guard")


@check("dtype")
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64], ids=["fp16", "bf16", "fp64"])
def test_dtype_kept(sub, dtype):
    x = torch.randn(200, 50).to(dtype)
    out, _ = sub.probe(_apply, sub, 0.25, x)
    kept = _is_dropout(out, x, 0.25, f"train output for a {dtype} input")
    zeros = 1 - kept.double().mean().item()
    assert abs(zeros - 0.25) < 0.05, f"fraction of zeros is {zeros:.3f} for a {dtype} input, expected about 0.25"


@check("value")
def test_seeded_masks(sub):
    def masks(mod, x):
        from torch import nn

        layer = mod.InvertedDropout(0.5)
        nn.Module.train(layer, True)
        outs = []
        with torch.no_grad():
            for seed in (11, 11, 12):
                torch.manual_seed(seed)
                outs.append(layer(x))
        return outs

    x = torch.randn(100, 10)
    a, b, c = sub.probe(masks, sub, x)
    _is_dropout(a, x, 0.5, "train output for p=0.5")
    assert torch.equal(a, b), "two calls after torch.manual_seed(11) gave different masks: draw them with torch's RNG"
    assert not torch.equal(a, c), "torch.manual_seed(11) and (12) gave the same mask"


@check("device")
def test_meta_device_fallback(sub):
    def on_meta(mod, x):
        with torch.no_grad():
            cpu = mod.InvertedDropout(0.5)(x)
        return cpu, probes.meta_forward(mod.InvertedDropout(0.5), x)

    x = torch.randn(8, 16)
    cpu, seen = sub.probe(on_meta, sub, x)
    _is_dropout(cpu, x, 0.5, "train output on the CPU")
    assert seen["error"] is None, f"forward on a meta input failed: {seen['error']}"
    assert seen["out"] == [("meta", (8, 16))], f"forward on a meta input gave {seen['out']}"


@requires_cuda
@check("device")
def test_cuda_mask_no_sync(sub):
    def on_cuda(mod, x):
        from torch import nn

        layer = mod.InvertedDropout(0.5)
        nn.Module.train(layer, True)
        x = x.cuda()
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")
        try:
            out = layer(x)
        finally:
            torch.cuda.set_sync_debug_mode("default")
        return out.device.type, out.cpu()

    x = torch.randn(64, 32)
    device, out = sub.probe(on_cuda, sub, x)
    assert device == "cuda", f"the output of a CUDA input is on {device}"
    _is_dropout(out, x, 0.5, "train output for a CUDA input")
