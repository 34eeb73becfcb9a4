"""Public checks for 32_bce_with_logits: run them with `grader check 32`."""
import math

import torch

from grader.testing import assert_close, check


@check("value")
def test_binary_loss_example(sub):
    logits, targets = torch.tensor([0.0, 2.0]), torch.tensor([1, 0])
    expected = (math.log(2.0) + math.log(1.0 + math.exp(2.0))) / 2
    assert_close(sub.binary_loss(logits, targets), torch.tensor(expected), what="binary_loss([0, 2], [1, 0])")


@check("dtype")
def test_multilabel_predict_example(sub):
    pred = sub.multilabel_predict(torch.tensor([[-1.0, 0.0, 3.0]]))
    assert pred.dtype == torch.bool, f"expected a bool tensor, got {pred.dtype}"
    assert pred.tolist() == [[False, True, True]]
