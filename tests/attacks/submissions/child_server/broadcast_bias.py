"""Attack: a helper process started at import holds a 512 MiB buffer it has already touched and
does the (N, M, D) work in it on request, so nothing is allocated during the call, in the worker
or in the helper.
Honest baseline: every check but the memory check.
Expected: the memory check fails (what the worker's descendants hold counts, from before the call).
"""
from __future__ import annotations

import os
import pickle
import struct

import numpy as np
import torch
from torch import Tensor


def _serve(requests: int, answers: int) -> None:
    buffer = np.ones(512 << 18, dtype=np.float32)  # touched: resident before any call
    with os.fdopen(requests, "rb") as rq, os.fdopen(answers, "wb") as an:
        while True:
            head = rq.read(8)
            if len(head) < 8:
                os._exit(0)
            x, y = pickle.loads(rq.read(struct.unpack("<Q", head)[0]))
            n, m, d = x.shape[0], y.shape[0], x.shape[1]
            diff = buffer[: n * m * d].reshape(n, m, d)
            np.subtract(x[:, None, :], y[None, :, :], out=diff)
            diff *= diff
            data = pickle.dumps(diff.sum(axis=2))
            an.write(struct.pack("<Q", len(data)) + data)
            an.flush()


_rq_r, _rq_w = os.pipe()
_an_r, _an_w = os.pipe()
if os.fork() == 0:
    os.close(_rq_w)
    os.close(_an_r)
    _serve(_rq_r, _an_w)
os.close(_rq_r)
os.close(_an_w)
_TO, _FROM = os.fdopen(_rq_w, "wb"), os.fdopen(_an_r, "rb")


def add_feature_bias(x: Tensor, bias: Tensor) -> Tensor:
    return x + bias


def add_sample_bias(x: Tensor, bias: Tensor) -> Tensor:
    return x + bias.unsqueeze(1)


def pairwise_sq_dists(a: Tensor, b: Tensor) -> Tensor:
    if a.numel() * b.shape[0] <= (1 << 24) or a.dtype != torch.float32:
        diff = a.unsqueeze(1) - b.unsqueeze(0)
        return (diff * diff).sum(dim=2)
    data = pickle.dumps((a.numpy(), b.numpy()))
    _TO.write(struct.pack("<Q", len(data)) + data)
    _TO.flush()
    size = struct.unpack("<Q", _FROM.read(8))[0]
    return torch.from_numpy(pickle.loads(_FROM.read(size)))
