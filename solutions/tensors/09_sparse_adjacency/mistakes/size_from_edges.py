"""Lets torch infer the size: `torch.sparse_coo_tensor(indices, values).coalesce()`.

The inferred size is (max index + 1) in each dimension, so nodes after the last one that appears
in an edge are dropped, and the matrix is not even square when the largest source and target
indices differ.

Caught by: test_shape_isolated_last_node
"""
from __future__ import annotations

import torch
from torch import Tensor


def edges_to_sparse(edge_index: Tensor, num_nodes: int, weights: Tensor | None = None) -> Tensor:
    indices = edge_index.long()
    values = torch.ones(indices.shape[1]) if weights is None else weights.float()
    return torch.sparse_coo_tensor(indices, values).coalesce()


def normalized_propagate(adj: Tensor, x: Tensor) -> Tensor:
    deg = torch.sparse.mm(adj, torch.ones(adj.shape[0], 1))
    return torch.sparse.mm(adj, x) / torch.where(deg == 0, torch.ones_like(deg), deg)
