"""Public checks for 43_gradient_clipping: run them with `grader check 43`.

Clipping changes `.grad` in place, so the parameters are built and clipped inside a probe (a
function that runs next to your code) and their grads are copied back afterwards.
"""
import torch

from grader.testing import assert_close, check


def _run(mod, grads, fn, *args):
    params = []
    for g in grads:
        p = torch.nn.Parameter(torch.zeros_like(g))
        p.grad = g.clone()
        params.append(p)
    out = getattr(mod, fn)(params, *args)
    return out, [p.grad.clone() for p in params]


@check("value")
def test_clip_two_params(sub):
    grads = [torch.tensor([3.0]), torch.tensor([4.0])]
    total, (a, b) = sub.probe(_run, sub, grads, "clip_grad_norm", 1.0)
    assert isinstance(total, torch.Tensor), "clip_grad_norm must return the total norm as a tensor"
    assert_close(total, torch.tensor(5.0), what="the total norm before clipping")
    want = [torch.zeros(1, requires_grad=True) for _ in grads]
    for w, g in zip(want, grads):
        w.grad = g.clone()
    torch.nn.utils.clip_grad_norm_(want, 1.0)           # what torch's own function leaves
    assert_close(a, want[0].grad, what="first grad after clipping to norm 1")
    assert_close(b, want[1].grad, what="second grad after clipping to norm 1")


@check("value")
def test_clip_by_value(sub):
    grads = [torch.tensor([-2.0, 0.1, 0.7])]
    _, (g,) = sub.probe(_run, sub, grads, "clip_grad_value", 0.5)
    assert_close(g, torch.tensor([-0.5, 0.1, 0.5]), what="the grad clamped into [-0.5, 0.5]")
