"""Public checks for 46_map_style_dataset: run them with `grader check 46`."""
import numpy as np
import torch

from grader.testing import assert_close, assert_dtype, assert_shape, check


@check("dtype")
def test_item_types(sub):
    X = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y = np.array([0, 2, 1], dtype=np.int32)
    ds = sub.TabularDataset(X, y)
    assert len(ds) == 3
    features, label = ds[1]
    assert_dtype(features, torch.float32, what="features")
    assert_shape(features, (2,), what="features")
    assert_dtype(label, torch.int64, what="label")
    assert_shape(label, (), what="label")
    assert_close(features, torch.tensor([3.0, 4.0]), what="features of sample 1")
    assert int(label) == 2


@check("value")
def test_last_sample_and_transform(sub):
    X = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y = np.array([0, 2, 1])
    ds = sub.TabularDataset(X, y, transform=torch.neg)
    features, label = ds[-1]
    assert_close(features, torch.tensor([-5.0, -6.0]), what="features of ds[-1] after transform=torch.neg")
    assert int(label) == 1, "the transform must not touch the label"
