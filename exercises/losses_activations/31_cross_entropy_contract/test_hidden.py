"""Hidden checks for 31_cross_entropy_contract.

Expected values come from `F.cross_entropy` (hard labels cast to int64 in the judge), closed forms
(`-(p * log_softmax).sum(1).mean()` for soft targets, `(softmax - onehot) / N` for the gradient)
and `torch_expected` on `hostile_logits` (±1000, one logit 2000 above the rest, -inf masks, in
float32, bfloat16 and float16).
"""
import pytest
import torch
import torch.nn.functional as F

from grader.testing import (
    HOSTILE_KINDS,
    assert_close,
    assert_device,
    assert_dtype,
    assert_shape,
    check,
    hostile_logits,
    requires_cuda,
    torch_expected,
)


def _scalar(out, what="classification_loss"):
    assert isinstance(out, torch.Tensor), f"{what} must return a tensor, got {type(out).__name__}"
    assert_shape(out, (), what=what)
    return out


@check("value", weight=2)
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.float32, torch.int16, torch.uint8],
                         ids=["int64", "int32", "float32", "int16", "uint8"])
def test_hard_label_dtypes(sub, dtype):
    logits, targets = torch.randn(6, 4), torch.tensor([0, 3, 1, 2, 3, 0])
    out = _scalar(sub.classification_loss(logits, targets.to(dtype)))
    assert_close(out, F.cross_entropy(logits, targets), what=f"classification_loss with {dtype} targets (N,)")


@check("value")
def test_large_logits(sub):
    logits, targets = torch.randn(8, 5) * 50, torch.randint(0, 5, (8,))
    assert_close(_scalar(sub.classification_loss(logits, targets)), F.cross_entropy(logits, targets),
                 what="classification_loss for logits scaled by 50")
    for kind in HOSTILE_KINDS:
        for dtype in (torch.float32, torch.bfloat16, torch.float16):
            x = hostile_logits(kind, (6, 5), dim=1, dtype=dtype)
            # under a -inf mask, a target on a finite logit (its row's largest)
            t = x.argmax(1) if kind == "masked" else torch.randint(0, 5, (6,))
            out = _scalar(sub.classification_loss(x, t))
            assert torch.isfinite(out), f"classification_loss is {out.item()} for {kind} {dtype} logits"
            assert_close(out, torch_expected(F.cross_entropy, x, t), what=f"classification_loss for {kind} {dtype} logits")


@check("grad")
def test_grad_is_softmax_minus_onehot(sub):
    logits = torch.randn(5, 7, dtype=torch.float64, requires_grad=True)
    targets = torch.tensor([6, 0, 3, 3, 1])
    out = _scalar(sub.classification_loss(logits, targets))
    assert_close(out, F.cross_entropy(logits.detach(), targets), what="classification_loss in float64")
    assert out.requires_grad, "the loss carries no gradient to the logits"
    out.backward()
    expected = (F.softmax(logits.detach(), 1) - F.one_hot(targets, 7).double()) / 5
    assert_close(logits.grad, expected, what="d loss / d logits ((softmax - onehot) / N)")


@check("shape")
def test_spatial_layout(sub):
    logits, targets = torch.randn(2, 4, 3, 5), torch.randint(0, 4, (2, 3, 5))
    assert_close(_scalar(sub.classification_loss(logits, targets)), F.cross_entropy(logits, targets),
                 what="classification_loss for logits (2, 4, 3, 5) and targets (2, 3, 5)")
    seq, labels = torch.randn(3, 6, 4), torch.randint(0, 6, (3, 4))
    assert_close(_scalar(sub.classification_loss(seq, labels.int())), F.cross_entropy(seq, labels),
                 what="classification_loss for logits (3, 6, 4) and int32 targets (3, 4)")


@check("value")
def test_soft_targets(sub):
    logits = torch.randn(5, 4)
    p = F.softmax(torch.randn(5, 4), 1)
    expected = -(p * F.log_softmax(logits, 1)).sum() / 5
    assert_close(_scalar(sub.classification_loss(logits, p)), expected,
                 what="classification_loss with float probability targets (N, C)")
    onehot = F.one_hot(torch.tensor([1, 0, 3, 2, 2]), 4).float()
    assert_close(_scalar(sub.classification_loss(logits, onehot)),
                 F.cross_entropy(logits, torch.tensor([1, 0, 3, 2, 2])), what="one-hot float targets (N, C)")
    spatial = torch.randn(2, 3, 4, 4)
    q = F.softmax(torch.randn(2, 3, 4, 4), 1)
    expected = -(q * F.log_softmax(spatial, 1)).sum(1).mean()
    assert_close(_scalar(sub.classification_loss(spatial, q)), expected,
                 what="classification_loss with probability targets (N, C, H, W) (mean over N, H, W)")


@check("value")
def test_ignore_index(sub):
    logits = torch.randn(8, 5)
    targets = torch.tensor([0, -100, 4, 2, -100, 1, 3, -100])
    keep = targets != -100
    assert_close(_scalar(sub.classification_loss(logits, targets)), F.cross_entropy(logits[keep], targets[keep]),
                 what="classification_loss with targets -100 (the default ignore_index)")
    targets = torch.tensor([0, 3, 4, 2, 3, 1, 3, 2])
    keep = targets != 3
    assert_close(_scalar(sub.classification_loss(logits, targets, ignore_index=3)),
                 F.cross_entropy(logits[keep], targets[keep]), what="classification_loss with ignore_index=3")
    spatial, labels = torch.randn(2, 4, 3, 3), torch.randint(0, 4, (2, 3, 3))
    labels[0, 1] = 255
    labels[1, :, 2] = 255
    assert_close(_scalar(sub.classification_loss(spatial, labels.int(), ignore_index=255)),
                 F.cross_entropy(spatial, labels, ignore_index=255),
                 what="classification_loss for spatial int32 targets with ignore_index=255")


@check("value")
def test_predict_proba(sub):
    logits = torch.randn(4, 10)
    p = sub.predict_proba(logits)
    assert_close(p, F.softmax(logits, 1), what="predict_proba of logits (4, 10)")
    assert_close(p.sum(1), torch.ones(4), what="predict_proba(logits).sum(1)")
    spatial = torch.randn(2, 3, 4, 5) * 20
    assert_close(sub.predict_proba(spatial), F.softmax(spatial, 1), what="predict_proba of logits (2, 3, 4, 5): dim 1")
    seq = torch.randn(2, 3, 4)
    assert_close(sub.predict_proba(seq), F.softmax(seq, 1), what="predict_proba of logits (2, 3, 4): dim 1")


@check("dtype")
def test_result_dtype(sub):
    targets = torch.tensor([2, 0, 1])
    for dtype in (torch.float32, torch.float64):
        logits = torch.randn(3, 3, dtype=dtype)
        out = _scalar(sub.classification_loss(logits, targets), what=f"classification_loss for {dtype} logits")
        assert_dtype(out, dtype, what=f"classification_loss for {dtype} logits")
        assert_close(out, F.cross_entropy(logits, targets), what=f"classification_loss for {dtype} logits")
    logits, probs = torch.randn(3, 4), F.softmax(torch.randn(3, 4, dtype=torch.float64), 1)
    out = _scalar(sub.classification_loss(logits, probs), what="float32 logits with float64 probabilities")
    assert_dtype(out, torch.float32, what="classification_loss of float32 logits with float64 probability targets")
    assert_close(out, F.cross_entropy(logits, probs.float()), what="float32 logits with float64 probabilities")


@check("device")
def test_meta_no_host_sync(sub):
    # CPU stand-in for the CUDA sync check: meta tensors have no values, so `.item()`, `.tolist()`,
    # Python branches on values and boolean-mask indexing fail here as they would sync on CUDA.
    logits, targets = torch.randn(4, 3), torch.tensor([0, -100, 2, 1])
    assert_close(_scalar(sub.classification_loss(logits, targets)), F.cross_entropy(logits, targets),
                 what="classification_loss with an ignored position")
    cases = [(torch.empty(4, 3, device="meta"), torch.empty(4, dtype=torch.long, device="meta"), {}),
             (torch.empty(2, 3, 4, 4, device="meta"), torch.empty(2, 4, 4, dtype=torch.int32, device="meta"),
              {"ignore_index": 1}),
             (torch.empty(4, 3, device="meta"), torch.empty(4, 3, device="meta"), {})]
    for logits, targets, kwargs in cases:
        what = f"classification_loss of meta logits {tuple(logits.shape)}, {targets.dtype} targets"
        out = _scalar(sub.classification_loss(logits, targets, **kwargs), what=what)
        assert_device(out, "meta", what=what)


@requires_cuda
@check("device")
def test_cuda_no_host_sync(sub):
    def run_without_sync(mod):
        logits = torch.randn(16, 5, device="cuda") * 10
        targets = torch.randint(0, 5, (16,), device="cuda", dtype=torch.int32)
        targets[::4] = -100
        probs = torch.softmax(torch.randn(16, 5, device="cuda"), 1)
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")
        try:
            outs = (mod.classification_loss(logits, targets), mod.classification_loss(logits, probs))
        finally:
            torch.cuda.set_sync_debug_mode("default")
        return logits, targets, probs, outs

    logits, targets, probs, (hard, soft) = sub.probe(run_without_sync, sub)
    assert_device(hard, "cuda", what="the loss of CUDA logits")
    assert_close(hard, F.cross_entropy(logits, targets.long()), atol=1e-5, what="hard-label loss on CUDA")
    assert_close(soft, F.cross_entropy(logits, probs), atol=1e-5, what="soft-label loss on CUDA")
