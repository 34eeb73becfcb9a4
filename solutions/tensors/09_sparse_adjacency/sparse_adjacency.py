"""Reference solution for 09_sparse_adjacency."""
from __future__ import annotations

import torch
from torch import Tensor


def edges_to_sparse(edge_index: Tensor, num_nodes: int, weights: Tensor | None = None) -> Tensor:
    """edge_index (2,E) int -> coalesced sparse COO (num_nodes,num_nodes) float32 adjacency; duplicate edges are summed; weights default to 1."""
    indices = edge_index.to(torch.long)
    if weights is None:
        values = torch.ones(indices.shape[1], dtype=torch.float32, device=indices.device)
    else:
        values = weights.to(device=indices.device, dtype=torch.float32)  # differentiable cast
    # Give the size explicitly: inferred from the indices it would drop trailing nodes without
    # edges. coalesce() sorts the indices and sums duplicate entries.
    return torch.sparse_coo_tensor(indices, values, (num_nodes, num_nodes)).coalesce()


def normalized_propagate(adj: Tensor, x: Tensor) -> Tensor:
    """Row-normalised propagation D^-1 A x for sparse A and dense x (n,F); rows without edges give zeros; A is never densified."""
    n = adj.shape[0]
    # Weighted out-degree (row sums) as a dense (n, 1) column, computed sparsely.
    deg = torch.sparse.mm(adj, torch.ones(n, 1, dtype=adj.dtype, device=adj.device))
    # Rows without edges have A x = 0: divide them by 1 instead of 0 so they stay 0 (no NaN, and
    # no inf * 0 in the backward pass either).
    safe = torch.where(deg == 0, torch.ones_like(deg), deg)
    return torch.sparse.mm(adj, x) / safe
