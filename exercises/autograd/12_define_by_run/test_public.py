"""Public checks for 12_define_by_run: run them with `grader check 12`."""
import torch

from grader.testing import assert_close, check


@check("value")
def test_iterate_example(sub):
    x = torch.tensor([[3.0, 4.0]], dtype=torch.float64)   # norm 5
    w = 0.5 * torch.eye(2, dtype=torch.float64)
    out, n = sub.iterate_until_small(x, w, 1.0)
    h1 = torch.tanh(x @ w)                                 # norm ~1.32: still >= 1, one more step
    h2 = torch.tanh(h1 @ w)                                # norm ~0.63: stop
    assert n == 2, f"expected 2 iterations, got {n}"
    assert_close(out, h2.sum(), what="h.sum()")


@check("value")
def test_branchy_examples(sub):
    w = torch.tensor([[1.0, -1.0], [2.0, 0.5]])
    x_pos = torch.tensor([[1.0, 0.5], [0.2, 0.3]])
    x_neg = -x_pos
    assert_close(sub.branchy_loss(x_pos, w), torch.relu(x_pos @ w).sum(), what="positive-mean x (ReLU branch)")
    assert_close(sub.branchy_loss(x_neg, w), torch.tanh(x_neg @ w).sum(), what="negative-mean x (tanh branch)")


@check("grad")
def test_grad_through_loop(sub):
    x = torch.tensor([[3.0, 4.0]], dtype=torch.float64)
    w = (0.5 * torch.eye(2, dtype=torch.float64)).requires_grad_(True)
    out, _ = sub.iterate_until_small(x, w, 1.0)
    (gw,) = torch.autograd.grad(out, w)
    w2 = w.detach().clone().requires_grad_(True)
    expected = torch.tanh(torch.tanh(x @ w2) @ w2).sum()
    (ew,) = torch.autograd.grad(expected, w2)
    assert_close(gw, ew, what="d out / d w")
