"""Leaves batch_first at its default (False): axis 0 of x is read as time, so (B, T, F) input
runs T sequences of B steps and the logits come out (T, C).

Caught by: test_all_combinations_shape, test_batch_not_time
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
        self.rnn = CELLS[cell](input_size, hidden_size, num_layers=num_layers,
                               bidirectional=bidirectional)
        self.fc = nn.Linear(hidden_size * self.directions, num_classes)

    def forward(self, x: Tensor, h0: Tensor | tuple[Tensor, Tensor] | None = None) -> Tensor:
        _, state = self.rnn(x, h0)
        h_n = state[0] if isinstance(state, tuple) else state  # LSTM: (h_n, c_n)
        last = h_n[-self.directions:]  # the last layer: forward (then backward) direction
        return self.fc(torch.cat(list(last), dim=-1))
