from __future__ import annotations

from torch import Tensor, nn


def named_mlp(sizes: list[int]) -> nn.Sequential:
    """Return a Sequential of Linear and ReLU layers whose children are named fc1, act1, fc2, and so on."""
    raise NotImplementedError


class MultiTaskHeads(nn.Module):
    """A shared trunk with one Linear head per task."""

    def __init__(self, in_features: int, hidden: int, task_classes: dict[str, int]) -> None:
        """Build the trunk and one head per entry of task_classes."""
        raise NotImplementedError

    def forward(self, x: Tensor, task: str) -> Tensor:
        """Return the logits of the named task, shaped (B, task_classes[task])."""
        raise NotImplementedError


class TwoTower(nn.Module):
    """Two residual encoders whose outputs are compared by cosine similarity."""

    def __init__(self, dim_a: int, dim_b: int, dim: int, num_layers: int) -> None:
        """Build both towers as the README describes."""
        raise NotImplementedError

    def forward(self, a: Tensor, b: Tensor) -> Tensor:
        """Return the cosine similarity of the encodings of a and b, shaped (B,)."""
        raise NotImplementedError
