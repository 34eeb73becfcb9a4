"""Public checks for 01_tensor_factories: run them with `grader check 01`."""
import torch

from grader.testing import assert_close, assert_shape, check


@check("dtype")
def test_list_of_ints_example(sub):
    out = sub.from_data([1, 2, 3])
    assert_close(out, torch.tensor([1, 2, 3]), what="from_data([1, 2, 3])")


@check("shape")
def test_scalar_example(sub):
    out = sub.from_data(7)
    assert_shape(out, (), what="from_data(7)")
    assert out.item() == 7, f"from_data(7) should hold 7, got {out.item()}"


@check("value")
def test_standard_tensors_example(sub):
    out = sub.standard_tensors(3)
    assert sorted(out) == ["arange", "eye", "linspace", "randn", "zeros"], f"unexpected keys {sorted(out)}"
    assert_close(out["eye"], torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), what="'eye'")
    assert_close(out["arange"], torch.tensor([0, 1, 2]), what="'arange'")
    assert_close(out["linspace"], torch.tensor([0.0, 0.5, 1.0]), what="'linspace'")
    assert_shape(out["randn"], (3,), what="'randn'")
