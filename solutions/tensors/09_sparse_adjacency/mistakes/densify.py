"""Densifies the adjacency to normalise it: `a = adj.to_dense()`.

Correct values on small graphs, but an (n, n) dense matrix costs n^2 memory: the point of a sparse
adjacency is lost, and at n = 200 000 the 160 GB allocation fails.

Caught by: test_never_densifies, test_perf_large_graph
"""
from __future__ import annotations

import torch
from torch import Tensor


def edges_to_sparse(edge_index: Tensor, num_nodes: int, weights: Tensor | None = None) -> Tensor:
    indices = edge_index.long()
    values = torch.ones(indices.shape[1]) if weights is None else weights.float()
    return torch.sparse_coo_tensor(indices, values, (num_nodes, num_nodes)).coalesce()


def normalized_propagate(adj: Tensor, x: Tensor) -> Tensor:
    a = adj.to_dense()
    deg = a.sum(dim=1, keepdim=True)
    return (a @ x) / torch.where(deg == 0, torch.ones_like(deg), deg)
