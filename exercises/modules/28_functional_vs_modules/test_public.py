"""Public checks for 28_functional_vs_modules: run them with `grader check 28`."""
import torch

from grader.testing import assert_shape, check


@check("shape")
def test_output_shape(sub):
    model = sub.FunctionalNet(6, 16, 3)
    assert_shape(model(torch.randn(5, 6)), (5, 3))


@check("mode")
def test_train_forwards_differ(sub):
    model = sub.FunctionalNet(6, 64, 3, p=0.5)
    model.train()
    x = torch.randn(8, 6)
    first, second = model(x), model(x)
    assert_shape(first, (8, 3))
    assert not torch.equal(first, second), "in train() two forwards should differ (dropout is active)"
