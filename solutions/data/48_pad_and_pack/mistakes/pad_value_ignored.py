"""Ignores pad_value: pads with zeros always (pad_sequence called without padding_value).

Caught by: test_collate_shapes_and_padding
"""
from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence


def pad_collate(batch, pad_value=0.0):
    seqs = [seq for seq, _ in batch]
    lengths = torch.tensor([seq.shape[0] for seq in seqs], dtype=torch.int64)
    if (lengths == 0).any():
        raise ValueError("zero-length sequence")
    padded = pad_sequence(seqs, batch_first=True)
    labels = torch.tensor([int(label) for _, label in batch], dtype=torch.int64)
    return padded, lengths, labels


class PackedGRUClassifier(nn.Module):
    def __init__(self, input_size, hidden_size, num_classes):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, batch_first=True)
        self.fc = nn.Linear(hidden_size, num_classes)

    def forward(self, padded, lengths):
        packed = pack_padded_sequence(padded, lengths.cpu(), batch_first=True, enforce_sorted=False)
        _, h_n = self.gru(packed)
        return self.fc(h_n[-1])

