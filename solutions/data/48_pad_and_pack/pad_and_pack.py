from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence


def pad_collate(batch: list[tuple[Tensor, int]], pad_value: float = 0.0) -> tuple[Tensor, Tensor, Tensor]:
    """[(seq (L_i,F), label)] -> (padded (B,L_max,F), lengths (B,) int64 on CPU, labels (B,) int64), preserving batch order; any L_i == 0 raises ValueError."""
    seqs = [seq for seq, _ in batch]
    lengths = torch.tensor([seq.shape[0] for seq in seqs], dtype=torch.int64)
    if (lengths == 0).any():
        raise ValueError("pad_collate: a sequence of length 0 has no last step to classify")
    padded = pad_sequence(seqs, batch_first=True, padding_value=pad_value)
    labels = torch.tensor([int(label) for _, label in batch], dtype=torch.int64)
    return padded, lengths, labels


class PackedGRUClassifier(nn.Module):
    """self.gru = nn.GRU(batch_first=True) run on pack_padded_sequence(enforce_sorted=False); self.fc on h_n; logits invariant to padding."""

    def __init__(self, input_size: int, hidden_size: int, num_classes: int) -> None:
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, batch_first=True)
        self.fc = nn.Linear(hidden_size, num_classes)

    def forward(self, padded: Tensor, lengths: Tensor) -> Tensor:
        packed = pack_padded_sequence(padded, lengths.to("cpu", torch.int64), batch_first=True, enforce_sorted=False)
        _, h_n = self.gru(packed)          # (num_layers, B, H), back in the input's batch order
        return self.fc(h_n[-1])
