"""Public checks for 35_regression_losses: run them with `grader check 35`."""
import torch
from torch import nn

from grader.testing import assert_close, check


@check("value")
def test_mse_and_l1_example(sub):
    pred = torch.tensor([1.0, 2.0, 4.0])
    target = torch.tensor([1.5, 2.0, 1.0])
    assert_close(sub.regression_loss(pred, target, "mse"), nn.MSELoss()(pred, target), what="mse, mean")
    assert_close(sub.regression_loss(pred, target, "l1", "sum"), nn.L1Loss(reduction="sum")(pred, target),
                 what="l1, sum")


@check("value")
def test_huber_example(sub):
    pred = torch.tensor([0.0, 0.5, 3.0, -4.0])
    target = torch.zeros(4)
    assert_close(sub.regression_loss(pred, target, "huber", "none", delta=2.0),
                 torch.tensor([0.0, 0.125, 4.0, 6.0]), what="huber with delta 2, no reduction")
