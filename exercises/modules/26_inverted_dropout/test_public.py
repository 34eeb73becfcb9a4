"""Public checks for 26_inverted_dropout: run them with `grader check 26`."""
import torch

from grader.testing import assert_shape, check


@check("value")
def test_train_zeros_and_scale(sub):
    layer = sub.InvertedDropout(0.5)
    out = layer(torch.ones(1000))
    assert_shape(out, (1000,))
    values = sorted(set(out.unique().tolist()))
    assert len(values) == 2 and values[0] == 0.0, \
        f"train output of ones with p=0.5 should hold zeros and one other value, got {values[:5]}"
    assert abs(out.mean().item() - 1.0) < 0.15, \
        f"the mean of the train output of 1000 ones should stay near 1, got {out.mean().item():.3f}"


@check("mode")
def test_eval_is_identity(sub):
    layer = sub.InvertedDropout(0.5)
    x = torch.randn(10, 4)
    assert_shape(layer(x), (10, 4), what="train output")
    assert not torch.equal(layer(x), x), "in train mode the layer must drop elements"
    layer.eval()
    assert torch.equal(layer(x), x), "in eval mode the layer must return x unchanged"
