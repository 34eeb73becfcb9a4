"""Hidden checks for 12_define_by_run."""
import pytest
import torch

from grader.testing import assert_close, assert_device, check, reference, requires_cuda

ref = reference(__file__)

RELU_LIKE = {"ReluBackward0", "ClampMinBackward0", "ClampBackward0", "ClampBackward1", "ThresholdBackward0"}


def _orthogonal(d, scale, dtype=torch.float64):
    q, _ = torch.linalg.qr(torch.randn(d, d, dtype=dtype))
    return scale * q


def _node_names_probe():
    """Probe factory (nested, so it is pickled by value): the autograd node names of
    branchy_loss's output for a given x, built and inspected in the worker."""

    def names_of(mod, x, w):
        w = w.detach().requires_grad_(True)
        out = mod.branchy_loss(x, w)
        names, seen, stack = set(), set(), [out.grad_fn]
        while stack:
            node = stack.pop()
            if node is None or node in seen:
                continue
            seen.add(node)
            names.add(type(node).__name__)
            stack.extend(fn for fn, _ in node.next_functions)
        return sorted(names)

    return names_of


@check("value", weight=2)
def test_loop_count(sub):
    w = _orthogonal(4, 0.6)                    # contraction: every step shrinks the norm by >= 0.6
    x_large = 5.0 * torch.randn(3, 4, dtype=torch.float64)
    x_small = 0.05 * torch.randn(3, 4, dtype=torch.float64)
    x_tiny = 1e-5 * torch.randn(3, 4, dtype=torch.float64)   # already below tol: no iteration at all
    x_exact = torch.tensor([[3.0, 4.0]], dtype=torch.float64)  # norm exactly 5.0: `>= tol` steps once
    cases = {"large-norm x": (x_large, w, 1e-3, 50), "small-norm x": (x_small, w, 1e-3, 50),
             "x already below tol": (x_tiny, w, 1e-3, 50),
             "non-contracting w, max_iter=7": (x_large, _orthogonal(4, 3.0), 1e-3, 7),
             "norm exactly tol (the loop runs while norm >= tol)": (x_exact, 0.5 * torch.eye(2, dtype=torch.float64),
                                                                    5.0, 50),
             "non-contracting w, max_iter left at its default of 50": (x_large, _orthogonal(4, 3.0), 1e-3, None)}
    counts = {}
    for name, (x, w_, tol, max_iter) in cases.items():
        args = (x, w_, tol) if max_iter is None else (x, w_, tol, max_iter)
        with torch.no_grad():
            got = sub.iterate_until_small(*args)
        assert isinstance(got, tuple) and len(got) == 2, f"expected a tuple (h.sum(), n), got {type(got).__name__}"
        out, n = got
        exp_out, exp_n = ref.iterate_until_small(*args)
        assert isinstance(n, int) and not isinstance(n, bool), \
            f"n must be a Python int, got {type(n).__name__} ({name})"
        assert n == exp_n, f"{name}: the loop ran {n} times, expected {exp_n}"
        assert_close(out, exp_out, what=f"h.sum() for {name}")
        counts[name] = n
    assert counts["x already below tol"] == 0
    assert counts["norm exactly tol (the loop runs while norm >= tol)"] == 1
    assert counts["non-contracting w, max_iter left at its default of 50"] == 50
    assert counts["large-norm x"] != counts["small-norm x"], \
        "the number of iterations must depend on the input: it is the same for a small and a large x"


@check("grad", weight=2)
@pytest.mark.parametrize("tol", [1e-3, 0.5], ids=["tol1e-3", "tol0.5"])
def test_grad_unrolled(sub, tol):
    w = _orthogonal(4, 0.6).requires_grad_(True)
    x = (2.0 * torch.randn(3, 4, dtype=torch.float64)).requires_grad_(True)
    out, n = sub.iterate_until_small(x, w, tol)
    _, exp_n = ref.iterate_until_small(x.detach(), w.detach(), tol)
    assert n == exp_n, f"the loop ran {n} times, expected {exp_n}"
    assert isinstance(out, torch.Tensor) and out.requires_grad, \
        "h.sum() does not require grad: the graph through the loop was lost"
    gx, gw = torch.autograd.grad(out, (x, w), allow_unused=True)

    # Expected: the same computation unrolled exactly n times in plain torch.
    x2, w2 = x.detach().clone().requires_grad_(True), w.detach().clone().requires_grad_(True)
    h = x2
    for _ in range(exp_n):
        h = torch.tanh(h @ w2)
    ex, ew = torch.autograd.grad(h.sum(), (x2, w2))
    assert gw is not None, "no gradient reached w: the graph through the loop was lost"
    assert_close(gw, ew, atol=1e-10, rtol=1e-7, what=f"d out / d w (unrolled {exp_n} times)")
    assert gx is not None, "no gradient reached x: the graph through the loop was cut (detached) somewhere"
    assert_close(gx, ex, atol=1e-10, rtol=1e-7, what=f"d out / d x (unrolled {exp_n} times)")


@check("grad", weight=2)
def test_branchy_grad_both_branches(sub):
    w = torch.randn(3, 4, dtype=torch.float64)
    w[:, 0] = w[:, 0].abs()      # column 0: x_pos @ w > 0 everywhere, column 1: < 0 everywhere,
    w[:, 1] = -w[:, 1].abs()     # so the ReLU mask has both signs whatever the seed
    w.requires_grad_(True)
    x_pos = torch.rand(5, 3, dtype=torch.float64) + 0.1
    x_neg = -(torch.rand(5, 3, dtype=torch.float64) + 0.1)

    out_pos = sub.branchy_loss(x_pos, w)
    (g_pos,) = torch.autograd.grad(out_pos, w)
    out_neg = sub.branchy_loss(x_neg, w)
    (g_neg,) = torch.autograd.grad(out_neg, w)

    wd = w.detach()
    z_pos, z_neg = x_pos @ wd, x_neg @ wd
    assert_close(out_pos, torch.relu(z_pos).sum(), what="branchy_loss for a positive-mean x (ReLU branch)")
    assert_close(out_neg, torch.tanh(z_neg).sum(), what="branchy_loss for a negative-mean x (tanh branch)")
    assert_close(g_pos, x_pos.T @ (z_pos > 0).to(x_pos.dtype), what="d/dw for a positive-mean x (ReLU branch)")
    assert_close(g_neg, x_neg.T @ (1 - torch.tanh(z_neg) ** 2), what="d/dw for a negative-mean x (tanh branch)")
    # mean exactly 0 is not > 0: the tanh branch
    x_zero = torch.tensor([[1.0, -1.0, 0.5], [-0.5, 2.0, -2.0]], dtype=torch.float64)
    out_zero = sub.branchy_loss(x_zero, w)
    assert_close(out_zero, torch.tanh(x_zero @ wd).sum(), what="branchy_loss for an x whose mean is exactly 0 "
                 "(not > 0: the tanh branch)")


@check("api")
def test_real_python_branch(sub):
    names_of = _node_names_probe()
    w = torch.randn(3, 2)
    pos = set(sub.probe(names_of, sub, torch.rand(4, 3) + 0.1, w))
    neg = set(sub.probe(names_of, sub, -(torch.rand(4, 3) + 0.1), w))
    assert "TanhBackward0" not in pos, (
        f"the positive-mean graph contains TanhBackward0 ({sorted(pos)}): both branches were computed; "
        "choose one with a Python `if` so that only it is recorded")
    assert "TanhBackward0" in neg, f"the negative-mean graph has no TanhBackward0: {sorted(neg)}"
    assert not (neg & RELU_LIKE), (
        f"the negative-mean graph contains {sorted(neg & RELU_LIKE)}: both branches were computed; "
        "choose one with a Python `if` so that only it is recorded")
    assert "WhereBackward0" not in neg and "WhereBackward0" not in pos, \
        "the branch is taken with torch.where over both results: use a Python `if`"


@check("state")
def test_no_backward_inside(sub):
    x0 = torch.randn(3, 4, dtype=torch.float64)
    w0 = _orthogonal(4, 0.6)
    x_pos0 = torch.rand(5, 4, dtype=torch.float64) + 0.1

    def grads_after_calls(mod, x0, w0, x_pos0):
        def plain(v):
            if isinstance(v, torch.Tensor):
                return v.detach().clone()
            if isinstance(v, tuple):
                return tuple(plain(e) for e in v)
            return v if isinstance(v, (int, float, type(None))) else type(v).__name__

        x = x0.clone().requires_grad_(True)
        w = w0.clone().requires_grad_(True)
        outs = {"iterate_until_small": plain(mod.iterate_until_small(x, w, 1e-3))}
        seen = {"iterate_until_small": (x.grad is not None, w.grad is not None)}
        x_pos = x_pos0.clone().requires_grad_(True)
        outs["branchy_loss(x>0)"] = plain(mod.branchy_loss(x_pos, w))
        outs["branchy_loss(x<0)"] = plain(mod.branchy_loss(-x_pos0.clone().requires_grad_(True), w))
        seen["branchy_loss"] = (x_pos.grad is not None, w.grad is not None)
        return seen, outs

    seen, outs = sub.probe(grads_after_calls, sub, x0, w0, x_pos0)
    for fn, (x_has, w_has) in seen.items():
        assert not (x_has or w_has), (
            f"{fn} left .grad on its inputs: it must only build the graph and return; the caller "
            "decides when to call backward()")
    h_ref, n_ref = ref.iterate_until_small(x0, w0, 1e-3)
    got = outs["iterate_until_small"]
    assert isinstance(got, tuple) and len(got) == 2, (
        f"iterate_until_small returned {got!r}, expected a tuple (h.sum(), n)")
    assert isinstance(got[0], torch.Tensor), "iterate_until_small must return h.sum() as a tensor"
    assert_close(got[0], h_ref.detach(), what="iterate_until_small(...)[0]")
    assert got[1] == n_ref, f"iterate_until_small ran {got[1]} iterations, expected {n_ref}"
    for name, x in (("branchy_loss(x>0)", x_pos0), ("branchy_loss(x<0)", -x_pos0)):
        assert isinstance(outs[name], torch.Tensor), f"{name} returned {outs[name]!r}, not a tensor"
        assert_close(outs[name], ref.branchy_loss(x, w0).detach(), what=name)


@requires_cuda
@check("device")
def test_cuda_inputs(sub):
    # The Python `while`/`if` on CUDA tensors syncs with the host: that is inherent and allowed here.
    w = _orthogonal(4, 0.6).cuda().requires_grad_(True)
    x = (2.0 * torch.randn(3, 4, dtype=torch.float64)).cuda().requires_grad_(True)
    out, n = sub.iterate_until_small(x, w, 1e-3)
    exp_out, exp_n = ref.iterate_until_small(x.detach().cpu(), w.detach().cpu(), 1e-3)
    assert_device(out, "cuda", what="h.sum()")
    assert n == exp_n, f"the loop ran {n} times on CUDA, expected {exp_n}"
    assert_close(out.detach().cpu(), exp_out, what="h.sum() on CUDA")
    (gw,) = torch.autograd.grad(out, w)
    assert_device(gw, "cuda", what="d out / d w")

    wb = torch.randn(4, 2, dtype=torch.float64, device="cuda", requires_grad=True)
    for sign in (1.0, -1.0):
        xb = sign * (torch.rand(5, 4, dtype=torch.float64, device="cuda") + 0.1)
        loss = sub.branchy_loss(xb, wb)
        assert_device(loss, "cuda", what="branchy_loss")
        expected = ref.branchy_loss(xb.cpu(), wb.detach().cpu())
        assert_close(loss.detach().cpu(), expected, what="branchy_loss on CUDA")
