"""Public checks for 16_higher_order_grads: run them with `grader check 16`."""
import torch
from torch import nn

from grader.testing import assert_close, check


@check("value")
def test_penalty_of_linear_critic(sub):
    # critic(x) = 2 * x.sum(): the input gradient is 2 everywhere, so each sample's norm is
    # 2 * sqrt(4) = 4 and the penalty is (4 - 1)^2 = 9.
    critic = nn.Sequential(nn.Flatten(), nn.Linear(4, 1, bias=False))
    with torch.no_grad():
        critic[1].weight.fill_(2.0)
    real, fake = torch.randn(3, 1, 2, 2), torch.randn(3, 1, 2, 2)
    alpha = torch.rand(3, 1, 1, 1)
    assert_close(sub.gradient_penalty(critic, real, fake, alpha), torch.tensor(9.0))


@check("grad")
def test_penalty_is_differentiable(sub):
    critic = nn.Sequential(nn.Flatten(), nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    real, fake = torch.randn(3, 1, 2, 2), torch.randn(3, 1, 2, 2)
    penalty = sub.gradient_penalty(critic, real, fake, torch.rand(3, 1, 1, 1))
    assert penalty.requires_grad, "the penalty must be differentiable w.r.t. the critic's parameters"


@check("value")
def test_hvp_of_cubic(sub):
    x = torch.tensor([1.0, 2.0, -1.0], dtype=torch.float64)
    v = torch.tensor([1.0, 0.5, 2.0], dtype=torch.float64)
    # f = sum(x**3): H = diag(6x), so H v = 6 * x * v
    assert_close(sub.hessian_vector_product(lambda t: (t ** 3).sum(), x, v),
                 torch.tensor([6.0, 6.0, -12.0], dtype=torch.float64))
