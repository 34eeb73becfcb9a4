"""Uses the number of stored neighbours as the degree (`bincount` of the row indices).

Right for a 0/1 adjacency, but with weights (or summed duplicate edges) the rows no longer sum to
1: D must hold the weighted row sums of A.

Caught by: test_propagate_matches_dense, test_grad_matches_dense
"""
from __future__ import annotations

import torch
from torch import Tensor


def edges_to_sparse(edge_index: Tensor, num_nodes: int, weights: Tensor | None = None) -> Tensor:
    indices = edge_index.long()
    values = torch.ones(indices.shape[1]) if weights is None else weights.float()
    return torch.sparse_coo_tensor(indices, values, (num_nodes, num_nodes)).coalesce()


def normalized_propagate(adj: Tensor, x: Tensor) -> Tensor:
    adj = adj.coalesce()
    deg = torch.bincount(adj.indices()[0], minlength=adj.shape[0]).to(x.dtype).unsqueeze(1)
    return torch.sparse.mm(adj, x) / deg.clamp_min(1)
