"""Divides first and repairs NaN rows only `if torch.isnan(out).any():`. The values are right, but
the Python `if` needs the tensor's value on the host: on CUDA every call blocks on a device-to-host
sync, and on the meta device (no values) it cannot run at all.

Caught by: test_meta_no_data_dependence, test_cuda_no_host_sync
"""
from __future__ import annotations

import torch


def batch_from_samples(samples):
    return torch.stack(samples)


def concat_batches(batches):
    return torch.cat(batches)


def gram_matrix(x):
    return x @ x.mT


def row_normalize(x):
    out = x / x.sum(dim=1, keepdim=True)
    if torch.isnan(out).any():
        out = torch.nan_to_num(out, nan=0.0)
    return out
