"""Public checks for 09_sparse_adjacency: run them with `grader check 09`."""
import torch

from grader.testing import assert_close, assert_shape, check


@check("value")
def test_edges_to_sparse_example(sub):
    edges = torch.tensor([[0, 1, 1], [1, 2, 2]])          # the edge 1 -> 2 appears twice
    adj = sub.edges_to_sparse(edges, 3)
    assert adj.layout == torch.sparse_coo, f"expected a sparse COO tensor, got {adj.layout}"
    assert_shape(adj, (3, 3))
    assert_close(adj.to_dense(), torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]]))


@check("value")
def test_propagate_example(sub):
    # 0 -> 1 (weight 1), 0 -> 2 (weight 3); nodes 1 and 2 have no outgoing edges.
    adj = torch.sparse_coo_tensor(torch.tensor([[0, 0], [1, 2]]), torch.tensor([1.0, 3.0]), (3, 3)).coalesce()
    x = torch.tensor([[0.0], [4.0], [8.0]])
    out = sub.normalized_propagate(adj, x)
    assert_close(out, torch.tensor([[(1 * 4.0 + 3 * 8.0) / 4.0], [0.0], [0.0]]))
