"""A functools.cached_property for the mapping (computed on first access, then in __dict__),
dropped from the pickled state; items copied with torch.tensor; the stream shards by file
(worker k reads files k, k + n, ...) when there are at least as many files as workers, by line
otherwise."""
from __future__ import annotations

import functools

import numpy as np
import torch
from torch.utils.data import Dataset, IterableDataset, get_worker_info


class MemmapDataset(Dataset):
    def __init__(self, path, num_rows, num_features):
        self.path, self.shape = path, (num_rows, num_features)

    @functools.cached_property
    def rows(self):
        return np.memmap(self.path, dtype="float32", mode="r", shape=self.shape)

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "rows"}

    def __len__(self):
        return self.shape[0]

    def __getitem__(self, idx):
        if idx < -self.shape[0] or idx >= self.shape[0]:
            raise IndexError(idx)
        return torch.tensor(self.rows[idx], dtype=torch.float32)


class ShardedLineStream(IterableDataset):
    def __init__(self, paths):
        self.paths = list(paths)

    def _lines(self, paths):
        for path in paths:
            with open(path) as f:
                yield from f

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            lines = self._lines(self.paths)
        elif len(self.paths) >= info.num_workers:
            lines = self._lines(self.paths[info.id::info.num_workers])
        else:
            lines = (line for k, line in enumerate(self._lines(self.paths)) if k % info.num_workers == info.id)
        for line in lines:
            yield torch.tensor(int(line))
