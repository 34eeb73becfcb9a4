from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def edges_to_sparse(edge_index: Tensor, num_nodes: int, weights: Tensor | None = None) -> Tensor:
    """edge_index (2,E) int -> coalesced sparse COO (num_nodes,num_nodes) float32 adjacency; duplicate edges are summed; weights default to 1."""
    raise NotImplementedError


def normalized_propagate(adj: Tensor, x: Tensor) -> Tensor:
    """Row-normalised propagation D^-1 A x for sparse A and dense x (n,F); rows without edges give zeros; A is never densified."""
    raise NotImplementedError
