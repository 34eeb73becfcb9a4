"""Public checks for 48_pad_and_pack: run them with `grader check 48`."""
import torch

from grader.testing import assert_close, check


@check("shape")
def test_collate_example(sub):
    a, b = torch.ones(2, 3), torch.full((4, 3), 2.0)
    padded, lengths, labels = sub.pad_collate([(a, 1), (b, 0)], pad_value=-1.0)
    assert tuple(padded.shape) == (2, 4, 3), f"padded must be (B, L_max, F) = (2, 4, 3), got {tuple(padded.shape)}"
    assert_close(padded[0, 2:], torch.full((2, 3), -1.0), what="the padding of the first sequence")
    assert lengths.tolist() == [2, 4] and lengths.dtype == torch.int64, "lengths: int64 [2, 4], in the batch's order"
    assert labels.tolist() == [1, 0] and labels.dtype == torch.int64, "labels: int64 [1, 0], in the batch's order"


@check("shape")
def test_classifier_shape(sub):
    torch.manual_seed(0)
    model = sub.PackedGRUClassifier(3, 8, 5)
    padded = torch.randn(4, 6, 3)
    logits = model(padded, torch.tensor([2, 6, 1, 4]))
    assert tuple(logits.shape) == (4, 5), f"logits must be (B, num_classes) = (4, 5), got {tuple(logits.shape)}"


@check("value")
def test_padding_does_not_matter(sub):
    torch.manual_seed(0)
    model = sub.PackedGRUClassifier(3, 8, 5)
    padded = torch.randn(2, 6, 3)
    lengths = torch.tensor([3, 6])
    changed = padded.clone()
    changed[0, 3:] = 100.0                      # only the padding of the first sequence
    logits = model(padded, lengths)
    assert isinstance(logits, torch.Tensor) and tuple(logits.shape) == (2, 5), "logits must be a (2, 5) tensor"
    assert_close(model(changed, lengths), logits, what="logits after changing only the padding")
