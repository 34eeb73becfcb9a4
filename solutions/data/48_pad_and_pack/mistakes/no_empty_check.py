"""No check for empty sequences: pad_sequence pads a zero-length sequence without complaint and
the error only comes later, from pack_padded_sequence, far from its cause.

Caught by: test_zero_length_and_dataloader
"""
from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence


def pad_collate(batch, pad_value=0.0):
    seqs = [seq for seq, _ in batch]
    lengths = torch.tensor([seq.shape[0] for seq in seqs], dtype=torch.int64)
    padded = pad_sequence(seqs, batch_first=True, padding_value=pad_value)
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

