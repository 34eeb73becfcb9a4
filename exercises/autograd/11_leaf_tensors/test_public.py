"""Public checks for 11_leaf_tensors: run them with `grader check 11`."""
import torch

from grader.testing import assert_close, assert_dtype, check


@check("dtype")
def test_int_data_becomes_float32(sub):
    with torch.no_grad():
        t = sub.make_trainable([1, 2, 3])
    assert_dtype(t, torch.float32)
    assert t.requires_grad, "the result must require grad"
    assert_close(t, torch.tensor([1.0, 2.0, 3.0]))


@check("grad")
def test_result_is_a_leaf(sub):
    # Leaf status only exists where the tensor was made, so this looks at it in your process.
    def observe(mod):
        t = mod.make_trainable([2.0, -1.0])
        t.sum().backward()
        return {"is_leaf": t.is_leaf, "grad": None if t.grad is None else t.grad.clone()}

    seen = sub.probe(observe, sub)
    assert seen["is_leaf"], "make_trainable returned a non-leaf tensor"
    assert seen["grad"] is not None, "t.grad is None after backward()"
    assert_close(seen["grad"], torch.ones(2))


@check("value")
def test_is_trainable_leaf_examples(sub):
    def observe(mod):
        w = torch.ones(2, requires_grad=True)
        return [mod.is_trainable_leaf(w), mod.is_trainable_leaf(w + 1)]

    assert sub.probe(observe, sub) == [True, False], "expected True for a leaf that requires grad, False for w + 1"
