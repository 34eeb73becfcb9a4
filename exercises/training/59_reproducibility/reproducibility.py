from __future__ import annotations

from torch.utils.data import DataLoader, Dataset


def set_seed(seed: int, deterministic: bool = False) -> None:
    """Seeds the random generators a training run draws from. With deterministic, it also makes GPU computations repeatable."""
    raise NotImplementedError


def seed_worker(worker_id: int) -> None:
    """Seeds a DataLoader worker's NumPy and Python random generators, for use as a worker_init_fn."""
    raise NotImplementedError


def reproducible_loader(dataset: Dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    """Returns a shuffled DataLoader whose order and worker-side randomness depend only on seed."""
    raise NotImplementedError
