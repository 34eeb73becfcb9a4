"""Converts the weights with `torch.tensor(weights, dtype=torch.float32)`.

torch.tensor always copies its input into a new leaf that does not require grad, so the adjacency
is cut off from `weights`: values are right, but no gradient ever reaches the edge weights (torch
even warns about it). `weights.to(torch.float32)` keeps the graph.

Caught by: test_grad_matches_dense
"""
from __future__ import annotations

import torch
from torch import Tensor


def edges_to_sparse(edge_index: Tensor, num_nodes: int, weights: Tensor | None = None) -> Tensor:
    indices = edge_index.long()
    if weights is None:
        values = torch.ones(indices.shape[1])
    else:
        values = torch.tensor(weights, dtype=torch.float32)
    return torch.sparse_coo_tensor(indices, values, (num_nodes, num_nodes)).coalesce()


def normalized_propagate(adj: Tensor, x: Tensor) -> Tensor:
    deg = torch.sparse.mm(adj, torch.ones(adj.shape[0], 1))
    return torch.sparse.mm(adj, x) / torch.where(deg == 0, torch.ones_like(deg), deg)
