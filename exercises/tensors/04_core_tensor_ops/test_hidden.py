"""Hidden checks for 04_core_tensor_ops."""
import pytest
import torch

from grader.testing import assert_close, assert_device, assert_shape, check, requires_cuda

# --- shapes -----------------------------------------------------------------------------------------

@check("shape")
def test_stack_shape(sub):
    samples = [torch.randn(3, 8, 8) for _ in range(4)]
    out = sub.batch_from_samples(samples)
    assert_shape(out, (4, 3, 8, 8), what="batch_from_samples of 4 (3, 8, 8) samples")
    assert_close(out, torch.stack(samples), what="batch_from_samples")


@check("shape")
def test_concat_shape(sub):
    a, b = torch.randn(2, 5), torch.randn(3, 5)
    out = sub.concat_batches([a, b])
    assert_shape(out, (5, 5), what="concat_batches of (2, 5) and (3, 5)")
    assert_close(out, torch.cat([a, b]), what="concat_batches")
    parts = [torch.randn(2, 3, 4), torch.randn(1, 3, 4), torch.randn(4, 3, 4)]
    assert_shape(sub.concat_batches(parts), (7, 3, 4), what="concat_batches of (2|1|4, 3, 4)")


@check("shape")
def test_gram_shape(sub):
    assert_shape(sub.gram_matrix(torch.randn(2, 4, 3)), (2, 4, 4), what="gram_matrix of (2, 4, 3)")


# --- values -----------------------------------------------------------------------------------------

@check("value", weight=2)
def test_gram_matches_matmul(sub, device):
    x = torch.randn(3, 5, 4, device=device)
    out = sub.gram_matrix(x)
    assert_close(out, torch.bmm(x, x.transpose(1, 2)), what="gram_matrix")
    assert_close(out, out.transpose(1, 2), what="gram_matrix (must be symmetric)")
    assert_close(torch.diagonal(out, dim1=1, dim2=2), (x * x).sum(-1),
                 what="gram_matrix diagonal (squared row norms)")


@check("value", weight=2)
def test_row_normalize_sums_to_one(sub, device):
    x = torch.rand(5, 3, device=device) + 0.1  # non-square: normalising along dim 0 gives other values
    out = sub.row_normalize(x)
    assert_close(out.sum(dim=1), torch.ones(5, device=device), what="row sums of row_normalize(x)")
    assert_close(out, x / x.sum(dim=1, keepdim=True), what="row_normalize(x)")


@check("value")
def test_row_normalize_zero_rows(sub, device):
    x = torch.tensor([[1.0, 3.0, 4.0], [0.0, 0.0, 0.0], [2.0, 2.0, 0.0], [0.0, 0.0, 0.0]], device=device)
    out = sub.row_normalize(x)
    assert not torch.isnan(out).any(), "row_normalize gives NaN for all-zero rows: they must stay 0"
    expected = torch.tensor([[0.125, 0.375, 0.5], [0.0] * 3, [0.5, 0.5, 0.0], [0.0] * 3], device=device)
    assert_close(out, expected, what="row_normalize with all-zero rows")


@check("value")
def test_row_normalize_negative_sums(sub):
    # "Each row divided by its sum", negative sums included: clamping the sum to a small positive
    # epsilon (a common NaN guard) flips these rows' signs and blows them up.
    x = torch.tensor([[-1.0, -1.0, -2.0], [1.0, -3.0, 0.0]])
    expected = torch.tensor([[0.25, 0.25, 0.5], [-0.5, 1.5, 0.0]])
    assert_close(sub.row_normalize(x), expected, what="row_normalize with negative row sums")


@check("value", weight=2)
def test_inputs_untouched(sub):
    def observe(mod, x, g, samples):
        tensors = {"row_normalize's x": x, "gram_matrix's x": g,
                   **{f"samples[{i}]": s for i, s in enumerate(samples)}}
        before = {name: (t._version, t.clone()) for name, t in tensors.items()}
        outs = {"row_normalize": mod.row_normalize(x), "gram_matrix": mod.gram_matrix(g),
                "batch_from_samples": mod.batch_from_samples(samples),
                "concat_batches": mod.concat_batches(samples)}
        changed = [name for name, t in tensors.items()
                   if t._version != before[name][0] or not torch.equal(t, before[name][1])]
        return changed, outs

    x = torch.rand(4, 3) + 0.5
    g = torch.randn(2, 4, 3)
    samples = [torch.randn(2, 3, 3) for _ in range(3)]
    changed, outs = sub.probe(observe, sub, x.clone(), g.clone(), [s.clone() for s in samples])
    assert not changed, f"modified the caller's tensors in place: {', '.join(changed)} (use out-of-place ops)"
    expected = {"row_normalize": x / x.sum(dim=1, keepdim=True), "gram_matrix": torch.bmm(g, g.transpose(1, 2)),
                "batch_from_samples": torch.stack(samples), "concat_batches": torch.cat(samples)}
    for name, want in expected.items():
        assert_close(outs[name], want, what=f"{name} (while checking that inputs stay untouched)")


# --- api, grad, device -----------------------------------------------------------------------------

@check("api", weight=2)
def test_no_python_loops(sub):
    sub.static.require_implemented("gram_matrix", "row_normalize")
    g, x = torch.randn(2, 3, 2), torch.rand(3, 4) + 0.5
    assert_close(sub.gram_matrix(g), torch.bmm(g, g.transpose(1, 2)), what="gram_matrix of a (2, 3, 2) input")
    assert_close(sub.row_normalize(x), x / x.sum(dim=1, keepdim=True), what="row_normalize of a (3, 4) input")
    for name in ("gram_matrix", "row_normalize"):
        loops = sub.static.loops_in(name)
        assert not loops, f"{name} uses a {loops[0][1]} at line {loops[0][0]}: use batched tensor ops"


@check("grad")
@pytest.mark.parametrize("fn", ["gram_matrix", "row_normalize"])
def test_gradcheck(sub, fn):
    if fn == "gram_matrix":
        x = torch.randn(2, 3, 2, dtype=torch.float64, requires_grad=True)
    else:
        x = (torch.rand(3, 4, dtype=torch.float64) + 0.5).requires_grad_(True)  # non-zero rows
    func = getattr(sub, fn)
    plain = x.detach()
    expected = torch.bmm(plain, plain.transpose(1, 2)) if fn == "gram_matrix" else plain / plain.sum(1, keepdim=True)
    assert_close(func(plain.clone()), expected, what=f"{fn} of a float64 input")
    assert torch.autograd.gradcheck(lambda t: func(t), (x,)), f"gradcheck failed for {fn}"


@check("device")
def test_meta_no_data_dependence(sub):
    # CPU stand-in for the CUDA sync check: meta tensors have no values, so code that branches on
    # data (`if (s == 0).any():`, `.item()`, boolean indexing) fails here as it would sync on CUDA.
    x = torch.empty(5, 3, device="meta")
    out = sub.row_normalize(x)
    assert_device(out, "meta", what="row_normalize(meta tensor)")
    assert_shape(out, (5, 3), what="row_normalize(meta tensor)")
    g = sub.gram_matrix(torch.empty(2, 4, 3, device="meta"))
    assert_device(g, "meta", what="gram_matrix(meta tensor)")
    assert_shape(g, (2, 4, 4), what="gram_matrix(meta tensor)")


@requires_cuda
@check("device")
def test_cuda_no_host_sync(sub):
    def run_without_sync(mod):
        x = torch.rand(64, 16, device="cuda")
        x[3] = 0
        g = torch.randn(4, 8, 5, device="cuda")
        samples = [torch.randn(3, 4, 4, device="cuda") for _ in range(2)]
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")
        try:
            outs = (mod.row_normalize(x), mod.gram_matrix(g), mod.batch_from_samples(samples),
                    mod.concat_batches(samples))
        finally:
            torch.cuda.set_sync_debug_mode("default")
        return outs

    for out, name in zip(sub.probe(run_without_sync, sub),
                         ("row_normalize", "gram_matrix", "batch_from_samples", "concat_batches"), strict=True):
        assert_device(out, "cuda", what=name)
