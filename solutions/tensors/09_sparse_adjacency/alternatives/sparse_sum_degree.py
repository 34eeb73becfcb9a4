"""A correct alternative: sparse_coo_tensor with dtype=, degree from torch.sparse.sum, divide after mm."""
from __future__ import annotations

import torch
from torch import Tensor


def edges_to_sparse(edge_index: Tensor, num_nodes: int, weights: Tensor | None = None) -> Tensor:
    """edge_index (2,E) int -> coalesced sparse COO (num_nodes,num_nodes) float32 adjacency; duplicate edges are summed; weights default to 1."""
    if weights is None:
        weights = torch.ones(edge_index.shape[1], device=edge_index.device)
    adj = torch.sparse_coo_tensor(edge_index.long(), weights, size=(num_nodes, num_nodes),
                                  dtype=torch.float32, device=edge_index.device)
    return adj.coalesce()


def normalized_propagate(adj: Tensor, x: Tensor) -> Tensor:
    """Row-normalised propagation D^-1 A x for sparse A and dense x (n,F); rows without edges give zeros; A is never densified."""
    deg = torch.sparse.sum(adj, dim=1).to_dense()  # (n,) weighted out-degree; a 1-D vector, not A
    deg = torch.where(deg == 0, torch.ones_like(deg), deg)  # empty rows: A x is 0 there anyway
    return torch.sparse.mm(adj, x) / deg.unsqueeze(1)
