"""Public checks for 36_custom_focal_loss: run them with `grader check 36`."""
import torch
import torch.nn.functional as F
from torch import nn

from grader.testing import assert_close, check


@check("value")
def test_gamma_zero_is_cross_entropy(sub):
    logits, targets = torch.randn(6, 4), torch.tensor([0, 3, 1, 1, 2, 0])
    loss = sub.FocalLoss(gamma=0.0)
    assert_close(loss(logits, targets), F.cross_entropy(logits, targets), what="FocalLoss(gamma=0)")


@check("value")
def test_triplet_example(sub):
    anchor, positive, negative = torch.randn(5, 8), torch.randn(5, 8), torch.randn(5, 8)
    assert_close(sub.triplet_margin_loss(anchor, positive, negative, 1.0),
                 nn.TripletMarginLoss(margin=1.0, p=2)(anchor, positive, negative), atol=1e-4, rtol=1e-4,
                 what="triplet_margin_loss with margin 1")
