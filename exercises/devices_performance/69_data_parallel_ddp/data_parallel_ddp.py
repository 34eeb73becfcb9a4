from __future__ import annotations
from collections.abc import Callable
from torch import Tensor, nn


def ddp_worker(rank: int, world_size: int, init_file: str, model_fn: Callable[[], nn.Module], data: Tensor, targets: Tensor,
               steps: int, lr: float, out_dir: str) -> None:
    """Run rank's share of data-parallel training of model_fn() on (data, targets) and save its trained weights in out_dir."""
    raise NotImplementedError


def unwrap_state_dict(state_dict: dict[str, Tensor]) -> dict[str, Tensor]:
    """Return state_dict with the key prefixes added by parallel wrappers and torch.compile removed."""
    raise NotImplementedError
