"""Public checks for 22_conv_shapes: run them with `grader check 22`."""
import torch

from grader.testing import assert_shape, check


@check("shape")
def test_conv_out_example(sub):
    assert sub.conv2d_out_hw(32, 32, 3, padding=1) == (32, 32)
    assert sub.conv2d_out_hw(7, 9, (3, 5), stride=2, dilation=(1, 2)) == (3, 1)


@check("shape")
def test_small_cnn_example(sub):
    model = sub.SmallCNN(10, 32, 32)
    assert_shape(model(torch.randn(4, 3, 32, 32)), (4, 10))
