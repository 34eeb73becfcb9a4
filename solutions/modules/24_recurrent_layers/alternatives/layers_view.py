"""Splits h_n into (layers, directions, B, H) with a view and flattens the last layer's
directions with permute + reshape; builds the layer class with an if-chain."""
from __future__ import annotations

from torch import Tensor, nn


class SeqClassifier(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, num_classes, cell="lstm", bidirectional=False):
        super().__init__()
        if cell == "rnn":
            kind = nn.RNN
        elif cell == "gru":
            kind = nn.GRU
        elif cell == "lstm":
            kind = nn.LSTM
        else:
            raise ValueError(f"unknown cell {cell!r}")
        self.layers, self.dirs, self.hidden = num_layers, 1 + int(bidirectional), hidden_size
        self.rnn = kind(input_size, hidden_size, num_layers, batch_first=True, bidirectional=bidirectional)
        self.fc = nn.Linear(self.dirs * hidden_size, num_classes)

    def forward(self, x: Tensor, h0=None) -> Tensor:
        _, final = self.rnn(x, h0)
        if isinstance(self.rnn, nn.LSTM):
            final, _cell = final
        batch = x.size(0)
        last = final.view(self.layers, self.dirs, batch, self.hidden)[-1]
        return self.fc(last.permute(1, 0, 2).reshape(batch, self.dirs * self.hidden))
