"""Lengths as torch.IntTensor (int32), the default integer a C-minded author reaches for; labels
left as the float tensor torch.tensor makes from a float-able list.

Caught by: test_collate_dtypes
"""
from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence


def pad_collate(batch, pad_value=0.0):
    seqs = [seq for seq, _ in batch]
    lengths = torch.IntTensor([seq.shape[0] for seq in seqs])
    if (lengths == 0).any():
        raise ValueError("zero-length sequence")
    padded = pad_sequence(seqs, batch_first=True, padding_value=pad_value)
    labels = torch.tensor([float(label) for _, label in batch])
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

