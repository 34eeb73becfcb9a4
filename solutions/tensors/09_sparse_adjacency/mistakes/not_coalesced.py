"""Returns the raw `torch.sparse_coo_tensor(...)` without `.coalesce()`.

Its to_dense() is right (duplicates are summed when densifying), but the tensor is uncoalesced:
duplicate edges are stored as separate entries, `_nnz()` counts them, and `.indices()` /
`.values()` raise until someone coalesces it.

Caught by: test_sparse_layout_coalesced
"""
from __future__ import annotations

import torch
from torch import Tensor


def edges_to_sparse(edge_index: Tensor, num_nodes: int, weights: Tensor | None = None) -> Tensor:
    indices = edge_index.long()
    values = torch.ones(indices.shape[1]) if weights is None else weights.float()
    return torch.sparse_coo_tensor(indices, values, (num_nodes, num_nodes))


def normalized_propagate(adj: Tensor, x: Tensor) -> Tensor:
    deg = torch.sparse.mm(adj, torch.ones(adj.shape[0], 1))
    return torch.sparse.mm(adj, x) / torch.where(deg == 0, torch.ones_like(deg), deg)
