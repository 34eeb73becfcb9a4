"""Public checks for 33_log_prob_losses: run them with `grader check 33`."""
import torch
import torch.nn.functional as F

from grader.testing import assert_close, assert_shape, check


@check("value")
def test_nll_of_output_is_cross_entropy_of_logits(sub):
    model = sub.LogProbClassifier(4, 3)
    x = torch.randn(5, 4)
    out = model(x)
    assert_shape(out, (5, 3))
    logits = model.fc(x)
    for y in (torch.tensor([0, 1, 2, 0, 1]), torch.tensor([2, 2, 1, 0, 0])):
        assert_close(torch.nn.NLLLoss(reduction="none")(out, y), F.cross_entropy(logits, y, reduction="none"),
                     what=f"NLLLoss(reduction='none')(model(x), y) for y = {y.tolist()}")


@check("value")
def test_alpha_zero_is_cross_entropy(sub):
    s, t, y = torch.randn(4, 3), torch.randn(4, 3), torch.tensor([0, 2, 1, 0])
    assert_close(sub.distillation_loss(s, t, y, 2.0, 0.0), F.cross_entropy(s, y), what="alpha = 0")
