"""Public checks for 06_gather_and_masks: run them with `grader check 06`."""
import torch

from grader.testing import assert_close, assert_dtype, assert_shape, check


@check("value")
def test_pick_example(sub):
    logits = torch.tensor([[0.1, 0.7, 0.2], [0.3, 0.3, 0.4]])
    out = sub.pick_target_scores(logits, torch.tensor([1, 2]))
    assert_close(out, torch.tensor([0.7, 0.4]))


@check("value")
def test_zero_above_example(sub):
    x = torch.tensor([[1.0, 11.0], [12.0, -3.0]])
    assert_close(sub.zero_above(x, 10.0), torch.tensor([[1.0, 0.0], [0.0, -3.0]]))


@check("shape")
def test_last_channel_example(sub):
    x = torch.arange(24.0).reshape(2, 3, 4)
    out = sub.last_channel(x)
    assert_shape(out, (2, 3))
    assert_close(out, torch.tensor([[3.0, 7.0, 11.0], [15.0, 19.0, 23.0]]))


@check("dtype")
def test_topk_mask_example(sub):
    mask = sub.topk_mask(torch.tensor([[0.1, 0.9, 0.5], [3.0, 1.0, 2.0]]), 2)
    assert_dtype(mask, torch.bool)
    assert torch.equal(mask, torch.tensor([[False, True, True], [True, False, True]]))
