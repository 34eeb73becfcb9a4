"""Hidden checks for 07_view_reshape_contiguous."""
import pytest
import torch

from grader.testing import assert_close, assert_device, assert_shape, check, requires_cuda

CONFIGS = [(2, 5, 3, 4), (3, 4, 2, 8), (1, 6, 4, 2)]  # (B, T, H, D)
CONFIG_IDS = ["B2_T5_H3_D4", "B3_T4_H2_D8", "B1_T6_H4_D2"]


def layouts(b, h, t, d):
    """(B, H, T, D) tensors with different memory layouts, as attention code produces them."""
    return {
        # split_heads' own output: a transposed view of a (B, T, H*D) buffer
        "split_heads_output": torch.randn(b, t, h * d).view(b, t, h, d).transpose(1, 2),
        # a freshly computed attention output such as attn @ v: contiguous (B, H, T, D)
        "contiguous": torch.randn(b, h, t, d),
        # a time-major (T, B, H, D) buffer permuted to (B, H, T, D)
        "time_major": torch.randn(t, b, h, d).permute(1, 2, 0, 3),
        # (B, H, D, T) with its last two dims swapped
        "last_dims_swapped": torch.randn(b, h, d, t).transpose(-1, -2),
    }


@check("shape")
def test_split_merge_shapes(sub):
    x = torch.randn(2, 5, 12)
    heads = sub.split_heads(x, 3)
    assert_shape(heads, (2, 3, 5, 4), what="split_heads((2, 5, 12), 3)")
    assert_shape(sub.merge_heads(torch.randn(2, 3, 5, 4)), (2, 5, 12), what="merge_heads((2, 3, 5, 4))")


@check("value", weight=2)
@pytest.mark.parametrize("b,t,h,d", CONFIGS, ids=CONFIG_IDS)
def test_split_merge_values(sub, b, t, h, d):
    x = torch.randn(b, t, h * d)
    assert_close(sub.split_heads(x, h), x.view(b, t, h, d).transpose(1, 2), atol=0, rtol=0,
                 what="split_heads(x)")
    assert_close(sub.merge_heads(sub.split_heads(x, h)), x, atol=0, rtol=0, what="merge_heads(split_heads(x))")


@check("shape", weight=2)
def test_split_is_view(sub):
    def observe(mod):
        x = torch.randn(2, 5, 12)
        out = mod.split_heads(x, 3)
        if not isinstance(out, torch.Tensor):
            return None, False
        return tuple(out.shape), out.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()

    shape, shared = sub.probe(observe, sub)
    assert shape == (2, 3, 5, 4), f"split_heads of a (2, 5, 12) input with 3 heads gave shape {shape}, expected (2, 3, 5, 4)"
    assert shared, "split_heads copied a contiguous input: splitting the last dim and transposing need no copy"


@check("value", weight=2)
@pytest.mark.parametrize("layout", ["split_heads_output", "contiguous", "time_major", "last_dims_swapped"])
def test_merge_accepts_noncontiguous(sub, layout):
    x = layouts(2, 3, 5, 4)[layout]
    try:
        out = sub.merge_heads(x)
    except RuntimeError as exc:
        raise AssertionError(f"merge_heads raised on a {layout} (B, H, T, D) input with strides {x.stride()}: "
                             f"after transposing, H and D are not adjacent in memory, so a bare .view "
                             f"cannot merge them ({exc})") from None
    assert_close(out, x.transpose(1, 2).reshape(2, 5, 12), atol=0, rtol=0, what=f"merge_heads({layout} input)")


@check("shape")
@pytest.mark.parametrize("layout", ["split_heads_output", "time_major"])
def test_merge_is_contiguous(sub, layout):
    def observe(mod, x):
        out = mod.merge_heads(x)
        return {"contiguous": out.is_contiguous(), "stride": tuple(out.stride()), "shape": tuple(out.shape)}

    seen = sub.probe(observe, sub, layouts(2, 3, 5, 4)[layout])
    assert seen["shape"] == (2, 5, 12), f"expected shape (2, 5, 12), got {seen['shape']}"
    assert seen["contiguous"], (f"merge_heads returned a non-contiguous tensor (strides {seen['stride']}) for a "
                                f"{layout} input: reshape returns a view whenever it can, so force the layout")


@check("value", weight=2)
@pytest.mark.parametrize("b,t", [(3, 4), (2, 2), (1, 5)], ids=["B3_T4", "B2_T2", "B1_T5"])
def test_flatten_time_major(sub, b, t):
    x = torch.randn(b, t, 6)
    expected = torch.stack([x[bi, ti] for ti in range(t) for bi in range(b)])
    assert_close(sub.flatten_time_major(x), expected, atol=0, rtol=0,
                 what="flatten_time_major(x) (row t*B + b must be x[b, t])")


@check("state")
def test_flatten_leaves_input_alone(sub):
    # Inside the worker: an in-place transpose_ on the caller's tensor changes its shape for the caller.
    def observe(mod, x):
        shape, stride = tuple(x.shape), x.stride()
        out = mod.flatten_time_major(x)
        return out, tuple(x.shape) == shape and x.stride() == stride

    x = torch.randn(3, 4, 6)
    out, untouched = sub.probe(observe, sub, x)
    assert isinstance(out, torch.Tensor), f"flatten_time_major returned {type(out).__name__}, not a tensor"
    assert_close(out, x.transpose(0, 1).reshape(12, 6), atol=0, rtol=0, what="flatten_time_major(x)")
    assert untouched, "flatten_time_major changed the shape or strides of the caller's x (transpose_?): leave x alone"


@check("grad", weight=2)
def test_grad_through_split_merge(sub):
    x = torch.randn(2, 5, 12, dtype=torch.float64, requires_grad=True)
    heads = sub.split_heads(x, 3)
    assert_shape(heads, (2, 3, 5, 4))
    out = sub.merge_heads(heads)
    assert isinstance(out, torch.Tensor) and out.requires_grad, \
        "merge_heads(split_heads(x)) does not require grad: the reshapes must stay in the autograd graph"
    out.sum().backward()
    assert_close(x.grad, torch.ones_like(x), what="grad of merge_heads(split_heads(x)).sum()")
    weights = torch.randn(2, 5, 12, dtype=torch.float64)
    x.grad = None
    (sub.merge_heads(sub.split_heads(x, 3)) * weights).sum().backward()
    assert_close(x.grad, weights, what="grad of (merge_heads(split_heads(x)) * w).sum()")


@requires_cuda
@check("device")
def test_cuda_roundtrip(sub):
    def run_without_sync(mod):
        x = torch.randn(2, 5, 12, device="cuda")
        seq = torch.randn(3, 4, 6, device="cuda")
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")
        try:
            heads = mod.split_heads(x, 3)
            merged = mod.merge_heads(heads)
            flat = mod.flatten_time_major(seq)
        finally:
            torch.cuda.set_sync_debug_mode("default")
        return {"x": x, "heads": heads, "merged": merged, "seq": seq, "flat": flat}

    out = sub.probe(run_without_sync, sub)
    for name in ("heads", "merged", "flat"):
        assert_device(out[name], "cuda", what=f"the {name} result")
    assert_close(out["merged"], out["x"], atol=0, rtol=0, what="merge_heads(split_heads(x)) on CUDA")
    assert_close(out["flat"], out["seq"].transpose(0, 1).reshape(12, 6), atol=0, rtol=0,
                 what="flatten_time_major on CUDA")
