"""Ignores get_worker_info(): with num_workers > 0 every worker yields the whole stream, so each line arrives num_workers times.

Caught by: test_stream_each_line_once, test_stream_uses_worker_info
"""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import torch
from torch import Tensor
from torch.utils.data import Dataset, IterableDataset, get_worker_info


class MemmapDataset(Dataset):
    """Rows of a raw float32 file of shape (num_rows, num_features), read lazily via np.memmap opened on first access in each process; items are float32 (F,) tensors owning their memory."""

    def __init__(self, path: str, num_rows: int, num_features: int) -> None:
        self.path = str(path)
        self.num_rows = int(num_rows)
        self.num_features = int(num_features)
        self._data: np.memmap | None = None      # opened lazily, in the process that reads

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_data"] = None                     # never pickle the mapping (or its pages)
        return state

    def _rows(self) -> np.memmap:
        if self._data is None:
            self._data = np.memmap(self.path, dtype=np.float32, mode="r",
                                   shape=(self.num_rows, self.num_features))
        return self._data

    def __len__(self) -> int:
        return self.num_rows

    def __getitem__(self, idx: int) -> Tensor:
        if not -self.num_rows <= idx < self.num_rows:
            raise IndexError(f"index {idx} out of range for {self.num_rows} rows")
        row = np.array(self._rows()[idx], dtype=np.float32, copy=True)   # writable, owned
        return torch.from_numpy(row)


class ShardedLineStream(IterableDataset):
    """Yields int64 0-dim tensors int(line) for every line of the given text files; with num_workers > 0 each line is yielded exactly once across workers."""

    def __init__(self, paths: list[str]) -> None:
        self.paths = [str(p) for p in paths]

    def __iter__(self) -> Iterator[Tensor]:
        info = None
        worker, workers = (0, 1) if info is None else (info.id, info.num_workers)
        k = 0                                       # global line number, across files
        for path in self.paths:
            with open(path) as f:
                for line in f:
                    if not line.strip():
                        continue
                    if k % workers == worker:
                        yield torch.tensor(int(line), dtype=torch.int64)
                    k += 1
