"""Public checks for 37_sgd_from_scratch: run them with `grader check 37`.

The optimizer is built and stepped inside a probe (a function that runs next to your code), over
parameters that live there: parameters copied back to the test would not be the ones it updates.
"""
import torch

from grader.testing import assert_close, check


def _steps(mod, n, **kwargs):
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    opt = mod.MomentumSGD([w], **kwargs)
    seen = []
    for _ in range(n):
        w.grad = None
        (w ** 2).sum().backward()             # grad = 2 * w
        opt.step()
        seen.append(w.detach().clone())
    return seen


@check("value")
def test_plain_step(sub):
    (w,) = sub.probe(_steps, sub, 1, lr=0.1)
    assert_close(w, torch.tensor([0.8, -1.6]), what="w after one step of lr 0.1 (w - 0.1 * 2w)")


@check("value")
def test_momentum_two_steps(sub):
    first, second = sub.probe(_steps, sub, 2, lr=0.1, momentum=0.9)
    assert_close(first, torch.tensor([0.8, -1.6]), what="w after the first momentum step (buffer = grad)")
    # buffer = 0.9 * 2w0 + 2w1 = [1.8 + 1.6, -3.6 - 3.2]; w2 = w1 - 0.1 * buffer
    assert_close(second, torch.tensor([0.46, -0.92]), what="w after the second momentum step")
