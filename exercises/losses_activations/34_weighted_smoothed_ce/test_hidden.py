"""Hidden checks for 34_weighted_smoothed_ce.

Expected values come from `F.cross_entropy(weight=..., label_smoothing=...)` in the judge (with
the targets cast to int64 and the weights to the logits' dtype, which torch itself requires). The
ban on cross_entropy / nll_loss is checked in the source and at run time (`probes.forbid` on the
functional API and on the `torch._C._nn` kernels the modules and functions reach).
"""
import torch
import torch.nn.functional as F

from grader import probes
from grader.testing import assert_close, assert_dtype, assert_tensor, check, requires_cuda

FORBIDDEN_NAMES = ["torch.nn.functional.cross_entropy", "torch.nn.CrossEntropyLoss",
                   "torch.nn.functional.nll_loss", "torch.nn.NLLLoss"]
FORBIDDEN_CALLS = ["torch.nn.functional.cross_entropy", "torch.nn.functional.nll_loss",
                   "torch._C._nn.cross_entropy_loss", "torch._C._nn.nll_loss", "torch._C._nn.nll_loss_nd",
                   "torch._C._nn.nll_loss2d"]
# Their kernels, refused at torch's dispatcher (probes.forbid_ops): a reference kept in a list, a
# name built at run time or torch.ops.aten reaches them all the same. cross_entropy with class
# probabilities as targets never reaches nll_loss: its own entry point is refused too.
FORBIDDEN_OPS = ("cross_entropy_loss", "nll_loss_forward", "nll_loss2d_forward")


def _expected(logits, targets, weights=None, smoothing=0.0):
    w = None if weights is None else weights.to(logits.dtype)
    return F.cross_entropy(logits, targets.long(), weight=w, label_smoothing=smoothing)


def _scalar(out, what):
    t = assert_tensor(out, what)
    assert t.dim() == 0, f"{what} must be a 0-dim tensor (the mean), got shape {tuple(t.shape)}"
    return t


@check("value", weight=3)
def test_matches_torch(sub):
    for weighted in (False, True):
        for smoothing in (0.0, 0.1, 0.3):
            logits = torch.randn(13, 6, dtype=torch.float64) * 3
            targets = torch.randint(0, 6, (13,))
            weights = torch.rand(6, dtype=torch.float64) * 4 + 0.1 if weighted else None
            what = f"the loss with {'random positive' if weighted else 'no'} class weights, smoothing {smoothing}"
            out = _scalar(sub.weighted_smoothed_ce(logits, targets, weights, smoothing), what)
            assert_close(out, _expected(logits, targets, weights, smoothing), atol=1e-12, rtol=1e-5, what=what)


@check("value", weight=2)
def test_weighted_mean_denominator(sub):
    # 10 samples, 8 of the rare class 3 whose weight is 50: sum(w[y]) is 402, N is 10
    logits = torch.randn(10, 4)
    targets = torch.tensor([3, 3, 0, 3, 3, 1, 3, 3, 3, 3])
    weights = torch.tensor([1.0, 1.0, 1.0, 50.0])
    for smoothing in (0.0, 0.2):
        what = f"weighted mean (divided by the sum of the targets' weights), smoothing {smoothing}"
        out = _scalar(sub.weighted_smoothed_ce(logits, targets, weights, smoothing), what)
        assert_close(out, _expected(logits, targets, weights, smoothing), rtol=1e-5, atol=1e-6, what=what)


@check("api")
def test_forbidden_apis(sub):
    sub.static.require_implemented("weighted_smoothed_ce")
    for api in FORBIDDEN_NAMES:
        lines = sub.static.uses(api)
        assert not lines, f"the submission uses {api} (line {lines[0]}): compute the loss from log-probabilities yourself"

    def guarded(mod, x, y, w):
        with probes.forbid(*FORBIDDEN_CALLS, module=mod) as seen:  # forbid_ops answers None for a refused call
            out, ops = probes.forbid_ops(mod.weighted_smoothed_ce, FORBIDDEN_OPS, x, y, w, 0.1)
        return seen.names() + probes.at_dispatcher(ops), out

    logits, targets, weights = torch.randn(7, 5), torch.randint(0, 5, (7,)), torch.rand(5) + 0.5
    called, out = sub.probe(guarded, sub, logits, targets, weights)
    assert not called, f"weighted_smoothed_ce called {sorted(set(called))} at run time"
    assert_close(_scalar(out, "the loss under the runtime guard"), _expected(logits, targets, weights, 0.1),
                 rtol=1e-5, atol=1e-6, what="the loss under the runtime guard")


@check("grad", weight=2)
def test_grad_matches_torch(sub):
    for weighted in (False, True):
        logits = torch.randn(9, 5, dtype=torch.float64)
        targets = torch.randint(0, 5, (9,))
        weights = torch.rand(5, dtype=torch.float64) + 0.2 if weighted else None
        what = f"d loss / d logits ({'with' if weighted else 'without'} class weights)"
        x = logits.clone().requires_grad_()
        out = _scalar(sub.weighted_smoothed_ce(x, targets, weights, 0.25), "the loss")
        assert out.requires_grad, "the loss is not connected to the logits' graph"
        out.backward()
        expected_x = logits.clone().requires_grad_()
        _expected(expected_x, targets, weights, 0.25).backward()
        assert x.grad is not None, "backward through the loss gave the logits no gradient"
        assert_close(x.grad, expected_x.grad, atol=1e-10, rtol=1e-6, what=what)


@check("value")
def test_finite_large_logits(sub):
    logits = torch.randn(8, 5) * 1e4
    logits[0] = torch.tensor([1e4, -1e4, 0.0, -1e4, 1e4])
    targets = torch.tensor([1, 0, 4, 2, 3, 1, 0, 2])
    weights = torch.rand(5) + 0.5
    out = _scalar(sub.weighted_smoothed_ce(logits, targets, weights, 0.1), "the loss")
    assert torch.isfinite(out), f"the loss of logits of size 1e4 is {out.item()}: use a stable log-softmax"
    assert_close(out, _expected(logits, targets, weights, 0.1), rtol=1e-5, atol=1e-3,
                 what="the loss for logits of size 1e4")


@check("dtype")
def test_integer_targets_accepted(sub):
    logits = torch.randn(11, 4)
    targets = torch.randint(0, 4, (11,))
    weights = torch.rand(4) + 0.5
    for dtype in (torch.int32, torch.uint8):
        what = f"the loss for {dtype} targets"
        out = _scalar(sub.weighted_smoothed_ce(logits, targets.to(dtype), weights, 0.1), what)
        assert_close(out, _expected(logits, targets, weights, 0.1), rtol=1e-5, atol=1e-6, what=what)


@check("dtype")
def test_result_dtype_follows_logits(sub):
    for dtype in (torch.float64, torch.bfloat16):
        for weighted in (True, False):
            logits = (torch.randn(6, 3) * 2).to(dtype)
            targets = torch.randint(0, 3, (6,))
            weights = torch.rand(3) + 0.5 if weighted else None         # float32 weights
            what = f"the loss for {dtype} logits with {'float32' if weighted else 'no'} class weights"
            out = _scalar(sub.weighted_smoothed_ce(logits, targets, weights, 0.1), what)
            assert_dtype(out, dtype, what=what)
            expected = _expected(logits.double(), targets, weights, 0.1)   # bfloat16 rounding differs by kernel
            assert_close(out.double(), expected, atol=2e-2, rtol=2e-2, what=what)


@check("state")
def test_inputs_untouched(sub):
    def observe(mod, x, y, w):
        before = [(t._version, tuple(t.shape), t.clone()) for t in (x, y, w)]
        out = mod.weighted_smoothed_ce(x, y, w, 0.1)
        after = [(t._version, tuple(t.shape), t.clone()) for t in (x, y, w)]
        changed = [name for name, b, a in zip(("logits", "targets", "class_weights"), before, after)
                   if b[0] != a[0] or b[1] != a[1] or not torch.equal(b[2], a[2])]
        return out, changed

    logits, targets, weights = torch.randn(7, 4), torch.randint(0, 4, (7,)), torch.rand(4) + 0.5
    out, changed = sub.probe(observe, sub, logits, targets, weights)
    assert_close(_scalar(out, "the loss"), _expected(logits, targets, weights, 0.1), rtol=1e-5, atol=1e-6,
                 what="the loss")
    assert not changed, f"weighted_smoothed_ce modified its arguments {changed} in place"


@check("device")
def test_meta_weights_moved(sub):
    def on_meta(mod, x, y, w):
        seen = {"cpu": mod.weighted_smoothed_ce(x, y, w, 0.1)}     # the stub raises here
        for key, weights in (("weights", w), ("no-weights", None)):
            try:
                out = mod.weighted_smoothed_ce(x.to("meta"), y.to("meta"), weights, 0.1)
            except Exception as exc:  # noqa: BLE001 - reported as data (meta tensors have no values to read)
                seen[key] = f"{type(exc).__name__}: {exc}"[:300]
            else:
                seen[key] = (out.device.type, tuple(out.shape)) if isinstance(out, torch.Tensor) else type(out).__name__
        return seen

    logits, targets, weights = torch.randn(6, 4), torch.randint(0, 4, (6,)), torch.rand(4) + 0.5
    seen = sub.probe(on_meta, sub, logits, targets, weights)
    assert_close(_scalar(seen["cpu"], "the loss"), _expected(logits, targets, weights, 0.1), rtol=1e-5, atol=1e-6,
                 what="the loss on the CPU")
    for key, what in (("weights", "meta logits with CPU class weights"), ("no-weights", "meta logits without weights")):
        if isinstance(seen[key], str):
            # a submission that reads values (.tolist(), .item()) cannot run on meta: only a device clash fails
            assert "device" not in seen[key].lower(), (
                f"{what} failed ({seen[key]}): every tensor of the loss must be on the logits' device")
        else:
            assert seen[key] == ("meta", ()), f"{what} gave {seen[key]}, expected a 0-dim result on the logits' device"


@requires_cuda
@check("device", weight=2)
def test_cuda_logits_cpu_weights(sub):
    logits, targets, weights = torch.randn(10, 6), torch.randint(0, 6, (10,)), torch.rand(6) + 0.5
    out = _scalar(sub.weighted_smoothed_ce(logits.cuda(), targets.cuda(), weights, 0.1), "the loss on CUDA")
    assert out.device.type == "cuda", f"the loss of CUDA logits is on {out.device}"
    assert_close(out.cpu(), _expected(logits, targets, weights, 0.1), rtol=1e-5, atol=1e-6,
                 what="the loss of CUDA logits with CPU class weights")
