"""Hidden checks for 78_loss_that_turns_nan.

Each check observes one property and is blind to the others, so that a program with one bug left
fails that bug's check alone. The loss is called inside probes (its gradient is taken there, on
logits the judge made) and compared with torch's own cross-entropy computed in float64 in the
judge. `train_step` runs on the judge's models and optimizers, built inside probes; torch's global
optimizer step pre-hook records the gradients each step saw, whichever optimizer it is.
"""
import math

import torch
import torch.nn.functional as F

from grader.testing import assert_close, check, hostile_logits, torch_expected


def _loss_and_grad(mod, logits, targets, ignore_index):
    """Runs in the worker: the candidate's loss on `logits`, and its gradient with respect to them."""
    import torch

    logits = logits.clone().requires_grad_(True)
    kwargs = {} if ignore_index is None else {"ignore_index": ignore_index}
    loss = mod.masked_cross_entropy(logits, targets, **kwargs)
    if not isinstance(loss, torch.Tensor):
        return {"type": type(loss).__name__}
    shape = tuple(loss.shape)
    if loss.requires_grad:
        loss.sum().backward()
    grad = None if logits.grad is None else logits.grad.detach().clone()
    return {"type": "Tensor", "shape": shape, "value": loss.detach().clone(), "grad": grad}


def _loss(sub, logits, targets, ignore_index=None, what="masked_cross_entropy"):
    seen = sub.probe(_loss_and_grad, sub, logits, targets, ignore_index)
    assert seen["type"] == "Tensor", f"{what} returned a {seen['type']}, expected a 0-d tensor"
    assert seen["shape"] == (), f"{what} returned a tensor of shape {seen['shape']}, expected a 0-d tensor"
    assert seen["grad"] is not None, f"{what}: the loss does not reach the logits through autograd"
    return seen["value"], seen["grad"]


def _expected(logits, targets, ignore_index=-100):
    logits = logits.double().requires_grad_(True)
    loss = F.cross_entropy(logits, targets, ignore_index=ignore_index)
    loss.backward()
    return loss.detach().float(), logits.grad.float()


def _ordinary(seed=78):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(8, 5, generator=g) * 2
    targets = torch.randint(0, 5, (8,), generator=g)
    targets[[1, 4]] = -100
    return logits, targets


@check("value", weight=3)
def test_all_ignored_batch_gives_zero(sub):
    logits, targets = _ordinary()
    for ignore_index in (None, -1):
        what = f"masked_cross_entropy on 8 samples whose targets are all ignore_index ({ignore_index or -100})"
        value, grad = _loss(sub, logits, torch.full((8,), ignore_index or -100), ignore_index, what)
        assert value.item() == 0.0, f"{what} returned {value.item()}, expected 0 (no sample counts: nothing to learn)"
        assert bool(torch.isfinite(grad).all()) and not grad.any(), f"{what}: the gradient is {grad}, expected zeros"
    value, _ = _loss(sub, logits, targets, None, "masked_cross_entropy on an ordinary batch with 2 ignored targets")
    assert_close(value, _expected(logits, targets)[0], atol=1e-5, rtol=1e-5,
                 what="masked_cross_entropy on an ordinary batch with 2 ignored targets")


@check("value", weight=3)
def test_extreme_logits_stay_finite(sub):
    logits = hostile_logits("spread", (6, 5), dim=1, scale=100.0)       # log-softmax about -200 off the max
    targets = torch.tensor([0, 1, 2, 3, 4, -100])
    what = "masked_cross_entropy on logits of about +-100 (real data, an overconfident model)"
    value, grad = _loss(sub, logits, targets, None, what)
    want, want_grad = _expected(logits, targets)
    assert bool(torch.isfinite(value)), f"{what} returned {value.item()}, expected the finite {want.item()}"
    assert_close(value, want, what=what)
    assert bool(torch.isfinite(grad).all()), f"{what}: the gradient holds non-finite values: {grad}"
    assert_close(grad, want_grad, atol=1e-5, rtol=1e-4, what=f"{what}: the gradient with respect to the logits")
    assert_close(value, torch_expected(F.cross_entropy, logits, targets), what=what)


def _step(mod, state, x, y, kwargs, opt_kind, mask=None, stale=False):
    """Runs in the worker: the candidate's train_step on the judge's model and optimizer (with
    `stale`, every parameter arrives with a leftover .grad of 5s)."""
    import torch
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    from grader import probes

    class Masked(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(x.shape[1], state["weight"].shape[0])
            self.register_buffer("mask", torch.zeros(state["weight"].shape[0]) if mask is None else mask)

        def forward(self, inputs):
            return self.linear(inputs) + self.mask

    model = Masked()
    probes.load_state_dict(model.linear, state)
    params = list(probes.named_parameters(model).items())
    if opt_kind == "sgd":
        opt = torch.optim.SGD([p for _, p in params], lr=1.0)
    else:
        opt = torch.optim.SGD([p for _, p in params], lr=0.1, momentum=0.9)
    steps = []
    if stale:
        for _, p in params:
            p.grad = torch.full_like(p, 5.0)

    def pre(optimizer, args, kw):
        grads = [p.grad for _, p in params if p.grad is not None]
        steps.append({"norm": float(torch.linalg.vector_norm(torch.stack([g.norm() for g in grads]))) if grads else None})

    handle = register_optimizer_step_pre_hook(pre)
    try:
        out = mod.train_step(model, opt, x, y, **kwargs)
    finally:
        handle.remove()
    return {"out": out if isinstance(out, float) else repr(out)[:100], "steps": steps,
            "params": {n: p.detach().clone() for n, p in params},
            "state": {k: {n: v.clone() for n, v in s.items() if isinstance(v, torch.Tensor)}
                      for k, s in enumerate(opt.state.values())}}


def _state(rows, cols, seed=78, scale=0.0):
    g = torch.Generator().manual_seed(seed)
    return {"weight": torch.randn(rows, cols, generator=g) * scale, "bias": torch.zeros(rows)}


@check("grad", weight=3)
def test_clips_before_the_step(sub):
    g = torch.Generator().manual_seed(7)
    x, y = torch.randn(16, 4, generator=g) * 50, torch.randint(0, 3, (16,), generator=g)
    state = _state(3, 4)                            # zero weights: logits 0, a finite loss, a huge gradient
    for kwargs, max_norm in (({}, 1.0), ({"max_norm": 0.25}, 0.25)):
        what = f"train_step(..., {kwargs or 'max_norm left at its default, 1.0'}) on inputs of about +-50"
        seen = sub.probe(_step, sub, state, x, y, kwargs, "sgd")
        assert len(seen["steps"]) == 1, f"{what}: the optimizer stepped {len(seen['steps'])} times, expected once"
        norm = seen["steps"][0]["norm"]
        assert norm is not None and norm <= max_norm * (1 + 1e-5), (
            f"{what}: the gradients the optimizer stepped with had a total norm of {norm}, more than max_norm={max_norm}")
        w = state["weight"].clone().requires_grad_(True)
        b = state["bias"].clone().requires_grad_(True)
        F.cross_entropy(F.linear(x, w, b), y).backward()
        total = torch.linalg.vector_norm(torch.cat([w.grad.flatten(), b.grad.flatten()]))
        scale = min(1.0, max_norm / (total.item() + 1e-6))
        assert_close(seen["params"]["linear.weight"], state["weight"] - scale * w.grad, atol=1e-5, rtol=1e-4,
                     what=f"{what}: the weight after the step (SGD, lr 1, gradients scaled to norm {max_norm})")
        assert_close(seen["params"]["linear.bias"], state["bias"] - scale * b.grad, atol=1e-5, rtol=1e-4,
                     what=f"{what}: the bias after the step")


@check("state", weight=3)
def test_skips_non_finite_loss(sub):
    g = torch.Generator().manual_seed(8)
    x, y = torch.randn(6, 4, generator=g), torch.zeros(6, dtype=torch.long)
    state = _state(3, 4, scale=0.5)
    cases = (("an infinite loss (the target class's score is -inf)", x, torch.tensor([-math.inf, 0.0, 0.0]), math.inf),
             ("a NaN loss (an input holds NaN)", torch.where(torch.arange(24).view(6, 4) == 5, math.nan, x), None,
              math.nan))
    for what, inputs, mask, want in cases:
        what = f"train_step on a batch with {what}"
        seen = sub.probe(_step, sub, state, inputs, y, {}, "momentum", mask)
        out = seen["out"]
        assert isinstance(out, float), f"{what} returned {out}, expected the loss as a Python float"
        assert (math.isnan(out) if math.isnan(want) else out == want), f"{what} returned {out}, expected {want}"
        assert not seen["steps"], f"{what}: the optimizer stepped; a non-finite loss must not change the model"
        assert_close(seen["params"]["linear.weight"], state["weight"], atol=0, rtol=0,
                     what=f"{what}: the weight afterwards (unchanged)")
        assert not seen["state"] or not any(seen["state"].values()), \
            f"{what}: the optimizer's state changed (a momentum buffer appeared)"


@check("value", weight=0.5)
def test_matches_cross_entropy(sub):
    logits, targets = _ordinary(seed=3)
    one = torch.full_like(targets, -100)
    one[5] = 1                                                   # a single sample counts
    for ignore_index, kept in ((None, targets), (2, torch.where(targets == -100, 2, targets)), (None, one)):
        what = f"masked_cross_entropy on an ordinary batch (ignore_index={ignore_index or -100})"
        value, grad = _loss(sub, logits, kept, ignore_index, what)
        want, want_grad = _expected(logits, kept, ignore_index or -100)
        assert_close(value, want, atol=1e-5, rtol=1e-5, what=what)
        assert_close(grad, want_grad, atol=1e-5, rtol=1e-4, what=f"{what}: the gradient with respect to the logits")


@check("value", weight=0.5)
def test_step_returns_loss_before_update(sub):
    g = torch.Generator().manual_seed(9)
    x, y = torch.randn(10, 4, generator=g), torch.randint(0, 3, (10,), generator=g)
    y[3] = -100
    state = _state(3, 4, scale=0.5)
    what = ("train_step(..., max_norm=100.0) on an ordinary batch (SGD, lr 0.1, momentum 0.9), the parameters "
            "arriving with leftover gradients")
    seen = sub.probe(_step, sub, state, x, y, {"max_norm": 100.0}, "momentum", None, True)
    w = state["weight"].clone().requires_grad_(True)
    b = state["bias"].clone().requires_grad_(True)
    loss = F.cross_entropy(F.linear(x, w, b), y)
    loss.backward()
    assert isinstance(seen["out"], float), f"{what} returned {seen['out']}, expected a Python float"
    assert abs(seen["out"] - loss.item()) <= 1e-5, f"{what} returned {seen['out']}, expected {loss.item()} (before the step)"
    assert len(seen["steps"]) == 1, f"{what}: the optimizer stepped {len(seen['steps'])} times, expected once"
    assert_close(seen["params"]["linear.weight"], state["weight"] - 0.1 * w.grad, atol=1e-6, rtol=1e-5,
                 what=f"{what}: the weight after the step")
