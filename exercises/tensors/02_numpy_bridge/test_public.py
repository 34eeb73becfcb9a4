"""Public checks for 02_numpy_bridge: run them with `grader check 02`."""
import numpy as np
import torch

from grader.testing import assert_close, check


@check("value")
def test_share_example(sub):
    out = sub.share_from_numpy(np.array([1.0, 2.0, 3.0]))
    assert_close(out, torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), what="share_from_numpy")


@check("dtype")
def test_copy_example(sub):
    out = sub.copy_from_numpy(np.array([[1, 2], [3, 4]], dtype=np.int32))
    assert_close(out, torch.tensor([[1, 2], [3, 4]], dtype=torch.int32), what="copy_from_numpy")


@check("value")
def test_to_numpy_example(sub):
    out = sub.to_numpy(torch.tensor([1.0, 2.0]))
    assert isinstance(out, np.ndarray), f"expected a numpy.ndarray, got {type(out).__name__}"
    assert out.dtype == np.float32 and out.tolist() == [1.0, 2.0], f"expected float32 [1.0, 2.0], got {out!r}"
