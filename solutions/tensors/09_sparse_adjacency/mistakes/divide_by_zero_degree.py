"""Divides by the degree without guarding rows that have no edges.

For a node without outgoing edges both A x and the degree are 0, and 0 / 0 is NaN: the NaN rows
then spread through every later layer.

Caught by: test_propagate_matches_dense
"""
from __future__ import annotations

import torch
from torch import Tensor


def edges_to_sparse(edge_index: Tensor, num_nodes: int, weights: Tensor | None = None) -> Tensor:
    indices = edge_index.long()
    values = torch.ones(indices.shape[1]) if weights is None else weights.float()
    return torch.sparse_coo_tensor(indices, values, (num_nodes, num_nodes)).coalesce()


def normalized_propagate(adj: Tensor, x: Tensor) -> Tensor:
    deg = torch.sparse.sum(adj, dim=1).to_dense()
    return torch.sparse.mm(adj, x) / deg.unsqueeze(1)
