"""Hidden checks for 32_bce_with_logits.

Expected values come from `F.binary_cross_entropy_with_logits` (targets cast to float in the
judge), closed forms (`(sigmoid(z) - y) / numel` for the gradient, 200 for a logit of ±200 on the
wrong side) and `torch_expected` on `hostile_logits` (±1000, float32, bfloat16, float16). The ban
on sigmoid and the probability-space BCE inside `binary_loss` is checked in the source (outside
`multilabel_predict`) and at run time (`probes.forbid`, decided from what it recorded).
"""
import pytest
import torch
import torch.nn.functional as F

from grader import probes
from grader.testing import (
    assert_close,
    assert_device,
    assert_dtype,
    assert_shape,
    check,
    hostile_logits,
    requires_cuda,
    torch_expected,
)

FORBIDDEN = ["torch.nn.BCELoss", "torch.nn.functional.binary_cross_entropy", "torch.sigmoid",
             "torch.Tensor.sigmoid", "torch.nn.functional.sigmoid", "torch.special.expit", "torch.nn.Sigmoid"]
RUNTIME_FORBIDDEN = ["torch.sigmoid", "torch.Tensor.sigmoid", "torch.nn.functional.sigmoid", "torch.special.expit",
                     "torch.nn.functional.binary_cross_entropy", "torch.nn.BCELoss.forward", "torch.nn.Sigmoid.forward"]


def _bce(logits, targets, pos_weight=None):
    return F.binary_cross_entropy_with_logits(logits, targets.to(logits.dtype), pos_weight=pos_weight)


def _scalar(out, what="binary_loss"):
    assert isinstance(out, torch.Tensor), f"{what} must return a tensor, got {type(out).__name__}"
    assert_shape(out, (), what=what)
    return out


@check("value", weight=2)
def test_matches_torch(sub):
    for shape in ((7,), (5, 3)):
        logits, targets = torch.randn(*shape) * 3, torch.randint(0, 2, shape).float()
        assert_close(_scalar(sub.binary_loss(logits, targets)), _bce(logits, targets),
                     what=f"binary_loss for logits {shape}")
    logits, soft = torch.randn(4, 2, dtype=torch.float64), torch.rand(4, 2, dtype=torch.float64)
    assert_close(_scalar(sub.binary_loss(logits, soft)), _bce(logits, soft), what="binary_loss in float64")


@check("value", weight=2)
def test_saturated_logits(sub):
    out = _scalar(sub.binary_loss(torch.tensor([-200.0]), torch.tensor([1.0])))
    assert_close(out, torch.tensor(200.0), what="binary_loss(logit -200, target 1) (sigmoid + BCELoss gives 100)")
    out = _scalar(sub.binary_loss(torch.tensor([200.0, -200.0]), torch.tensor([0.0, 1.0])))
    assert_close(out, torch.tensor(200.0), what="binary_loss(logits [200, -200], targets [0, 1])")
    for kind in ("large", "spread"):
        for dtype in (torch.float32, torch.bfloat16, torch.float16):
            x = hostile_logits(kind, (6, 4), dtype=dtype)
            y = torch.randint(0, 2, (6, 4)).to(dtype)
            out = _scalar(sub.binary_loss(x, y))
            assert torch.isfinite(out), f"binary_loss is {out.item()} for {kind} {dtype} logits"
            assert_close(out, torch_expected(_bce, x, y), what=f"binary_loss for {kind} {dtype} logits (±1000)")


# sigmoid's and BCE's kernels, refused at torch's dispatcher (probes.forbid_ops): a reference kept
# in a list, a name built at run time or torch.ops.aten reaches them all the same. The built-in
# binary_cross_entropy_with_logits (allowed) reaches neither: it works from log_sigmoid.
FORBIDDEN_OPS = ("sigmoid", "binary_cross_entropy")


def _guarded(mod, logits, targets, pos_weight, targets_list):
    with probes.forbid(*targets_list, module=mod) as seen:  # forbid_ops answers None for a refused call
        out, ops = probes.forbid_ops(mod.binary_loss, FORBIDDEN_OPS, logits, targets, pos_weight)
    return seen.names() + probes.at_dispatcher(ops), out


@check("api")
def test_forbidden_apis(sub):
    sub.static.require_implemented("binary_loss")
    logits, targets, pw = torch.randn(6, 3), torch.randint(0, 2, (6, 3)).float(), torch.tensor([1.0, 2.0, 0.5])
    called, out = sub.probe(_guarded, sub, logits, targets, pw, RUNTIME_FORBIDDEN)
    assert not called, f"binary_loss called {sorted(set(called))} at run time: stay in logit space"
    assert_close(_scalar(out), _bce(logits, targets, pw), what="binary_loss under the runtime guard")
    node = sub.static.function("multilabel_predict")
    allowed = range(node.lineno, (node.end_lineno or node.lineno) + 1) if node is not None else range(0)
    for api in FORBIDDEN:
        lines = [line for line in sub.static.uses(api) if line not in allowed]
        assert not lines, (f"{api} is used outside multilabel_predict (line {lines[0]}): binary_loss must "
                           f"work from the logits (F.binary_cross_entropy_with_logits, logsigmoid or softplus)")


@check("dtype")
def test_target_dtypes(sub):
    logits = torch.randn(6, 2)
    labels = torch.tensor([[1, 0], [0, 0], [1, 1], [0, 1], [1, 0], [0, 0]])
    for dtype in (torch.int64, torch.bool, torch.int32, torch.float64):
        out = _scalar(sub.binary_loss(logits, labels.to(dtype)), what=f"binary_loss with {dtype} targets")
        assert_dtype(out, torch.float32, what=f"binary_loss of float32 logits with {dtype} targets")
        assert_close(out, _bce(logits, labels), what=f"binary_loss with {dtype} targets")
    wide = torch.randn(6, 2, dtype=torch.float64)
    out = _scalar(sub.binary_loss(wide, labels.bool()), what="binary_loss of float64 logits")
    assert_dtype(out, torch.float64, what="binary_loss of float64 logits with bool targets")
    assert_close(out, _bce(wide, labels), what="binary_loss of float64 logits with bool targets")


@check("shape")
def test_shape_reconcile(sub):
    logits, targets = torch.randn(5, 1), torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0])
    expected = _bce(logits[:, 0], targets)
    assert_close(_scalar(sub.binary_loss(logits, targets), what="binary_loss of logits (5, 1), targets (5,)"),
                 expected, what="binary_loss of logits (5, 1) with targets (5,): the per-sample mean, not (5, 5)")
    assert_close(_scalar(sub.binary_loss(logits[:, 0], targets[:, None]), what="logits (5,), targets (5, 1)"),
                 expected, what="binary_loss of logits (5,) with targets (5, 1)")
    same = torch.randint(0, 2, (5, 1)).float()
    assert_close(_scalar(sub.binary_loss(logits, same), what="logits (5, 1), targets (5, 1)"), _bce(logits, same),
                 what="binary_loss of logits (5, 1) with targets (5, 1)")
    grid, labels = torch.randn(2, 3, 1), torch.randint(0, 2, (2, 3))
    assert_close(_scalar(sub.binary_loss(grid, labels), what="logits (2, 3, 1), targets (2, 3)"),
                 _bce(grid[..., 0], labels), what="binary_loss of logits (2, 3, 1) with targets (2, 3)")
    assert_close(_scalar(sub.binary_loss(grid[..., 0], labels[..., None]), what="logits (2, 3), targets (2, 3, 1)"),
                 _bce(grid[..., 0], labels), what="binary_loss of logits (2, 3) with targets (2, 3, 1)")
    for lshape, tshape in (((4, 3), (4, 2)), ((4, 3), (3,)), ((4, 1), (5,)), ((6,), (3, 2)), ((2, 3, 1), (2, 1))):
        with pytest.raises(ValueError):
            sub.binary_loss(torch.randn(*lshape), torch.zeros(*tshape))


@check("state")
def test_inputs_untouched(sub):
    def observe(mod, logits, targets, pw):
        tensors = {"logits": logits, "targets": targets, "pos_weight": pw}
        before = {k: (v.clone(), tuple(v.shape), v.stride(), v._version) for k, v in tensors.items()}
        outs = [mod.binary_loss(logits, targets[:, 0], pw[:1]), mod.binary_loss(logits[:, 0], targets),
                mod.multilabel_predict(logits), mod.multilabel_predict(logits, 0.7)]
        changed = [k for k, v in tensors.items() if (tuple(v.shape), v.stride(), v._version) != before[k][1:]
                   or not torch.equal(v, before[k][0])]
        return changed, outs

    logits, targets, pw = torch.randn(5, 1) * 3, torch.randint(0, 2, (5, 1)).float(), torch.tensor([2.0, 1.0])
    changed, outs = sub.probe(observe, sub, logits, targets, pw)
    assert_close(_scalar(outs[0]), _bce(logits[:, 0], targets[:, 0], pw[:1]), what="binary_loss of (5, 1) vs (5,)")
    assert_close(_scalar(outs[1]), _bce(logits[:, 0], targets[:, 0]), what="binary_loss of (5,) vs (5, 1)")
    for out, threshold in zip(outs[2:], (0.5, 0.7), strict=True):
        assert isinstance(out, torch.Tensor) and torch.equal(out, torch.sigmoid(logits) >= threshold), \
            f"multilabel_predict(logits, {threshold}) differs from sigmoid(logits) >= {threshold}"
    assert not changed, f"the caller's {', '.join(changed)} changed (values, shape or version): do not modify inputs"


@check("value")
def test_pos_weight(sub):
    logits, targets = torch.randn(8, 3), torch.randint(0, 2, (8, 3)).float()
    pw = torch.tensor([3.0, 0.5, 1.0])
    assert_close(_scalar(sub.binary_loss(logits, targets, pw)), _bce(logits, targets, pw),
                 what="binary_loss with pos_weight (3,) for (8, 3)")
    assert_close(_scalar(sub.binary_loss(logits, targets.long(), pos_weight=pw.double())),
                 _bce(logits, targets, pw), what="binary_loss with int64 targets and a float64 pos_weight")


@check("grad")
def test_grad(sub):
    logits = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    targets = torch.randint(0, 2, (4, 3)).double()
    out = _scalar(sub.binary_loss(logits, targets))
    assert_close(out, _bce(logits.detach(), targets), what="binary_loss in float64")
    assert out.requires_grad, "the loss carries no gradient to the logits"
    out.backward()
    assert_close(logits.grad, (torch.sigmoid(logits.detach()) - targets) / 12,
                 what="d loss / d logits ((sigmoid(z) - y) / numel)")


@check("dtype")
def test_multilabel_predict(sub):
    logits = torch.randn(6, 4) * 4
    logits[0, 0], logits[1, 1], logits[2, 2] = 0.0, 50.0, -50.0
    pred = sub.multilabel_predict(logits)
    assert_dtype(pred, torch.bool, what="multilabel_predict(logits)")
    assert_shape(pred, (6, 4), what="multilabel_predict(logits)")
    assert torch.equal(pred, logits >= 0), "at threshold 0.5, multilabel_predict must equal logits >= 0"
    for threshold in (0.8, 0.2):
        pred = sub.multilabel_predict(logits, threshold)
        assert_dtype(pred, torch.bool, what=f"multilabel_predict(logits, {threshold})")
        assert torch.equal(pred, torch.sigmoid(logits) >= threshold), \
            f"multilabel_predict(logits, {threshold}) differs from sigmoid(logits) >= {threshold}"


@check("device")
def test_meta_pos_weight_follows_logits(sub):
    # CPU stand-in for the CUDA check: logits on another device than a CPU pos_weight (meta here)
    # must give a loss on the logits' device; `.item()` and branches on values fail on meta too.
    logits, targets, pw = torch.randn(4, 3), torch.randint(0, 2, (4, 3)), torch.tensor([2.0, 1.0, 0.5])
    assert_close(_scalar(sub.binary_loss(logits, targets, pw)), _bce(logits, targets, pw),
                 what="binary_loss with pos_weight")
    out = sub.binary_loss(torch.empty(4, 3, device="meta"), torch.empty(4, 3, device="meta"), pw)
    assert_device(out, "meta", what="binary_loss of meta logits with a CPU pos_weight")
    assert_shape(out, (), what="binary_loss of meta logits with a CPU pos_weight")
    out = sub.binary_loss(torch.empty(4, 1, device="meta"), torch.empty(4, dtype=torch.long, device="meta"))
    assert_device(out, "meta", what="binary_loss of meta logits (4, 1) with int64 targets (4,)")


@requires_cuda
@check("device")
def test_cuda_logits_cpu_pos_weight(sub):
    def run(mod, pw):
        logits = torch.randn(8, 3, device="cuda")
        targets = torch.randint(0, 2, (8, 3), device="cuda")
        return logits, targets, mod.binary_loss(logits, targets, pw)

    logits, targets, out = sub.probe(run, sub, torch.tensor([2.0, 1.0, 0.5]))
    assert_device(out, "cuda", what="binary_loss of CUDA logits with a CPU pos_weight")
    assert_close(out, _bce(logits, targets, torch.tensor([2.0, 1.0, 0.5], device="cuda")), atol=1e-5,
                 what="binary_loss on CUDA")
