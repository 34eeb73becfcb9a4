"""Public checks for 49_imbalanced_sampling: run them with `grader check 49`."""
import torch

from grader.testing import assert_close, check


@check("shape")
def test_sampler_is_per_sample(sub):
    labels = torch.tensor([0, 0, 0, 1])
    sampler = sub.balanced_sampler(labels)
    assert len(sampler.weights) == 4, "expected len(sampler.weights) == 4 for 4 labels"
    assert sampler.replacement is True, "expected sampler.replacement to be True"
    assert sampler.num_samples == 4, "num_samples defaults to len(labels)"


@check("value")
def test_inverse_weights_example(sub):
    w = sub.inverse_frequency_weights(torch.tensor([0, 0, 0, 2]), 3)
    assert isinstance(w, torch.Tensor) and w.dtype == torch.float32, "a float32 tensor"
    assert_close(w, torch.tensor([0.5, 0.0, 1.5]), what="inverse_frequency_weights([0, 0, 0, 2], 3)")
