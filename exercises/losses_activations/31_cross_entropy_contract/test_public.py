"""Public checks for 31_cross_entropy_contract: run them with `grader check 31`."""
import math

import torch

from grader.testing import assert_close, check


@check("value")
def test_hard_labels_example(sub):
    logits = torch.tensor([[2.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    targets = torch.tensor([0, 2])
    log_z = math.log(math.exp(2.0) + 2.0)
    expected = ((log_z - 2.0) + math.log(3.0)) / 2
    assert_close(sub.classification_loss(logits, targets), torch.tensor(expected), what="loss of raw logits")


@check("value")
def test_predict_proba_example(sub):
    p = sub.predict_proba(torch.tensor([[0.0, 0.0], [1.0, 1.0], [3.0, 1.0]]))
    assert_close(p.sum(1), torch.ones(3), what="predict_proba(...).sum(1)")
    assert_close(p[0], torch.tensor([0.5, 0.5]), what="predict_proba of equal logits")
