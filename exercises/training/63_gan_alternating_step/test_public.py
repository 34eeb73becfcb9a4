"""Public checks for 63_gan_alternating_step: run them with `grader check 63`.

`gan_step` changes the models in place, so G, D, their optimizers and the batches are built inside a
probe (a function that runs next to your code) and the results are copied back.
"""
import torch
import torch.nn.functional as F

from grader.testing import assert_close, check


def _setup():
    torch.manual_seed(0)
    G = torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.Tanh(), torch.nn.Linear(4, 3))
    D = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    opt_g = torch.optim.SGD(G.parameters(), lr=0.1)
    opt_d = torch.optim.SGD(D.parameters(), lr=0.1)
    return G, D, opt_g, opt_d, torch.randn(5, 3), torch.randn(5, 2)


def _run(mod):
    G, D, opt_g, opt_d, real, z = _setup()
    out = mod.gan_step(G, D, opt_g, opt_d, real, z)
    return (tuple(float(v) for v in out) if isinstance(out, tuple) and all(isinstance(v, float) for v in out) else None,
            {k: v.detach().clone() for k, v in G.state_dict().items()},
            {k: v.detach().clone() for k, v in D.state_dict().items()})


def _expected():
    """The step written out with explicit gradients: each loss differentiated with respect to its own
    model's parameters only, then plain SGD (lr 0.1) on those parameters."""
    G, D, _, _, real, z = _setup()
    g_params, d_params = list(G.parameters()), list(D.parameters())
    fake = G(z)
    d_loss = (F.binary_cross_entropy_with_logits(D(real), torch.ones(5, 1))
              + F.binary_cross_entropy_with_logits(D(fake), torch.zeros(5, 1)))
    d_grads = torch.autograd.grad(d_loss, d_params)
    with torch.no_grad():
        for p, grad in zip(d_params, d_grads):
            p -= 0.1 * grad
    g_loss = F.binary_cross_entropy_with_logits(D(fake), torch.ones(5, 1))
    g_grads = torch.autograd.grad(g_loss, g_params)
    with torch.no_grad():
        for p, grad in zip(g_params, g_grads):
            p -= 0.1 * grad
    return (d_loss.item(), g_loss.item()), G.state_dict(), D.state_dict()


@check("value")
def test_one_step_updates_both(sub):
    _, g_state, d_state = sub.probe(_run, sub)
    _, want_g, want_d = _expected()
    for name, value in want_d.items():
        assert_close(d_state[name], value, atol=1e-6, rtol=0, what=f"D's {name} after one gan_step")
    for name, value in want_g.items():
        assert_close(g_state[name], value, atol=1e-6, rtol=0, what=f"G's {name} after one gan_step")


@check("dtype")
def test_returns_two_floats(sub):
    out, _, _ = sub.probe(_run, sub)
    assert out is not None, "gan_step must return a tuple of two Python floats (d_loss, g_loss)"
    want, _, _ = _expected()
    assert_close(out[0], want[0], rtol=1e-5, what="d_loss (the sum of the real and the fake term)")
    assert_close(out[1], want[1], rtol=1e-5, what="g_loss (through the updated D)")
