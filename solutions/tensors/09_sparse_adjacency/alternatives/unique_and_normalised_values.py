"""A correct alternative: duplicates merged by hand with unique + index_add, D^-1 applied to A's values."""
from __future__ import annotations

import torch
from torch import Tensor


def edges_to_sparse(edge_index: Tensor, num_nodes: int, weights: Tensor | None = None) -> Tensor:
    """edge_index (2,E) int -> coalesced sparse COO (num_nodes,num_nodes) float32 adjacency; duplicate edges are summed; weights default to 1."""
    src, dst = edge_index.long()
    if weights is None:
        weights = torch.ones(src.numel(), device=src.device)
    weights = weights.float()
    # one integer key per (src, dst) pair: unique() sorts them row-major, which is COO's coalesced order
    keys, slot = torch.unique(src * num_nodes + dst, return_inverse=True)
    values = torch.zeros(keys.numel(), dtype=torch.float32, device=src.device).index_add(0, slot, weights)
    indices = torch.stack([keys // num_nodes, keys % num_nodes])
    return torch.sparse_coo_tensor(indices, values, (num_nodes, num_nodes), is_coalesced=True)


def normalized_propagate(adj: Tensor, x: Tensor) -> Tensor:
    """Row-normalised propagation D^-1 A x for sparse A and dense x (n,F); rows without edges give zeros; A is never densified."""
    adj = adj.coalesce()
    rows = adj.indices()[0]
    values = adj.values()
    deg = torch.zeros(adj.shape[0], dtype=values.dtype, device=values.device).index_add(0, rows, values)
    # every stored entry lies in a row with a nonzero degree; empty rows simply stay zero after mm
    normalised = torch.sparse_coo_tensor(adj.indices(), values / deg[rows], adj.shape, is_coalesced=True)
    return torch.sparse.mm(normalised, x)
