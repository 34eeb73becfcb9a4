"""Hidden checks for 05_broadcast_bias."""
import torch

from grader.testing import assert_close, assert_device, assert_shape, check, requires_cuda


@check("shape")
def test_feature_bias_shape(sub):
    x, bias = torch.randn(32, 128), torch.randn(128)
    out = sub.add_feature_bias(x, bias)
    assert_shape(out, (32, 128))
    assert_close(out, x + bias, what="add_feature_bias(x, bias)")


@check("value", weight=2)
def test_sample_bias_square(sub, device):
    # N == F: the naive `x + bias` broadcasts per column and still has the right shape.
    x, bias = torch.randn(4, 4, device=device), torch.randn(4, device=device)
    assert_close(sub.add_sample_bias(x, bias), x + bias[:, None])


@check("value")
def test_sample_bias_rectangular(sub, device):
    x, bias = torch.randn(6, 3, device=device), torch.randn(6, device=device)
    assert_close(sub.add_sample_bias(x, bias), x + bias[:, None])


@check("shape")
def test_pairwise_shape(sub):
    assert_shape(sub.pairwise_sq_dists(torch.randn(7, 3), torch.randn(5, 3)), (7, 5))


@check("value", weight=2)
def test_pairwise_matches_cdist(sub, device):
    a, b = torch.randn(7, 16, device=device), torch.randn(5, 16, device=device)
    assert_close(sub.pairwise_sq_dists(a, b), torch.cdist(a, b) ** 2, atol=1e-4, rtol=1e-4)
    self_dists = sub.pairwise_sq_dists(a, a)
    assert_close(torch.diagonal(self_dists), torch.zeros(7, device=device), atol=1e-4, rtol=0,
                 what="diagonal of pairwise_sq_dists(a, a)")
    assert (self_dists >= 0).all(), "pairwise_sq_dists(a, a) has negative entries: clamp at 0"


@check("state")
def test_inputs_untouched(sub):
    # Inside the worker: the candidate must not reshape or overwrite the caller's tensors in place
    # (e.g. bias.unsqueeze_(1)), which would break the caller's next use of them.
    def observe(mod):
        x, bias_f, bias_n = torch.randn(3, 4), torch.randn(4), torch.randn(3)
        a, b = torch.randn(3, 2), torch.randn(5, 2)
        inputs = {"x": x, "feature bias": bias_f, "sample bias": bias_n, "a": a, "b": b}
        before = {k: (v.clone(), tuple(v.shape), v.stride()) for k, v in inputs.items()}
        outs = [mod.add_feature_bias(x, bias_f), mod.add_sample_bias(x, bias_n), mod.pairwise_sq_dists(a, b)]
        changed = [k for k, v in inputs.items()
                   if tuple(v.shape) != before[k][1] or v.stride() != before[k][2] or not torch.equal(v, before[k][0])]
        return changed, outs, {k: v[0] for k, v in before.items()}

    changed, outs, inputs = sub.probe(observe, sub)
    x, bias_f, bias_n, a, b = (inputs[k] for k in ("x", "feature bias", "sample bias", "a", "b"))
    for got, expected, name in zip(outs, [x + bias_f, x + bias_n[:, None], torch.cdist(a, b) ** 2],
                                   ["add_feature_bias", "add_sample_bias", "pairwise_sq_dists"]):
        assert isinstance(got, torch.Tensor), f"{name} returned {type(got).__name__}, not a tensor"
        assert_close(got, expected, atol=1e-4, rtol=1e-4, what=name)
    assert not changed, f"the caller's {', '.join(changed)} changed (values, shape or strides): do not modify inputs"


@check("api")
def test_no_cdist_no_loops(sub):
    sub.static.require_implemented("pairwise_sq_dists")
    # Credit for *how* it is computed only goes to a function that computes the right thing.
    a, b = torch.randn(4, 3), torch.randn(2, 3)
    assert_close(sub.pairwise_sq_dists(a, b), torch.cdist(a, b) ** 2, atol=1e-4, rtol=1e-4)
    lines = sub.static.uses("torch.cdist")
    assert not lines, f"torch.cdist is not allowed (line {lines[0]}): use broadcasting"
    loops = sub.static.loops_in("pairwise_sq_dists")
    assert not loops, f"pairwise_sq_dists uses a {loops[0][1]} at line {loops[0][0]}: use broadcasting"
    # and at run time, where every route to cdist's kernels meets (a name built at run time, a
    # reference taken at import, torch.ops.aten, dispatch modes disabled): torch's dispatcher
    reached = sub.probe(_cdist_reached, sub, torch.randn(64, 16), torch.randn(48, 16))
    assert not reached, (f"pairwise_sq_dists ran torch.cdist's kernel (aten.{reached[0]}) although no line "
                         f"names torch.cdist: use broadcasting")


def _cdist_reached(mod, a, b):
    from grader import probes

    return probes.forbid_ops(mod.pairwise_sq_dists, ("_euclidean_dist", "_cdist_forward"), a, b)[1]


@check("perf", weight=2)
def test_pairwise_memory_cpu(sub):
    # CPU fallback of the CUDA memory check: the memory the worker needs at its peak while computing
    # N = M = 1024, D = 128, above what a worker that has done nothing holds, with everything its
    # child processes wrote, measured from outside the worker. Memory held from before the call
    # counts (count_held): 512 MiB touched at import and freed inside the call, or a buffer
    # filled in place, would hide the (N, M, D) difference tensor (512 MiB; (N, M) is 4 MiB).
    n, d = 1024, 128
    a, b = torch.randn(n, d), torch.randn(n, d)
    # The first matmul allocates the BLAS library's workspace (tens of MiB, kept for the process's
    # life): warm it up in this worker before the measured call.
    sub.pairwise_sq_dists(a[:64], b[:64])
    out, used = sub.measure_memory(sub.pairwise_sq_dists, a, b, count_held=True)
    assert_shape(out, (n, n))
    assert used < 64 * 2**20, (f"the call needed {used / 2**20:.0f} MiB at its peak for N = M = {n}, D = {d} "
                               f"(limit 64 MiB, memory held from before the call included): avoid "
                               f"materialising the (N, M, D) difference tensor")


@requires_cuda
@check("perf", weight=2)
def test_pairwise_memory_cuda(sub):
    n, d = 4096, 256

    def peak_extra_bytes(mod, n, d):
        a = torch.randn(n, d, device="cuda")
        b = torch.randn(n, d, device="cuda")
        # cuBLAS allocates its workspace on the first matmul: not the candidate's memory
        mod.pairwise_sq_dists(a[:64], b[:64])
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        out = mod.pairwise_sq_dists(a, b)
        torch.cuda.synchronize()
        return torch.cuda.max_memory_allocated() - base, tuple(out.shape)

    extra, shape = sub.probe(peak_extra_bytes, sub, n, d)
    assert shape == (n, n)
    assert extra < 3 * n * n * 4, f"peak extra memory {extra / 2**20:.0f} MiB: avoid the (N, M, D) tensor"


@requires_cuda
@check("device")
def test_cuda_no_host_sync(sub):
    def run_without_sync(mod):
        a, b = torch.randn(64, 8, device="cuda"), torch.randn(32, 8, device="cuda")
        torch.cuda.set_sync_debug_mode("error")
        try:
            out = mod.pairwise_sq_dists(a, b)
        finally:
            torch.cuda.set_sync_debug_mode("default")
        return out

    out = sub.probe(run_without_sync, sub)
    assert_device(out, "cuda")
