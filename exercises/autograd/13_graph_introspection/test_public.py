"""Public checks for 13_graph_introspection: run them with `grader check 13`.

Autograd graphs exist only in the process that built them, so each example builds its graph in
your process (a probe) and brings back plain data.
"""
import torch

from grader.testing import assert_close, check


@check("value")
def test_names_example(sub):
    def observe(mod):
        a = torch.randn(3, requires_grad=True)
        b = torch.randn(3, requires_grad=True)
        return sorted(mod.backward_node_names((a * b).sum()))

    assert sub.probe(observe, sub) == ["AccumulateGrad", "MulBackward0", "SumBackward0"]


@check("value")
def test_count_example(sub):
    def observe(mod):
        a = torch.randn(3, requires_grad=True)
        b = torch.randn(3, requires_grad=True)
        return mod.count_leaves((a * b).sum())

    assert sub.probe(observe, sub) == 2


@check("grad")
def test_two_backwards_example(sub):
    assert_close(sub.grad_after_two_backwards(torch.tensor([1.0, 2.0])), torch.tensor([4.0, 8.0]))
