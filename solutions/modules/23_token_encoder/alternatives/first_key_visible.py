"""For an all-pad sequence, leaves its first key visible; the mask built with masked_fill."""
from __future__ import annotations

import torch
from torch import nn


class TokenEncoder(nn.Module):
    def __init__(self, vocab_size: int, d_model: int, n_heads: int, pad_idx: int = 0) -> None:
        super().__init__()
        if d_model % n_heads:
            raise ValueError("d_model must be a multiple of n_heads")
        self.pad_idx = pad_idx
        self.embedding = nn.Embedding(vocab_size, d_model, padding_idx=pad_idx)
        self.self_attn = nn.MultiheadAttention(d_model, n_heads, dropout=0.0, batch_first=True)
        self.layer_norm = nn.LayerNorm(d_model)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        emb = self.embedding(tokens)
        ignore = tokens == self.pad_idx
        empty = ignore.all(dim=1)
        first = torch.zeros_like(ignore)
        first[:, 0] = True
        ignore = ignore.masked_fill(first & empty[:, None], False)
        out, _ = self.self_attn(emb, emb, emb, key_padding_mask=ignore)
        return self.layer_norm(emb + out)
