"""Hidden checks for 35_regression_losses.

Expected values come from torch's own loss modules in the judge (`nn.MSELoss`, `nn.L1Loss`,
`nn.HuberLoss(delta)`, `nn.SmoothL1Loss(beta=delta)`); gradients come back through the bridge. The
ban on torch's regression losses is checked in the source and at run time (`probes.forbid` on the
functional API and the `torch._C._nn` kernels behind it and behind the modules).
"""
import pytest
import torch
from torch import nn

from grader import probes
from grader.testing import assert_close, assert_dtype, assert_shape, assert_tensor, check

KINDS = ("mse", "l1", "huber", "smooth_l1")
REDUCTIONS = ("mean", "sum", "none")
FORBIDDEN_NAMES = ["torch.nn.MSELoss", "torch.nn.L1Loss", "torch.nn.HuberLoss", "torch.nn.SmoothL1Loss",
                   "torch.nn.functional.mse_loss", "torch.nn.functional.l1_loss",
                   "torch.nn.functional.huber_loss", "torch.nn.functional.smooth_l1_loss"]
FORBIDDEN_CALLS = ["torch.nn.functional.mse_loss", "torch.nn.functional.l1_loss", "torch.nn.functional.huber_loss",
                   "torch.nn.functional.smooth_l1_loss", "torch._C._nn.mse_loss", "torch._C._nn.l1_loss",
                   "torch._C._nn.huber_loss", "torch._C._nn.smooth_l1_loss"]
# Their kernels, refused at torch's dispatcher (probes.forbid_ops): a reference kept in a list, a
# name built at run time or torch.ops.aten reaches them all the same (l1_loss has an entry point
# of its own there, although it computes with sub, abs and mean).
FORBIDDEN_OPS = ("mse_loss", "l1_loss", "huber_loss", "smooth_l1_loss")


def _torch_loss(kind, reduction, delta):
    if kind == "mse":
        return nn.MSELoss(reduction=reduction)
    if kind == "l1":
        return nn.L1Loss(reduction=reduction)
    if kind == "huber":
        return nn.HuberLoss(reduction=reduction, delta=delta)
    return nn.SmoothL1Loss(reduction=reduction, beta=delta)


def _inputs(*shape, dtype=torch.float64):
    """pred, target whose differences fall on both sides of 0.5, 1 and 2.5."""
    pred = torch.randn(*shape, dtype=dtype) * 2.5
    return pred, pred - torch.linspace(-4.0, 4.0, pred.numel(), dtype=dtype).reshape(shape)


@check("value", weight=3)
def test_matches_torch(sub):
    pred, target = _inputs(4, 6)
    for delta in (1.0, 0.5, 2.5):
        for kind in KINDS:
            for reduction in REDUCTIONS:
                what = f"regression_loss(kind={kind!r}, reduction={reduction!r}, delta={delta}) on (4, 6) inputs"
                out = sub.regression_loss(pred, target, kind, reduction, delta)
                assert_close(out, _torch_loss(kind, reduction, delta)(pred, target), what=what)
    for kind in ("huber", "smooth_l1"):      # delta defaults to 1
        what = f"regression_loss(kind={kind!r}) with the default reduction and delta"
        assert_close(sub.regression_loss(pred, target, kind), _torch_loss(kind, "mean", 1.0)(pred, target), what=what)


@check("value")
def test_huber_is_delta_smooth_l1(sub):
    pred, target = _inputs(3, 7)
    huber = assert_tensor(sub.regression_loss(pred, target, "huber", "none", 2.0), "huber, delta 2")
    smooth = assert_tensor(sub.regression_loss(pred, target, "smooth_l1", "none", 2.0), "smooth_l1, beta 2")
    assert_close(smooth, nn.SmoothL1Loss(reduction="none", beta=2.0)(pred, target), what="smooth_l1 with delta 2")
    assert_close(huber, 2.0 * smooth, what="huber == delta * smooth_l1 elementwise (delta 2)")


@check("shape", weight=2)
def test_shape_mismatch_raises(sub):
    pred, target = _inputs(5)
    assert_close(sub.regression_loss(pred, target, "mse"), nn.MSELoss()(pred, target), what="mse on (5,) inputs")
    # "whatever the two shapes are": ranks that differ, and equal ranks that broadcast ((4, 1) vs
    # (1, 4)) or do not ((2, 3) vs (3, 2)), for every kind
    pairs = (((5, 1), (5,)), ((5,), (5, 1)), ((4, 1), (1, 4)), ((2, 3), (3, 2)))
    for kind in KINDS:
        for p_shape, t_shape in pairs:
            p_vals = torch.randn(p_shape, dtype=torch.float64)
            t_vals = torch.randn(t_shape, dtype=torch.float64)
            with pytest.raises(ValueError):
                sub.regression_loss(p_vals, t_vals, kind)
                pytest.fail(f"regression_loss(kind={kind!r}) with pred {p_shape} and target {t_shape} must raise "
                            "ValueError, not broadcast")


@check("shape")
def test_none_keeps_shape(sub):
    pred, target = _inputs(2, 3, 4)
    for kind in KINDS:
        out = sub.regression_loss(pred, target, kind, "none", 1.5)
        assert_shape(out, (2, 3, 4), what=f"kind={kind!r} with reduction='none'")
        assert_close(out, _torch_loss(kind, "none", 1.5)(pred, target), what=f"kind={kind!r} with reduction='none'")


@check("value")
def test_unknown_arguments_raise(sub):
    pred, target = _inputs(4)
    assert_close(sub.regression_loss(pred, target, "l1", "sum"), nn.L1Loss(reduction="sum")(pred, target),
                 what="l1, sum")
    for kind, reduction in (("mae", "mean"), ("l1", "max")):
        with pytest.raises(ValueError):
            sub.regression_loss(pred, target, kind, reduction)
            pytest.fail(f"kind={kind!r}, reduction={reduction!r} must raise ValueError")


@check("grad")
def test_l1_grad_zero_at_equal(sub):
    target = torch.tensor([0.5, -1.0, 2.0, 0.0, 3.0, -2.0], dtype=torch.float64)
    pred = torch.tensor([0.5, -1.0, 2.5, 0.0, 1.0, -2.0], dtype=torch.float64, requires_grad=True)
    out = assert_tensor(sub.regression_loss(pred, target, "l1"), "l1 loss")
    assert out.requires_grad, "the l1 loss is not connected to pred's graph"
    out.backward()
    expected = torch.tensor([0.0, 0.0, 1.0, 0.0, -1.0, 0.0], dtype=torch.float64) / 6
    assert pred.grad is not None, "backward gave pred no gradient"
    assert_close(pred.grad, expected, what="d l1 / d pred (0 where pred == target, like torch)")


@check("grad")
def test_huber_grad_continuous(sub):
    delta = 2.0
    eps = 1e-9
    target = torch.zeros(4, dtype=torch.float64)
    pred = torch.tensor([delta - eps, delta + eps, -delta + eps, -delta - eps], dtype=torch.float64,
                        requires_grad=True)
    out = assert_tensor(sub.regression_loss(pred, target, "huber", "sum", delta), "huber loss")
    assert out.requires_grad, "the huber loss is not connected to pred's graph"
    out.backward()
    assert pred.grad is not None, "backward gave pred no gradient"
    grad = pred.grad
    for below, above, side in ((0, 1, "+delta"), (2, 3, "-delta")):
        jump = abs(grad[below].item() - grad[above].item())
        assert jump < 1e-6, (f"the huber gradient jumps by {jump:.3g} across |d| = delta at {side} "
                             f"({grad[below].item():.6g} vs {grad[above].item():.6g})")
    expected_pred = pred.detach().clone().requires_grad_()
    nn.HuberLoss(reduction="sum", delta=delta)(expected_pred, target).backward()
    assert_close(grad, expected_pred.grad, what="d huber / d pred around |d| = delta")


@check("api")
def test_forbidden_apis(sub):
    sub.static.require_implemented("regression_loss")
    for api in FORBIDDEN_NAMES:
        lines = sub.static.uses(api)
        assert not lines, f"the submission uses {api} (line {lines[0]}): write the loss from the differences"

    def guarded(mod, p, t):
        outs = {}
        reached = []
        with probes.forbid(*FORBIDDEN_CALLS, module=mod) as seen:
            for kind in ("mse", "l1", "huber", "smooth_l1"):  # forbid_ops answers None for a refused call
                outs[kind], ops = probes.forbid_ops(mod.regression_loss, FORBIDDEN_OPS, p, t, kind, "mean", 0.7)
                reached += probes.at_dispatcher(ops)
        return seen.names() + reached, outs

    pred, target = _inputs(3, 5, dtype=torch.float32)
    called, outs = sub.probe(guarded, sub, pred, target)
    assert not called, f"regression_loss called {sorted(set(called))} at run time"
    for kind in KINDS:
        assert_close(outs[kind], _torch_loss(kind, "mean", 0.7)(pred, target), what=f"{kind} under the runtime guard")


@check("dtype")
def test_target_cast_to_pred_dtype(sub):
    cases = [(torch.float32, torch.int64), (torch.float32, torch.float64), (torch.float64, torch.int32),
             (torch.bfloat16, torch.float32)]
    for pred_dtype, target_dtype in cases:
        pred = (torch.randn(8) * 3).to(pred_dtype)
        target = torch.randint(-3, 4, (8,)).to(target_dtype)
        for kind in ("mse", "huber"):
            what = f"kind={kind!r} with {pred_dtype} pred and {target_dtype} target"
            out = sub.regression_loss(pred, target, kind, "mean", 1.0)
            assert_dtype(out, pred_dtype, what=what)
            expected = _torch_loss(kind, "mean", 1.0)(pred.double(), target.to(pred_dtype).double())
            tol = 2e-2 if pred_dtype == torch.bfloat16 else 1e-5   # bfloat16 rounding depends on the kernel
            assert_close(out.double(), expected, atol=tol, rtol=tol, what=what)
