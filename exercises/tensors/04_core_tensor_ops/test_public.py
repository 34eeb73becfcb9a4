"""Public checks for 04_core_tensor_ops: run them with `grader check 04`."""
import torch

from grader.testing import assert_close, assert_shape, check


@check("shape")
def test_stack_example(sub):
    samples = [torch.zeros(1, 2, 2), torch.ones(1, 2, 2)]
    out = sub.batch_from_samples(samples)
    assert_shape(out, (2, 1, 2, 2), what="batch_from_samples of two (1, 2, 2) samples")


@check("value")
def test_gram_example(sub):
    x = torch.tensor([[[1.0, 2.0], [3.0, 4.0]]])
    assert_close(sub.gram_matrix(x), torch.tensor([[[5.0, 11.0], [11.0, 25.0]]]), what="gram_matrix")


@check("value")
def test_row_normalize_example(sub):
    x = torch.tensor([[1.0, 3.0], [2.0, 2.0]])
    assert_close(sub.row_normalize(x), torch.tensor([[0.25, 0.75], [0.5, 0.5]]), what="row_normalize")
