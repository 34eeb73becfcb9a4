"""Hidden checks for 16_higher_order_grads."""
import pytest
import torch
from torch import nn

from grader.testing import (
    assert_close,
    assert_device,
    assert_shape,
    check,
    reference,
    requires_cuda,
)

ref = reference(__file__)

FORBIDDEN = ["torch.autograd.functional.hessian", "torch.func.hessian", "torch.func.jacrev",
             "functorch.hessian", "functorch.jacrev"]


def _critic(channels=3, size=5):
    # Tanh, not ReLU: the penalty's gradient w.r.t. the weights then goes through real second
    # derivatives, so a missing create_graph cannot pass by luck.
    return nn.Sequential(nn.Conv2d(channels, 4, 3), nn.Tanh(), nn.Flatten(),
                         nn.Linear(4 * (size - 2) ** 2, 1)).double()


def _batch(n=4, shape=(3, 5, 5), fake_requires_grad=True):
    real = torch.randn(n, *shape, dtype=torch.float64)
    fake = torch.randn(n, *shape, dtype=torch.float64, requires_grad=fake_requires_grad)  # a generator's output
    alpha = torch.rand(n, 1, 1, 1, dtype=torch.float64)
    return real, fake, alpha


@check("value", weight=2)
def test_penalty_matches_reference(sub):
    critic = _critic()
    real, fake, alpha = _batch()
    got = sub.gradient_penalty(critic, real, fake, alpha)
    assert_close(got, ref.gradient_penalty(critic, real, fake, alpha).detach(), what="gradient penalty")


@check("grad", weight=3)
def test_penalty_backprops_to_critic(sub):
    critic = _critic()
    real, fake, alpha = _batch()
    remote_critic = sub.probe(lambda c: c, critic)  # a handle: the worker's copy keeps its .grad
    penalty = sub.gradient_penalty(remote_critic, real, fake, alpha)
    assert isinstance(penalty, torch.Tensor) and penalty.requires_grad, (
        "the penalty does not require grad, so penalty.backward() cannot train the critic: "
        "compute the input gradient with create_graph=True")
    penalty.backward()
    got = sub.probe(_param_grads, remote_critic)

    ref.gradient_penalty(critic, real, fake, alpha).backward()
    for name, p in critic.named_parameters():
        # The last layer's bias does not change d critic / d x: its penalty gradient is None (or zero).
        expected = p.grad if p.grad is not None else torch.zeros_like(p)
        actual = got[name] if got[name] is not None else torch.zeros_like(p)
        if expected.abs().max() > 0:
            assert got[name] is not None, f"penalty.backward() left critic parameter {name!r} without a gradient"
        assert_close(actual, expected, what=f"gradient of the penalty w.r.t. critic parameter {name!r}")


def _param_grads(critic):
    """name -> .grad of each parameter, read from torch's registries (the candidate's code held
    this critic: an instance attribute could replace its named_parameters)."""
    from grader import probes

    return {name: p.grad for name, p in probes.named_parameters(critic).items()}


@check("state", weight=2)
def test_leaves_grads_untouched(sub):
    critic = _critic()
    real, fake, alpha = _batch()
    real.requires_grad_(True)

    def grads_after_call(mod, critic, real, fake, alpha):
        from grader import probes  # torch's registries: the candidate's code held this critic

        penalty = mod.gradient_penalty(critic, real, fake, alpha)
        return {"penalty": penalty.detach() if isinstance(penalty, torch.Tensor) else penalty,
                "params": [name for name, p in probes.named_parameters(critic).items() if p.grad is not None],
                "real": real.grad is not None, "fake": fake.grad is not None}

    seen = sub.probe(grads_after_call, sub, critic, real, fake, alpha)
    # the answer first: a function that computes nothing leaves every .grad alone trivially
    assert isinstance(seen["penalty"], torch.Tensor), \
        f"gradient_penalty returned {type(seen['penalty']).__name__}, not a tensor"
    assert_close(seen["penalty"], ref.gradient_penalty(critic, real, fake, alpha).detach(), what="gradient penalty")
    assert not seen["params"], (
        f"computing the penalty filled .grad of critic parameters {seen['params']}: use torch.autograd.grad, "
        "not backward(), for the inner gradient")
    assert not seen["real"] and not seen["fake"], "computing the penalty filled real.grad / fake.grad"


@check("grad")
def test_plain_inputs_accepted(sub):
    critic = _critic()
    real, fake, alpha = _batch(fake_requires_grad=False)
    got = sub.gradient_penalty(critic, real, fake, alpha)
    assert_close(got, ref.gradient_penalty(critic, real, fake, alpha).detach(),
                 what="gradient penalty for real and fake that do not require grad")


@check("shape", weight=2)
def test_per_sample_norm(sub):
    # A linear critic has the same input gradient W for every sample, so the penalty is
    # (||W|| - 1)^2 exactly; a norm over the whole batch or over the channel dim alone gives another number.
    n, shape = 6, (2, 3, 3)
    critic = nn.Sequential(nn.Flatten(), nn.Linear(2 * 3 * 3, 1)).double()
    with torch.no_grad():
        critic[1].weight.mul_(5.0)
    real, fake, alpha = _batch(n, shape)
    got = sub.gradient_penalty(critic, real, fake, alpha)
    assert_shape(got, (), what="gradient penalty (a scalar)")
    expected = (critic[1].weight.detach().norm() - 1) ** 2
    assert_close(got, expected, what="penalty of a linear critic, (||W|| - 1)^2: is the norm taken per sample "
                                     "over all of C*H*W?")


@check("value", weight=2)
def test_hvp_closed_forms(sub):
    b = torch.randn(6, 6, dtype=torch.float64)
    a = b + b.T
    x, v = torch.randn(6, dtype=torch.float64), torch.randn(6, dtype=torch.float64)
    assert_close(sub.hessian_vector_product(lambda t: 0.5 * t @ a @ t, x, v), a @ v, what="HVP of 0.5 x^T A x")
    x, v = torch.randn(3, 4, dtype=torch.float64), torch.randn(3, 4, dtype=torch.float64)
    assert_close(sub.hessian_vector_product(lambda t: (t ** 3).sum(), x, v), 6 * x * v,
                 what="HVP of sum(x**3) on a (3, 4) input")


@check("grad", weight=2)
def test_hvp_is_exact_double_backward(sub):
    # Non-polynomial f: a finite difference of two gradients is no longer exact (its error, ~1e-10
    # at best in float64, is far above double backward's rounding), and Pearlmutter's trick
    # evaluates f once (one forward, two backward passes) where a difference needs two.
    def observe(mod, x, v):
        calls = []

        def f(t):
            calls.append(tuple(t.shape))
            return torch.exp(torch.sin(t)).sum()

        return mod.hessian_vector_product(f, x, v), len(calls)

    x, v = torch.randn(7, dtype=torch.float64), torch.randn(7, dtype=torch.float64)
    hvp, calls = sub.probe(observe, sub, x, v)
    assert isinstance(hvp, torch.Tensor), f"hessian_vector_product returned {type(hvp).__name__}, not a tensor"
    g = torch.exp(torch.sin(x))
    expected = (torch.cos(x) ** 2 - torch.sin(x)) * g * v  # d2/dx2 exp(sin x) = (cos^2 x - sin x) exp(sin x)
    assert_close(hvp.detach(), expected, atol=1e-12, rtol=1e-12, what="HVP of sum(exp(sin x)) (exact to 1e-12)")
    assert calls == 1, (f"f was evaluated {calls} times: compute H v by double backward through one "
                        "evaluation of f (create_graph=True), not by differences of gradients")


@check("state")
def test_hvp_plain_result_inputs_untouched(sub):
    # Called under no_grad (as inside an optimizer's step), with a plain x, a leaf that requires
    # grad and a non-leaf: the HVP is right each time, has no history, and x is left as it was.
    def observe(mod, x, v):
        f = lambda t: (t ** 3).sum()  # noqa: E731

        def answer(out):  # (the HVP as data, whether it carries history)
            return (out.detach(), out.requires_grad) if isinstance(out, torch.Tensor) else (out, False)

        seen = {}
        with torch.no_grad():
            plain = x.clone()
            seen["no_grad"] = (*answer(mod.hessian_vector_product(f, plain, v)), plain.requires_grad, plain.grad is None)
        leaf = x.clone().requires_grad_(True)
        out = answer(mod.hessian_vector_product(f, leaf, v))
        seen["leaf"] = (*out, leaf.requires_grad and leaf.grad is None and leaf.grad_fn is None)
        w = x.clone().requires_grad_(True)
        inner = w * 1.0
        out = answer(mod.hessian_vector_product(f, inner, v))
        seen["non_leaf"] = (*out, inner.grad_fn is not None and inner.requires_grad and w.grad is None)
        return seen

    x, v = torch.randn(5, dtype=torch.float64), torch.randn(5, dtype=torch.float64)
    seen = sub.probe(observe, sub, x, v)
    out, has_history, x_requires_grad, no_grad_x = seen["no_grad"]
    assert isinstance(out, torch.Tensor), f"hessian_vector_product returned {type(out).__name__}, not a tensor"
    assert_close(out, 6 * x * v, what="HVP of sum(x**3) called under torch.no_grad() (turn grad mode on inside)")
    assert not x_requires_grad and no_grad_x, \
        "hessian_vector_product switched on requires_grad of the caller's x: differentiate a detached copy"
    assert not has_history, "the HVP under no_grad carries autograd history: the result is a plain tensor"
    for case, what in (("leaf", "a leaf x that requires grad"), ("non_leaf", "a non-leaf x (w * 1.0)")):
        out, has_history, untouched = seen[case]
        assert_close(out, 6 * x * v, what=f"HVP of sum(x**3) at {what}")
        assert not has_history, (f"the HVP at {what} requires grad: return a plain result (no create_graph "
                                 "on the second backward)")
        assert untouched, (f"hessian_vector_product changed the caller's {what} (its requires_grad, .grad or "
                           "graph): work on x.detach().requires_grad_(), not on x itself")


@check("api", weight=2)
def test_no_explicit_hessian(sub):
    sub.static.require_implemented("hessian_vector_product")
    for api in FORBIDDEN:
        lines = sub.static.uses(api)
        assert not lines, f"{api} is not allowed (line {lines[0]}): compute H v by double backward, never H"

    def forbidden_calls(mod, x, v):
        from grader import probes

        # the spy sees these functions run whatever reference reaches them (one kept from import
        # under a name built at run time too: grader.sandbox.callwatch)
        with probes.spy("torch.autograd.functional.hessian", "torch.func.hessian", "torch.func.jacrev",
                        module=mod) as seen:
            out = mod.hessian_vector_product(lambda t: (t ** 3).sum(), x, v)
        return seen.names(), out

    x, v = torch.randn(5, dtype=torch.float64), torch.randn(5, dtype=torch.float64)
    called, out = sub.probe(forbidden_calls, sub, x, v)
    assert isinstance(out, torch.Tensor), f"hessian_vector_product returned {type(out).__name__}, not a tensor"
    assert_close(out.detach(), 6 * x * v, what="HVP of sum(x**3)")
    assert not called, f"hessian_vector_product called {', '.join(sorted(set(called)))}: never form the Hessian"


@check("perf", weight=2, timeout_s=10)
def test_hvp_large_input_fast(sub):
    # 10^6 inputs: an explicit Hessian would need 10^12 entries. After a warm-up call (autograd's
    # one-time start-up costs about 1 s on a small CPU), double backward takes 0.08-0.26 s on 2 busy
    # cores over seeds 0-9; the 1 s bound keeps a 4x margin (README, notes for graders).
    # Timed by the judge from outside the worker (`sub.cpu_timed`: CPU time), never by a clock in it. The
    # inputs are made in the worker from a seed (16 MB of arguments would be timed too), the warm-up
    # runs first in the same worker, and the 8 MB answer's transfer is inside the second.
    def warm_up(mod):
        x = torch.randn(8, dtype=torch.float64)
        return mod.hessian_vector_product(lambda t: (t ** 3).sum(), x, torch.ones(8, dtype=torch.float64)) is not None

    def hvp(mod, seed):
        gen = torch.Generator().manual_seed(seed)
        x = torch.randn(1_000_000, dtype=torch.float64, generator=gen)
        v = torch.randn(1_000_000, dtype=torch.float64, generator=gen)
        return mod.hessian_vector_product(lambda t: (t ** 3).sum(), x, v)

    sub.probe(warm_up, sub)
    out, elapsed = sub.cpu_timed(hvp, sub, 1234)  # CPU time from outside the worker: load does not move it
    gen = torch.Generator().manual_seed(1234)
    x = torch.randn(1_000_000, dtype=torch.float64, generator=gen)
    v = torch.randn(1_000_000, dtype=torch.float64, generator=gen)
    assert_close(out, 6 * x * v, what="HVP of sum(x**3) on 10^6 inputs")
    assert elapsed < 1.0, f"the HVP on 10^6 inputs took {elapsed:.2f} s of CPU (limit 1 s): do not build the Hessian"


@requires_cuda
@check("device", weight=2)
@pytest.mark.parametrize("part", ["penalty", "hvp"])
def test_cuda_inputs(sub, part):
    if part == "penalty":
        critic = _critic().cuda()
        real, fake, alpha = (t.detach().cuda() for t in _batch())
        got = sub.gradient_penalty(critic, real, fake, alpha)
        assert_device(got, "cuda")
        assert_close(got, ref.gradient_penalty(critic, real, fake, alpha).detach(), what="penalty on CUDA")
    else:
        x = torch.randn(7, dtype=torch.float64, device="cuda")
        v = torch.randn(7, dtype=torch.float64, device="cuda")
        got = sub.hessian_vector_product(lambda t: (t ** 3).sum(), x, v)
        assert_device(got, "cuda")
        assert_close(got, 6 * x * v, what="HVP on CUDA")
