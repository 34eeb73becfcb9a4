"""Right answers, but pairwise_sq_dists materialises the (N, M, D) difference tensor, and 1.5 GiB
touched at import raise the process's lifetime peak so that a peak measured as "lifetime
maximum after minus before" hides the 512 MiB the call takes."""
import torch

BALLAST = bytearray(3 << 29)  # 1.5 GiB
BALLAST[::4096] = b"x" * len(BALLAST[::4096])
del BALLAST  # freed: resident size drops, the lifetime peak stays


def add_feature_bias(x, bias):
    return x + bias


def add_sample_bias(x, bias):
    return x + bias[:, None]


def pairwise_sq_dists(a, b):
    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)
