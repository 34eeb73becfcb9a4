"""Reads the final states from the per-step outputs: the forward direction ends at the last step,
the backward direction at step 0 (the last layer's only)."""
from __future__ import annotations

import torch
from torch import Tensor, nn


class SeqClassifier(nn.Module):
    def __init__(self, input_size: int, hidden_size: int, num_layers: int, num_classes: int,
                 cell: str = "lstm", bidirectional: bool = False) -> None:
        super().__init__()
        layer = getattr(nn, cell.upper())
        self.hidden_size = hidden_size
        self.bidirectional = bidirectional
        self.rnn = layer(input_size=input_size, hidden_size=hidden_size, num_layers=num_layers,
                         bidirectional=bidirectional, batch_first=True)
        self.fc = nn.Linear(2 * hidden_size if bidirectional else hidden_size, num_classes)

    def forward(self, x: Tensor, h0=None) -> Tensor:
        output, _ = self.rnn(x) if h0 is None else self.rnn(x, h0)
        forward_end = output[:, -1, : self.hidden_size]
        if not self.bidirectional:
            return self.fc(forward_end)
        backward_end = output[:, 0, self.hidden_size:]
        return self.fc(torch.cat([forward_end, backward_end], dim=1))
