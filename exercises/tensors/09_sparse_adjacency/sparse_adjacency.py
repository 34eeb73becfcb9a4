from __future__ import annotations

from torch import Tensor


def edges_to_sparse(edge_index: Tensor, num_nodes: int, weights: Tensor | None = None) -> Tensor:
    """Return the coalesced sparse COO float32 adjacency matrix (num_nodes, num_nodes) of the edges in edge_index (2, E), with duplicate edges summed. Each edge weighs 1 unless weights are given."""
    raise NotImplementedError


def normalized_propagate(adj: Tensor, x: Tensor) -> Tensor:
    """Return D^-1 A x for a sparse adjacency A (n, n) and dense features x (n, F), where D holds the row sums of A. Rows of A without entries give zero rows, and A is never made dense."""
    raise NotImplementedError
