"""Masks every pad key and repairs the NaN an all-pad sequence produces with nan_to_num."""
from __future__ import annotations

import torch
from torch import nn


class TokenEncoder(nn.Module):
    def __init__(self, vocab_size, d_model, n_heads, pad_idx=0):
        super().__init__()
        assert d_model % n_heads == 0, "d_model must be divisible by n_heads"
        self.pad_idx = pad_idx
        self.tok = nn.Embedding(vocab_size, d_model, padding_idx=pad_idx)
        self.mha = nn.MultiheadAttention(embed_dim=d_model, num_heads=n_heads, batch_first=True)
        self.ln = nn.LayerNorm(d_model)

    def forward(self, tokens):
        h = self.tok(tokens)
        attended = self.mha(h, h, h, key_padding_mask=tokens.eq(self.pad_idx))[0]
        return self.ln(h + torch.nan_to_num(attended, nan=0.0))
