"""Public checks for 33_log_prob_losses: run them with `grader check 33`."""
import torch
import torch.nn.functional as F

from grader.testing import assert_close, assert_shape, check


@check("value")
def test_model_outputs_log_probabilities(sub):
    model = sub.LogProbClassifier(4, 3)
    out = model(torch.randn(5, 4))
    assert_shape(out, (5, 3))
    assert (out <= 0).all(), "log-probabilities are never positive"
    assert_close(torch.logsumexp(out, 1), torch.zeros(5), atol=1e-5, what="logsumexp(model(x), dim=1)")


@check("value")
def test_alpha_zero_is_cross_entropy(sub):
    s, t, y = torch.randn(4, 3), torch.randn(4, 3), torch.tensor([0, 2, 1, 0])
    assert_close(sub.distillation_loss(s, t, y, 2.0, 0.0), F.cross_entropy(s, y), what="alpha = 0")
