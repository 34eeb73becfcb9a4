"""Public checks for 52_out_of_core_data: run them with `grader check 52`."""
import os

import numpy as np
import torch

from grader.testing import assert_dtype, assert_shape, check


@check("value")
def test_memmap_rows(sub):
    def read(mod):
        rows = np.arange(12, dtype=np.float32).reshape(4, 3)
        rows.tofile("rows.f32")
        ds = mod.MemmapDataset(os.path.abspath("rows.f32"), 4, 3)
        return len(ds), ds[2]

    n, row = sub.probe(read, sub)
    assert n == 4
    assert_dtype(row, torch.float32, what="ds[2]")
    assert_shape(row, (3,), what="ds[2]")
    assert torch.equal(row, torch.tensor([6.0, 7.0, 8.0])), f"ds[2] is {row.tolist()}"


@check("dtype")
def test_stream_single_process(sub):
    def stream(mod):
        with open("a.txt", "w") as f:
            f.write("3\n1\n")
        with open("b.txt", "w") as f:
            f.write("4\n")
        items = list(mod.ShardedLineStream([os.path.abspath("a.txt"), os.path.abspath("b.txt")]))
        return [(t.dtype, tuple(t.shape), int(t)) for t in items]

    got = sub.probe(stream, sub)
    assert [v for _, _, v in got] == [3, 1, 4], f"yielded {got}"
    assert all(d == torch.int64 and s == () for d, s, _ in got), f"items must be int64 0-dim tensors: {got}"
