"""Public checks for 34_weighted_smoothed_ce: run them with `grader check 34`."""
import torch
import torch.nn.functional as F

from grader.testing import assert_close, check


@check("value")
def test_plain_cross_entropy_example(sub):
    logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 1.5, 0.3], [1.0, 1.0, 3.0]])
    targets = torch.tensor([0, 1, 2])
    assert_close(sub.weighted_smoothed_ce(logits, targets), F.cross_entropy(logits, targets),
                 what="weighted_smoothed_ce without weights or smoothing")


@check("value")
def test_weighted_smoothed_example(sub):
    logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 1.5, 0.3], [1.0, 1.0, 3.0]])
    targets = torch.tensor([0, 1, 2])
    weights = torch.tensor([1.0, 2.0, 0.5])
    expected = F.cross_entropy(logits, targets, weight=weights, label_smoothing=0.1)
    assert_close(sub.weighted_smoothed_ce(logits, targets, weights, 0.1), expected,
                 what="weighted_smoothed_ce with class weights and smoothing 0.1")
