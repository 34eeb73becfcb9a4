"""A correct alternative: the recurrent layer left sequence-first (the default layout), x transposed
to (T, B, input) before it; the last layer's final states read from h_n viewed as
(layers, directions, B, hidden)."""
from __future__ import annotations

from torch import Tensor, nn


class SeqClassifier(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, num_classes, cell="lstm", bidirectional=False):
        super().__init__()
        layer = {"rnn": nn.RNN, "lstm": nn.LSTM, "gru": nn.GRU}[cell]
        self.rnn = layer(input_size, hidden_size, num_layers, bidirectional=bidirectional)
        self.dirs = 2 if bidirectional else 1
        self.fc = nn.Linear(hidden_size * self.dirs, num_classes)

    def forward(self, x: Tensor, h0=None) -> Tensor:
        _, state = self.rnn(x.transpose(0, 1), h0)
        h_n = state[0] if isinstance(state, tuple) else state
        layers = h_n.view(self.rnn.num_layers, self.dirs, h_n.shape[1], h_n.shape[2])
        last = layers[-1]                       # (dirs, B, hidden)
        return self.fc(last.permute(1, 0, 2).reshape(h_n.shape[1], -1))
