from __future__ import annotations

from collections.abc import Iterator

from torch import Tensor
from torch.utils.data import Dataset, IterableDataset


class MemmapDataset(Dataset):
    """A map-style dataset over the rows of a raw float32 file too large to load into memory. Item i is row i as a float32 tensor."""

    def __init__(self, path: str, num_rows: int, num_features: int) -> None:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def __getitem__(self, idx: int) -> Tensor:
        raise NotImplementedError


class ShardedLineStream(IterableDataset):
    """An iterable dataset that yields the integer on every line of the given text files, each line once across DataLoader workers."""

    def __init__(self, paths: list[str]) -> None:
        raise NotImplementedError

    def __iter__(self) -> Iterator[Tensor]:
        raise NotImplementedError
