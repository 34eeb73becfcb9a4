"""A correct alternative: a sequence-first nn.MultiheadAttention (the default layout) fed
transposed (T, B, d) tensors, the result transposed back; an all-pad sequence unmasks all its keys."""
from __future__ import annotations

from torch import Tensor, nn


class TokenEncoder(nn.Module):
    def __init__(self, vocab_size: int, d_model: int, n_heads: int, pad_idx: int = 0) -> None:
        super().__init__()
        self.pad_idx = pad_idx
        self.tok = nn.Embedding(vocab_size, d_model, padding_idx=pad_idx)
        self.mha = nn.MultiheadAttention(d_model, n_heads)
        self.ln = nn.LayerNorm(d_model)

    def forward(self, tokens: Tensor) -> Tensor:
        e = self.tok(tokens)
        ignore = tokens.eq(self.pad_idx)
        ignore = ignore.masked_fill(ignore.all(dim=1, keepdim=True), False)
        seq = e.transpose(0, 1)
        a, _ = self.mha(seq, seq, seq, key_padding_mask=ignore, need_weights=False)
        return self.ln(e + a.transpose(0, 1))
