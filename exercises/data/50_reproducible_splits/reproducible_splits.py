from __future__ import annotations

from collections.abc import Callable, Sequence

from torch.utils.data import Dataset, Subset


def split_indices(n: int, fractions: Sequence[float], seed: int) -> list[list[int]]:
    """Returns the indices of each split of range(n), one list per fraction."""
    raise NotImplementedError


def make_splits(dataset_factory: Callable[[Callable | None], Dataset], n: int, fractions: Sequence[float], seed: int,
                train_transform: Callable | None, eval_transform: Callable | None) -> list[Subset]:
    """Returns one Subset per fraction, the first for training and the others for evaluation, each with its own transform."""
    raise NotImplementedError
