"""Builds the default weights with `torch.ones_like(edge_index[0])`.

ones_like copies the dtype of the index tensor, so the adjacency holds int64 (or int32) counts
instead of float32 weights: the dtype is wrong and sparse @ float products fail later.

Caught by: test_int32_edge_index, test_dense_matches_reference
"""
from __future__ import annotations

import torch
from torch import Tensor


def edges_to_sparse(edge_index: Tensor, num_nodes: int, weights: Tensor | None = None) -> Tensor:
    if weights is None:
        weights = torch.ones_like(edge_index[0])
    return torch.sparse_coo_tensor(edge_index.long(), weights, (num_nodes, num_nodes)).coalesce()


def normalized_propagate(adj: Tensor, x: Tensor) -> Tensor:
    deg = torch.sparse.mm(adj, torch.ones(adj.shape[0], 1))
    return torch.sparse.mm(adj, x) / torch.where(deg == 0, torch.ones_like(deg), deg)
