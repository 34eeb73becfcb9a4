"""Hidden checks for 06_gather_and_masks."""
import pytest
import torch

from grader.testing import assert_close, assert_device, assert_dtype, assert_shape, check, requires_cuda


@check("shape")
def test_pick_target_scores_shape(sub):
    # N != C, so neither the (N, N) fancy-index result nor a (N, 1) gather can pass.
    logits, targets = torch.randn(5, 7), torch.tensor([0, 6, 3, 3, 1])
    assert_shape(sub.pick_target_scores(logits, targets), (5,))


@check("value", weight=2)
def test_pick_matches_loop(sub, device):
    logits = torch.randn(9, 4, device=device)
    targets = torch.randint(0, 4, (9,), device=device)
    expected = torch.stack([logits[i, int(targets[i])] for i in range(9)])
    assert_close(sub.pick_target_scores(logits, targets), expected, atol=0, rtol=0)


@check("grad", weight=2)
def test_pick_grad_one_hot(sub):
    logits = torch.randn(6, 5, dtype=torch.float64, requires_grad=True)
    targets = torch.tensor([4, 0, 2, 2, 1, 3])
    out = sub.pick_target_scores(logits, targets)
    assert isinstance(out, torch.Tensor) and out.requires_grad, \
        "the result does not require grad: the selection must stay in the autograd graph"
    out.sum().backward()
    expected = torch.nn.functional.one_hot(targets, 5).to(torch.float64)
    assert_close(logits.grad, expected, what="d(out.sum())/d(logits)")


@check("value")
def test_zero_above_boundary(sub):
    # "entries > threshold": an entry equal to the threshold is kept (>= would zero it).
    x = torch.tensor([[0.5, 0.25, 0.75], [-1.0, 0.5, 2.0]])
    assert_close(sub.zero_above(x, 0.5), torch.tensor([[0.5, 0.25, 0.0], [-1.0, 0.5, 0.0]]), atol=0, rtol=0,
                 what="zero_above(x, 0.5) with entries equal to 0.5 (kept: only > threshold is zeroed)")


@check("value", weight=2)
def test_zero_above_input_untouched(sub):
    def observe(mod, x, threshold):
        version = x._version
        out = mod.zero_above(x, threshold)
        return {"x_after": x, "version_same": x._version == version, "out": out, "same_object": out is x}

    x = torch.randn(6, 5)
    original = x.clone()
    seen = sub.probe(observe, sub, x, 0.3)
    assert not seen["same_object"], "zero_above returned its input: it must return a new tensor"
    assert torch.equal(seen["x_after"], original) and seen["version_same"], \
        "zero_above modified its input in place: work on a new tensor (clone, torch.where or masked_fill)"
    assert_close(seen["out"], torch.where(original > 0.3, torch.zeros_like(original), original), atol=0, rtol=0,
                 what="zero_above(x, 0.3)")


def _channel_input(layout):
    """(base, x): x is a (2, 3, 4) zero tensor viewing `base` in `layout` (built in the worker:
    arguments arrive contiguous). A view of x is a view of base."""
    if layout == "transposed":
        base = torch.zeros(3, 2, 4)
        return base, base.transpose(0, 1)
    if layout == "strided":
        base = torch.zeros(2, 3, 8)
        return base, base[..., ::2]
    base = torch.zeros(2, 3, 4)
    return base, base


@check("value", weight=2)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
def test_last_channel_is_view(sub, layout):
    def observe(mod, layout):
        base, x = _channel_input(layout)
        out = mod.last_channel(x)
        same_storage = out.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        out.fill_(7.0)  # a view must write through to x's last channel
        return {"shape": tuple(out.shape), "same_storage": same_storage, "base": base}

    seen = sub.probe(observe, sub, layout)
    what = f"a (2, 3, 4) {layout} input" if layout != "contiguous" else "a (2, 3, 4) input"
    assert seen["shape"] == (2, 3), f"expected a (2, 3) result for {what}, got {seen['shape']}"
    assert seen["same_storage"], \
        f"for {what} the result does not share storage with x: basic (integer/slice/ellipsis) indexing gives a " \
        "view whatever x's strides; fancy indexing, clone(), contiguous() and a reshape of a non-contiguous x copy"
    expected, x = _channel_input(layout)
    x[..., -1] = 7.0
    assert torch.equal(seen["base"], expected), f"writing into the result did not change x[..., -1] (and only it), for {what}"


@check("shape", weight=2)
@pytest.mark.parametrize("shape", [(5,), (4, 6), (2, 3, 4), (2, 1, 3, 5), (1, 2, 2, 3, 4)],
                         ids=["rank1", "rank2", "rank3", "rank4", "rank5"])
def test_last_channel_any_rank(sub, shape):
    x = torch.randn(shape)
    out = sub.last_channel(x)
    assert_shape(out, shape[:-1])
    assert_close(out, x[..., -1], atol=0, rtol=0)


@check("dtype", weight=2)
@pytest.mark.parametrize("k", [1, 3, 6], ids=["k1", "k3", "k_all"])
def test_topk_mask_dtype(sub, k):
    scores = torch.randn(8, 6)
    scores[0] = 1.0                        # a row of ties
    scores[1] = torch.tensor([2.0, 5.0, 5.0, 5.0, 1.0, 0.0])  # ties at the k-th value
    mask = sub.topk_mask(scores, k)
    assert_dtype(mask, torch.bool)
    assert_shape(mask, (8, 6))
    counts = mask.sum(dim=1)
    assert torch.all(counts == k), \
        f"expected exactly {k} True per row, got counts {counts.tolist()} (rows 0 and 1 contain ties)"


@check("value")
def test_topk_mask_selects_largest(sub):
    scores = torch.randn(10, 7)
    mask = sub.topk_mask(scores, 3)
    assert_dtype(mask, torch.bool)
    assert_shape(mask, (10, 7))
    expected = torch.zeros_like(mask).scatter(1, scores.topk(3, dim=1).indices, True)
    assert torch.equal(mask, expected), "the True entries are not each row's 3 largest scores"


@requires_cuda
@check("device")
def test_cuda_no_host_sync(sub):
    def run_without_sync(mod):
        logits = torch.randn(16, 10, device="cuda")
        targets = torch.randint(0, 10, (16,), device="cuda")
        x = torch.randn(4, 5, 6, device="cuda")
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")
        try:
            out = {"pick": mod.pick_target_scores(logits, targets), "zero": mod.zero_above(x, 0.5),
                   "last": mod.last_channel(x), "topk": mod.topk_mask(logits, 3)}
        finally:
            torch.cuda.set_sync_debug_mode("default")
        return out

    out = sub.probe(run_without_sync, sub)
    for name, value in out.items():
        assert_device(value, "cuda", what=f"the {name} result")
