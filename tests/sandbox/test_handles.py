"""Remote handles and the gradient bridge, against a real worker process."""
from __future__ import annotations

import pytest
import torch

from grader.sandbox.handles import NotImplementedInSubmission, RemoteError, RemoteHandle


def test_data_comes_back_as_data(subject):
    assert subject.CONSTANT == 42
    out = subject.double(torch.arange(3))
    assert type(out) is torch.Tensor and out.tolist() == [0, 2, 4]
    mixed = subject.mixed(torch.ones(2))
    assert mixed["n"] == 7 and mixed["s"] == "text" and mixed["pair"][1] is None
    assert mixed["point"].y == 2.5
    assert subject.numpy_array().sum() == 15


def test_objects_come_back_as_handles_that_forward(subject):
    bag = subject.make_bag()
    assert isinstance(bag, RemoteHandle) and bag.remote_class == "Bag"
    assert len(bag) == 3 and bag[1] == 2 and list(bag) == [1, 2, 3]
    assert bag.total() == 6 and bag.label == "bag"
    bag.label = "renamed"
    assert bag.label == "renamed"
    assert bool(bag) is True
    assert "Bag" in repr(bag)


def test_handles_can_be_passed_back(subject):
    model = subject.make_model()
    out = subject.apply(model, torch.ones(1, 3))
    assert out.shape == (1, 2)


def test_module_handle(subject):
    model = subject.make_model()
    sd = model.state_dict()
    assert list(sd) == ["weight", "bias"]
    assert model.eval().training is False
    with torch.no_grad():
        assert torch.allclose(model(torch.ones(1, 3)), torch.ones(1, 3) @ sd["weight"].T + sd["bias"])


def test_tensor_subclass_is_stripped(subject):
    t = subject.lying_tensor()
    assert type(t) is torch.Tensor
    assert not torch.equal(t, torch.ones(3))


def test_arguments_are_copies(subject):
    x = torch.zeros(2)
    subject.mutate(x)
    assert x.tolist() == [0.0, 0.0]


def test_exceptions_keep_their_builtin_type(subject):
    with pytest.raises(ValueError, match="bad value"):
        subject.fails("value")
    with pytest.raises(KeyError):
        subject.fails("key")


def test_not_implemented_is_never_caught_as_runtime_error(subject):
    with pytest.raises(NotImplementedInSubmission):
        subject.fails("stub")
    assert not issubclass(NotImplementedInSubmission, RuntimeError)
    with pytest.raises(RemoteError):
        try:
            subject.fails("stub")
        except RuntimeError:
            pytest.fail("a stub's NotImplementedError must not look like a RuntimeError")


def test_lambdas_and_torch_functions_travel(subject):
    assert subject.apply(lambda t: t + 1, torch.zeros(2)).tolist() == [1.0, 1.0]
    assert torch.allclose(subject.apply(torch.sin, torch.zeros(2)), torch.zeros(2))


def test_backward_through_the_bridge(subject):
    x = torch.randn(4, requires_grad=True)
    y = subject.square_sum(x)
    assert y.requires_grad and y.grad_fn is not None
    y.backward()
    assert torch.allclose(x.grad, 2 * x.detach())


def test_chained_remote_calls_backpropagate(subject):
    x = torch.randn(3, requires_grad=True)
    subject.square_sum(subject.double(x)).backward()
    assert torch.allclose(x.grad, 8 * x.detach())


def test_gradcheck_through_the_bridge(subject):
    x = torch.randn(5, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: subject.apply(torch.sin, t), (x,))


def test_parameter_grads_of_remote_modules(subject):
    model = subject.make_model()
    out = model(torch.ones(2, 3))
    assert out.requires_grad  # parameters live in the worker: the bridge anchors the output
    out.sum().backward()
    weight = model.weight
    assert torch.allclose(weight.grad, torch.full((2, 3), 2.0))


def test_no_grad_mode_skips_the_bridge(subject):
    x = torch.randn(3, requires_grad=True)
    with torch.no_grad():
        y = subject.double(x)
    assert y.grad_fn is None
