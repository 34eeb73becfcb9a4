"""Public checks for 24_recurrent_layers: run them with `grader check 24`."""
import torch

from grader.testing import assert_shape, check


@check("shape")
def test_default_lstm_shape(sub):
    model = sub.SeqClassifier(8, 16, 1, 5)
    assert_shape(model(torch.randn(4, 10, 8)), (4, 5), what="logits for x of shape (4, 10, 8)")


@check("shape")
def test_bidirectional_gru_shape(sub):
    model = sub.SeqClassifier(8, 16, 2, 3, cell="gru", bidirectional=True)
    assert_shape(model(torch.randn(2, 7, 8)), (2, 3), what="logits for x of shape (2, 7, 8)")
