"""Attack: exercise 52's laziness check spies on numpy.fromfile (and the other whole-file readers)
while MemmapDataset is constructed. This is the reference whose __init__ also reads the whole file
through numpy.fromfile taken at import under a name built at run time and kept in a list: no
wrapper put on numpy.fromfile during the check sees the call.
Honest baseline: every check but the laziness check (the rows are the reference's).
Expected: the laziness check still fails: the spy's call watch sees numpy.fromfile called by the
candidate's code whatever reference it used, and the check's memory measurement, taken from outside
the worker, sees the 400 MB read (the spy alone is not what the check rests on).
"""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import torch
from torch import Tensor
from torch.utils.data import Dataset, IterableDataset, get_worker_info

_KEPT = [getattr(np, "from" + "file")]  # numpy.fromfile, taken at import, kept in a list


class MemmapDataset(Dataset):
    """Rows of a raw float32 file of shape (num_rows, num_features), read lazily via np.memmap opened on first access in each process; items are float32 (F,) tensors owning their memory."""

    def __init__(self, path: str, num_rows: int, num_features: int) -> None:
        self.path = str(path)
        self.num_rows = int(num_rows)
        self.num_features = int(num_features)
        self._data: np.memmap | None = None      # opened lazily, in the process that reads
        _KEPT[0](self.path, dtype=np.float32)     # ...after reading the whole file, unseen by the spy

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
        row = np.array(self._rows()[idx], dtype=np.float32, copy=True)   # writable, owned
        return torch.from_numpy(row)


class ShardedLineStream(IterableDataset):
    """Yields int64 0-dim tensors int(line) for every line of the given text files; with num_workers > 0 each line is yielded exactly once across workers."""

    def __init__(self, paths: list[str]) -> None:
        self.paths = [str(p) for p in paths]

    def __iter__(self) -> Iterator[Tensor]:
        info = get_worker_info()
        worker, workers = (0, 1) if info is None else (info.id, info.num_workers)
        k = 0                                       # global line number, across files
        for path in self.paths:
            with open(path) as f:
                for line in f:
                    if k % workers == worker:
                        yield torch.tensor(int(line), dtype=torch.int64)
                    k += 1
