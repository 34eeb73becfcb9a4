from __future__ import annotations

from torch import Tensor, nn


class TokenEncoder(nn.Module):
    """Encodes padded token sequences with an embedding, one self-attention layer and a LayerNorm."""

    def __init__(self, vocab_size: int, d_model: int, n_heads: int, pad_idx: int = 0) -> None:
        """Build the three layers; pad_idx is the padding token."""
        raise NotImplementedError

    def forward(self, tokens: Tensor) -> Tensor:
        """Return the encodings of tokens (B, T), shaped (B, T, d_model)."""
        raise NotImplementedError
