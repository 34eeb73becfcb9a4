"""Hidden checks for 09_sparse_adjacency."""
import pytest
import torch

from grader.testing import (assert_close, assert_device, assert_dtype, assert_shape, check, judge_cpu_seconds,
                            requires_cuda)

# A small directed graph on 8 nodes: duplicates (1->2 twice, 4->5 three times), a node with
# out-edges to several neighbours, node 6 with only an incoming edge, node 7 with no edge at all.
EDGES = torch.tensor([[0, 0, 0, 1, 1, 2, 3, 3, 4, 4, 4, 5, 5, 2],
                      [1, 2, 3, 2, 2, 0, 4, 6, 5, 5, 5, 0, 3, 5]])
N = 8


def dense_adjacency(edge_index, n, weights=None, dtype=torch.float32):
    """Dense reference: duplicates summed by index_put_(accumulate=True)."""
    ei = edge_index.long()
    if weights is None:
        weights = torch.ones(ei.shape[1], dtype=dtype)
    return torch.zeros(n, n, dtype=weights.dtype).index_put((ei[0], ei[1]), weights, accumulate=True)


def dense_propagate(a, x):
    deg = a.sum(dim=1, keepdim=True)
    return (a @ x) / torch.where(deg == 0, torch.ones_like(deg), deg)


def positive_weights(e):
    return torch.rand(e) + 0.5


@check("api", weight=2)
def test_sparse_layout_coalesced(sub):
    def observe(mod, edge_index, n):
        adj = mod.edges_to_sparse(edge_index, n)
        info = {"layout": str(adj.layout)}
        if adj.layout == torch.sparse_coo:
            info.update(coalesced=adj.is_coalesced(), nnz=adj._nnz())
        return info

    seen = sub.probe(observe, sub, EDGES, N)
    assert seen["layout"] == str(torch.sparse_coo), f"expected a sparse COO tensor, got layout {seen['layout']}"
    assert seen["coalesced"], "the adjacency is not coalesced: duplicate entries are only summed by .coalesce()"
    unique = torch.unique(EDGES, dim=1).shape[1]
    assert seen["nnz"] == unique, f"expected {unique} stored entries (one per unique edge), got {seen['nnz']}"


@check("value", weight=2)
@pytest.mark.parametrize("weighted", [False, True], ids=["default_weights", "weighted"])
def test_dense_matches_reference(sub, weighted):
    weights = positive_weights(EDGES.shape[1]) if weighted else None
    adj = sub.edges_to_sparse(EDGES, N, weights) if weighted else sub.edges_to_sparse(EDGES, N)
    assert isinstance(adj, torch.Tensor) and adj.layout == torch.sparse_coo, "expected a sparse COO tensor"
    assert_close(adj.to_dense(), dense_adjacency(EDGES, N, weights), what="edges_to_sparse(...).to_dense()")


@check("shape")
def test_shape_isolated_last_node(sub):
    edges = torch.tensor([[0, 1, 2, 3], [1, 2, 3, 0]])
    adj = sub.edges_to_sparse(edges, 6)        # nodes 4 and 5 have no edges
    assert_shape(adj, (6, 6), what="edges_to_sparse(edges among nodes 0..3, num_nodes=6)")


@check("dtype")
def test_int32_edge_index(sub):
    edges = EDGES.to(torch.int32)
    adj = sub.edges_to_sparse(edges, N)
    assert_dtype(adj, torch.float32, what="the adjacency")
    assert adj.layout == torch.sparse_coo, "expected a sparse COO tensor"
    assert_close(adj.to_dense(), dense_adjacency(EDGES, N), what="adjacency from int32 edge_index (ones, summed)")


@check("dtype")
def test_float32_whatever_the_dtypes(sub):
    # "float32" is float32: not the caller's default dtype, not the weights' dtype.
    def under_float64_default(mod, edge_index, n):
        previous = torch.get_default_dtype()
        torch.set_default_dtype(torch.float64)
        try:
            return mod.edges_to_sparse(edge_index, n)
        finally:
            torch.set_default_dtype(previous)

    plain = sub.probe(under_float64_default, sub, EDGES, N)
    assert_dtype(plain, torch.float32, what="edges_to_sparse(edge_index, n) after torch.set_default_dtype(float64)")
    weights = positive_weights(EDGES.shape[1]).double()
    adj = sub.edges_to_sparse(EDGES, N, weights)
    assert_dtype(adj, torch.float32, what="edges_to_sparse(edge_index, n, float64 weights)")
    assert_close(adj.to_dense(), dense_adjacency(EDGES, N, weights.float()), what="adjacency from float64 weights")


@check("dtype")
def test_propagate_float64(sub):
    # A float64 adjacency and float64 features are valid inputs: the result is float64 and right.
    weights = positive_weights(EDGES.shape[1]).double()
    adj = torch.sparse_coo_tensor(EDGES, weights, (N, N)).coalesce()
    x = torch.randn(N, 3, dtype=torch.float64)
    out = sub.normalized_propagate(adj, x)
    assert_dtype(out, torch.float64, what="normalized_propagate(float64 adj, float64 x)")
    expected = dense_propagate(dense_adjacency(EDGES, N, weights), x)
    assert_close(out, expected, what="normalized_propagate(float64 adj, float64 x)")


@check("value", weight=2)
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_propagate_matches_dense(sub, weighted):
    weights = positive_weights(EDGES.shape[1]) if weighted else torch.ones(EDGES.shape[1])
    adj = torch.sparse_coo_tensor(EDGES, weights, (N, N)).coalesce()
    x = torch.randn(N, 5)
    out = sub.normalized_propagate(adj, x)
    assert_shape(out, (N, 5))
    nan_rows = torch.isnan(out).any(dim=1).nonzero().flatten().tolist()
    if nan_rows:
        raise AssertionError(f"NaN in rows {nan_rows}: rows without edges must give 0, not 0 / 0")
    expected = dense_propagate(dense_adjacency(EDGES, N, weights), x)
    assert_close(out, expected, atol=1e-5, rtol=1e-4, what="normalized_propagate(adj, x)")
    if not bool((out[6:] == 0).all()):
        raise AssertionError("nodes 6 and 7 have no outgoing edges: their rows must be exactly 0")


@check("api", weight=2)
def test_never_densifies(sub):
    def observe(mod, adj, x):
        calls = []
        original = torch.Tensor.to_dense

        def spy(self, *args, **kwargs):
            if self.layout != torch.strided and self.dim() == 2:
                calls.append(tuple(self.shape))
                raise RuntimeError(f"to_dense() was called on the {tuple(self.shape)} sparse adjacency: "
                                   f"propagate with sparse-dense products instead")
            return original(self, *args, **kwargs)

        out = None
        torch.Tensor.to_dense = spy
        try:
            out = mod.normalized_propagate(adj, x)
        except RuntimeError as exc:
            if isinstance(exc, NotImplementedError) or not calls:
                raise
        finally:
            torch.Tensor.to_dense = original
        return calls, out

    weights, x = positive_weights(EDGES.shape[1]), torch.randn(N, 3)
    adj = torch.sparse_coo_tensor(EDGES, weights, (N, N)).coalesce()
    calls, out = sub.probe(observe, sub, adj, x)
    assert not calls, f"to_dense() was called on a 2-D sparse tensor of shape {calls[0]}: A must stay sparse"
    assert_close(out, dense_propagate(dense_adjacency(EDGES, N, weights), x), atol=1e-5, rtol=1e-4,
                 what="normalized_propagate(adj, x) (while checking that A stays sparse)")


@check("grad", weight=2)
def test_grad_matches_dense(sub):
    def grads(mod, edge_index, n, weights, x, g):
        weights.requires_grad_(True)
        x.requires_grad_(True)
        out = mod.normalized_propagate(mod.edges_to_sparse(edge_index, n, weights), x)
        (out * g).sum().backward()
        return {"x": x.grad, "weights": weights.grad}

    weights, x, g = positive_weights(EDGES.shape[1]), torch.randn(N, 4), torch.randn(N, 4)
    seen = sub.probe(grads, sub, EDGES, N, weights.clone(), x.clone(), g)

    w_ref, x_ref = weights.clone().requires_grad_(True), x.clone().requires_grad_(True)
    (dense_propagate(dense_adjacency(EDGES, N, w_ref), x_ref) * g).sum().backward()
    assert seen["x"] is not None, "x.grad is None: the output is not connected to x"
    assert_close(seen["x"], x_ref.grad, atol=1e-5, rtol=1e-4, what="gradient w.r.t. x")
    assert seen["weights"] is not None, \
        "weights.grad is None: the adjacency values must stay connected to the weights tensor"
    assert_close(seen["weights"], w_ref.grad, atol=1e-5, rtol=1e-4, what="gradient w.r.t. weights")


# Calibrated on torch 2.13 CPU over seeds 0-9 (2 cores shared with other jobs): the reference takes
# 0.9-1.5x the baseline below (one coalesce of the raw edges plus one sparse @ dense product), i.e.
# 0.6-1.9 s depending on load. The limit is 3 s, raised to 4x the baseline on a loaded machine so
# that the check measures the algorithm, not the machine's load (the baseline is only measured when
# the 3 s are exceeded). Densifying fails outright (the worker cannot allocate 160 GB) and per-edge
# Python loops take far longer.
PERF_LIMIT_S = 3.0
PERF_BASELINE_FACTOR = 4.0


@check("perf", weight=2, timeout_s=25)
def test_perf_large_graph(sub):
    # Timed by the judge from outside the worker (`sub.cpu_timed`: CPU time, which load does not
    # change): nothing the worker says about time
    # counts (a clock patched in the worker, even one that restores itself, changes nothing).
    def run(mod, n, e, f):
        gen = torch.Generator().manual_seed(0)
        edge_index = torch.randint(0, n, (2, e), generator=gen)
        x = torch.randn(n, f, generator=gen)
        try:
            adj = mod.edges_to_sparse(edge_index, n)
            out = mod.normalized_propagate(adj, x)
        except (RuntimeError, MemoryError) as exc:
            if isinstance(exc, NotImplementedError):
                raise
            return {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"}
        if not isinstance(out, torch.Tensor):
            return {"error": f"returned a {type(out).__name__}, not a tensor"}
        return {"error": None, "shape": tuple(out.shape), "finite": bool(torch.isfinite(out).all()),
                "out": out.detach().to("cpu", torch.float32)}

    n, e = 200_000, 1_000_000
    seen, elapsed = sub.cpu_timed(run, sub, n, e, 16)
    if seen["error"] is not None:
        hint = (f": a dense (n, n) float32 matrix needs {n * n * 4 / 1e9:.0f} GB, keep A sparse"
                if "allocat" in seen["error"] else "")
        raise AssertionError(f"n={n}, E={e} raised {seen['error']}{hint}")
    if seen["shape"] != (n, 16):
        raise AssertionError(f"expected a ({n}, 16) result for n={n}, got shape {seen['shape']}")
    if not seen["finite"]:
        raise AssertionError(f"the n={n} result contains NaN or inf: guard the rows without edges")
    # the timed answer is judged for its values too (an answer that gives up when n is large must
    # not pass as fast): D^-1 A x computed here, in the judge
    gen = torch.Generator().manual_seed(0)
    edge_index = torch.randint(0, n, (2, e), generator=gen)
    x = torch.randn(n, 16, generator=gen)
    adj = torch.sparse_coo_tensor(edge_index, torch.ones(e), (n, n)).coalesce()
    deg = torch.sparse.mm(adj, torch.ones(n, 1))
    expected = torch.sparse.mm(adj, x) / torch.where(deg == 0, torch.ones_like(deg), deg)
    assert_close(seen["out"], expected, what=f"normalized_propagate on the n={n}, E={e} graph")
    baseline = None
    if elapsed >= PERF_LIMIT_S:  # how fast is this machine? torch's own primitives in the judge, CPU time too
        _, baseline = judge_cpu_seconds(
            lambda: torch.sparse.mm(torch.sparse_coo_tensor(edge_index, torch.ones(e), (n, n)).coalesce(), x))
    limit = PERF_LIMIT_S if baseline is None else max(PERF_LIMIT_S, PERF_BASELINE_FACTOR * baseline)
    if elapsed >= limit:
        raise AssertionError(f"n={n}, E={e} took {elapsed:.2f} s of CPU (limit {limit:.1f} s; one coalesce plus one "
                             f"sparse product took {baseline:.2f} s here): avoid Python loops and densifying")


@requires_cuda
@check("device")
def test_cuda_sparse(sub):
    def observe(mod, edge_index, n, x):
        edge_index, x = edge_index.cuda(), x.cuda()
        adj = mod.edges_to_sparse(edge_index, n)
        out = mod.normalized_propagate(adj, x)
        return {"adj_device": str(adj.device), "adj_layout": str(adj.layout), "out": out}

    x = torch.randn(N, 3)
    seen = sub.probe(observe, sub, EDGES, N, x)
    assert seen["adj_device"].startswith("cuda"), f"the adjacency is on {seen['adj_device']}, not CUDA"
    assert seen["adj_layout"] == str(torch.sparse_coo), f"expected a sparse COO tensor, got {seen['adj_layout']}"
    assert_device(seen["out"], "cuda")
    assert_close(seen["out"].cpu(), dense_propagate(dense_adjacency(EDGES, N), x), atol=1e-5, rtol=1e-4,
                 what="normalized_propagate on CUDA")
