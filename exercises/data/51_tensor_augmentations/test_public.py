"""Public checks for 51_tensor_augmentations: run them with `grader check 51`."""
import numpy as np
import torch

from grader.testing import assert_close, assert_dtype, assert_shape, check


@check("value")
def test_flip_reverses_width(sub):
    img = torch.arange(6.0).reshape(1, 2, 3)             # (C=1, H=2, W=3)
    out = sub.RandomHFlip(p=1.0)(img)
    assert_close(out, torch.tensor([[[2.0, 1.0, 0.0], [5.0, 4.0, 3.0]]]), what="RandomHFlip(p=1)")
    assert_close(sub.RandomHFlip(p=0.0)(img), img, what="RandomHFlip(p=0)")


@check("value")
def test_normalize_per_channel(sub):
    img = torch.ones(2, 2, 3)                            # (C=2, H=2, W=3)
    out = sub.Normalize([0.5, 2.0], [0.5, 4.0])(img)
    want = torch.stack([torch.full((2, 3), 1.0), torch.full((2, 3), -0.25)])
    assert_close(out, want, what="Normalize(mean=[0.5, 2], std=[0.5, 4]) of ones")


@check("dtype")
def test_to_float_image_layout(sub):
    img = np.zeros((2, 3, 3), dtype=np.uint8)            # (H=2, W=3, C=3)
    img[:, :, 0] = 255                                   # a red image
    out = sub.to_float_image(img)
    assert_dtype(out, torch.float32, what="to_float_image")
    assert_shape(out, (3, 2, 3), what="to_float_image (C,H,W)")
    assert_close(out[0], torch.ones(2, 3), what="the red channel")
    assert_close(out[1:], torch.zeros(2, 2, 3), what="the other channels")
