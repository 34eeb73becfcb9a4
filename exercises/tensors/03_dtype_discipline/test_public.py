"""Public checks for 03_dtype_discipline: run them with `grader check 03`."""
import numpy as np
import torch
from torch import nn

from grader.testing import assert_close, assert_dtype, check


@check("dtype")
def test_batch_example(sub):
    features = np.array([[0.5, 1.0], [2.0, -1.0]])  # float64, NumPy's default
    labels = np.array([1, 0], dtype=np.int32)
    x, y = sub.prepare_classification_batch(features, labels)
    assert_close(x, torch.tensor([[0.5, 1.0], [2.0, -1.0]]), what="features")
    assert_close(y, torch.tensor([1, 0]), what="labels")


@check("dtype")
def test_pick_example(sub):
    small = sub.pick_low_precision_dtype(torch.tensor([1.0, -250.0, 3.5]))
    assert small == torch.float16, f"expected torch.float16 for [1.0, -250.0, 3.5], got {small}"
    large = sub.pick_low_precision_dtype(torch.tensor([1.0, 1e5]))
    assert large == torch.bfloat16, f"expected torch.bfloat16 for [1.0, 1e5], got {large}"


@check("dtype")
def test_match_double_model_example(sub):
    out = sub.match_model_dtype(torch.ones(2, 3), nn.Linear(3, 1).double())
    assert_dtype(out, torch.float64, what="input for a float64 model")
