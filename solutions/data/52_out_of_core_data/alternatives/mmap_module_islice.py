"""The standard library's mmap opened on first access (pid-checked, so a forked worker opens its
own), rows decoded with np.frombuffer and copied; the stream strides over a chained line
iterator with itertools.islice."""
from __future__ import annotations

import itertools
import mmap
import os

import numpy as np
import torch
import torch.utils.data as tud


class MemmapDataset(tud.Dataset):
    def __init__(self, path: str, num_rows: int, num_features: int) -> None:
        self.path = path
        self.n = num_rows
        self.f = num_features
        self._map = None
        self._pid = None

    def __reduce__(self):
        return (type(self), (self.path, self.n, self.f))

    def _buffer(self):
        if self._map is None or self._pid != os.getpid():
            with open(self.path, "rb") as fh:
                self._map = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
            self._pid = os.getpid()
        return self._map

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, idx: int) -> torch.Tensor:
        if idx < 0:
            idx += self.n
        if not 0 <= idx < self.n:
            raise IndexError(f"row {idx} of {self.n}")
        width = 4 * self.f
        row = np.frombuffer(self._buffer(), dtype=np.float32, count=self.f, offset=idx * width)
        return torch.from_numpy(row.copy())


class ShardedLineStream(tud.IterableDataset):
    def __init__(self, paths: list[str]) -> None:
        self.paths = paths

    def __iter__(self):
        info = tud.get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        lines = itertools.chain.from_iterable(open(p) for p in self.paths)
        for line in itertools.islice(lines, start, None, step):
            yield torch.tensor(int(line), dtype=torch.long)
