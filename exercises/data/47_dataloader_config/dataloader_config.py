from __future__ import annotations

import torch
from torch.utils.data import DataLoader, Dataset


def make_loaders(train_ds: Dataset, val_ds: Dataset, batch_size: int, num_workers: int = 0,
                 device: torch.device | str = "cpu", seed: int = 0) -> tuple[DataLoader, DataLoader]:
    """Returns a training loader over train_ds and an evaluation loader over val_ds. Each is configured for its job and for the device the batches will go to."""
    raise NotImplementedError
