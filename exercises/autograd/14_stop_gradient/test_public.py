"""Public checks for 14_stop_gradient: run them with `grader check 14`."""
import torch
from torch import nn

from grader.testing import assert_close, check


@check("value")
def test_td_loss_example(sub):
    q = torch.tensor([1.0, 2.0])
    reward = torch.tensor([0.0, 1.0])
    next_q = torch.tensor([1.0, 1.0])
    # targets 0 + 0.5 * 1 = 0.5 and 1 + 0.5 * 1 = 1.5; errors 0.5 and 0.5; mean square 0.25
    assert_close(sub.td_loss(q, reward, next_q, 0.5), torch.tensor(0.25))


@check("grad")
def test_next_q_is_a_constant(sub):
    # Gradients are observed where the tensors live, in your process.
    def observe(mod):
        q = torch.tensor([1.0, 2.0], requires_grad=True)
        next_q = torch.tensor([1.0, 1.0], requires_grad=True)
        mod.td_loss(q, torch.tensor([0.0, 1.0]), next_q, 0.5).backward()
        return next_q.grad is None, None if q.grad is None else q.grad.clone()

    next_q_untouched, q_grad = sub.probe(observe, sub)
    assert next_q_untouched, "next_q received a gradient: the target must not be trained"
    assert_close(q_grad, torch.tensor([0.5, 0.5]), what="q.grad")


@check("value")
def test_ema_example(sub):
    target, online = nn.Linear(2, 2), nn.Linear(2, 2)

    def observe(mod, target, online):
        mod.ema_update_(target, online, 0.5)
        return {k: v.clone() for k, v in target.state_dict().items()}

    got = sub.probe(observe, sub, target, online)
    assert_close(got["weight"], (target.weight.detach() + online.weight.detach()) / 2, what="target.weight")
    assert_close(got["bias"], (target.bias.detach() + online.bias.detach()) / 2, what="target.bias")
