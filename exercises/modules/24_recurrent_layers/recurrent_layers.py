from __future__ import annotations

from typing import Literal

from torch import Tensor, nn


class SeqClassifier(nn.Module):
    """A recurrent layer (self.rnn) and a linear classifier (self.fc) on the sequence's final hidden state."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int, num_classes: int,
                 cell: Literal["rnn", "lstm", "gru"] = "lstm", bidirectional: bool = False) -> None:
        """Build self.rnn and self.fc as the README describes."""
        raise NotImplementedError

    def forward(self, x: Tensor, h0: Tensor | tuple[Tensor, Tensor] | None = None) -> Tensor:
        """Return the logits (B, num_classes) for x of shape (B, T, input_size)."""
        raise NotImplementedError
