"""Public checks for 27_batchnorm_vs_layernorm: run them with `grader check 27`."""
import torch
import torch.nn.functional as F
from torch import nn

from grader.testing import assert_close, check


@check("value")
def test_train_output_matches_batchnorm(sub):
    x = 2 * torch.randn(8, 3) + 1
    model = sub.MyBatchNorm1d(3)
    assert_close(model(x), nn.BatchNorm1d(3)(x).detach(), what="train-mode output for an (8, 3) batch")


@check("mode")
def test_eval_after_one_train_step(sub):
    x, y = 3 * torch.randn(6, 3, 4) + 2, torch.randn(2, 3, 4)
    model, expected = sub.MyBatchNorm1d(3), nn.BatchNorm1d(3)
    model(x)
    expected(x)
    model.eval()
    expected.eval()
    assert_close(model(y), expected(y).detach(), what="eval-mode output after one train step")


@check("value")
def test_layer_norm_example(sub):
    x = torch.randn(2, 3, 5)
    w, b = torch.randn(5), torch.randn(5)
    assert_close(sub.layer_norm(x, (5,), w, b), F.layer_norm(x, (5,), w, b), what="layer_norm over the last dim")
