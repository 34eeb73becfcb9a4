from __future__ import annotations

from torch import Tensor, nn


def pad_collate(batch: list[tuple[Tensor, int]], pad_value: float = 0.0) -> tuple[Tensor, Tensor, Tensor]:
    """Collates (sequence, label) pairs of different lengths into one batch. Returns the padded sequences, their lengths and their labels, in the batch's order."""
    raise NotImplementedError


class PackedGRUClassifier(nn.Module):
    """A GRU classifier over padded batches whose logits for each sequence do not depend on its padding."""
    def __init__(self, input_size: int, hidden_size: int, num_classes: int) -> None:
        raise NotImplementedError

    def forward(self, padded: Tensor, lengths: Tensor) -> Tensor:
        """Returns the logits of every sequence of the padded batch."""
        raise NotImplementedError
