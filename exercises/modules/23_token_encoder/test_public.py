"""Public checks for 23_token_encoder: run them with `grader check 23`."""
import torch

from grader.testing import assert_shape, check


@check("shape")
def test_output_shape(sub):
    model = sub.TokenEncoder(40, 16, 4)
    tokens = torch.tensor([[5, 9, 2, 0, 0], [7, 1, 3, 8, 0]])
    assert_shape(model(tokens), (2, 5, 16))


@check("value")
def test_all_pad_sequence_is_finite(sub):
    model = sub.TokenEncoder(40, 16, 4)
    model.eval()
    out = model(torch.tensor([[5, 9, 2], [0, 0, 0]]))
    assert_shape(out, (2, 3, 16))
    assert bool(torch.isfinite(out).all()), "an all-pad sequence gave NaN/Inf"
