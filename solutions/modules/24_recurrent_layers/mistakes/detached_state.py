"""Detaches the final state before the classifier (a habit from truncated backpropagation
through time): no gradient reaches x.

Caught by: test_grad_reaches_first_step
"""
from __future__ import annotations

from typing import Literal

import torch
from torch import Tensor, nn

CELLS = {"rnn": nn.RNN, "lstm": nn.LSTM, "gru": nn.GRU}


class SeqClassifier(nn.Module):
    """self.rnn = nn.{RNN,LSTM,GRU}(batch_first=True, ...); self.fc = Linear(hidden*dirs, num_classes) on the LAST layer's final hidden state (both directions concatenated)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int, num_classes: int,
                 cell: Literal["rnn", "lstm", "gru"] = "lstm", bidirectional: bool = False) -> None:
        super().__init__()
        self.directions = 2 if bidirectional else 1
        self.rnn = CELLS[cell](input_size, hidden_size, num_layers=num_layers, batch_first=True,
                               bidirectional=bidirectional)
        self.fc = nn.Linear(hidden_size * self.directions, num_classes)

    def forward(self, x: Tensor, h0: Tensor | tuple[Tensor, Tensor] | None = None) -> Tensor:
        _, state = self.rnn(x, h0)
        h_n = state[0] if isinstance(state, tuple) else state  # LSTM: (h_n, c_n)
        last = h_n[-self.directions:]  # the last layer: forward (then backward) direction
        return self.fc(torch.cat(list(last), dim=-1).detach())
