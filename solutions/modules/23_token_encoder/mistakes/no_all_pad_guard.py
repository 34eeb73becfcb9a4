"""Masks every pad key, including every key of an all-pad sequence: the softmax over all -inf
gives NaN for that sequence (in eval mode).

Caught by: test_all_pad_row_finite
"""
from __future__ import annotations

from torch import Tensor, nn


class TokenEncoder(nn.Module):
    """tokens (B,T) int -> (B,T,d_model): Embedding(padding_idx=pad_idx) -> self-attention (batch_first, pad keys masked) -> residual -> LayerNorm; all-pad rows yield finite outputs."""

    def __init__(self, vocab_size: int, d_model: int, n_heads: int, pad_idx: int = 0) -> None:
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError(f"d_model {d_model} is not divisible by n_heads {n_heads}")
        self.pad_idx = pad_idx
        self.embed = nn.Embedding(vocab_size, d_model, padding_idx=pad_idx)
        self.attn = nn.MultiheadAttention(d_model, n_heads, batch_first=True)
        self.norm = nn.LayerNorm(d_model)

    def forward(self, tokens: Tensor) -> Tensor:
        x = self.embed(tokens)
        pad = tokens == self.pad_idx
        mask = pad  # an all-pad row attends to its own pads: finite
        attended, _ = self.attn(x, x, x, key_padding_mask=mask, need_weights=False)
        return self.norm(x + attended)
