"""Hidden checks for 75_loop_that_does_not_learn.

Each check observes one property of the program and is blind to the others, so that a program with
one bug left fails that bug's check alone. `fit` runs on the judge's own model (Linear, ReLU,
Linear: logits, whatever `build_model` returns) over a dataset sorted by label. Hooks registered
through torch's own classes record, for every forward, the batch and the model's output; for every
optimizer step (torch's global step hooks, whichever optimizer the program builds), the learning
rate, the parameters and their gradients before the step and the parameters after it. Expected
values come from the judge: the gradient of each recorded batch's loss at the recorded
parameters, the samples' labels, the schedule and the SGD-with-momentum update.
"""
import math

import torch
import torch.nn.functional as F

from grader.testing import assert_close, check

N, FEATURES, HIDDEN, CLASSES = 48, 6, 16, 4
BATCH, EPOCHS = 16, 4                 # three steps per epoch


def _data(seed=75):
    g = torch.Generator().manual_seed(seed)
    y = torch.arange(CLASSES).repeat_interleave(N // CLASSES)       # sorted by label, as exported by class
    x = torch.randn(CLASSES, FEATURES, generator=g)[y] * 2 + torch.randn(N, FEATURES, generator=g)
    state = {"0.weight": torch.randn(HIDDEN, FEATURES, generator=g) * 0.4, "0.bias": torch.randn(HIDDEN, generator=g) * 0.1,
             "2.weight": torch.randn(CLASSES, HIDDEN, generator=g) * 0.4, "2.bias": torch.randn(CLASSES, generator=g) * 0.1}
    return x, y, state


def _mlp():
    return torch.nn.Sequential(torch.nn.Linear(FEATURES, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, CLASSES))


def _fit(mod, x, y, state, epochs, batch_size, lr, decay_every, eval_first=False):
    """Runs in the worker: the candidate's fit on the judge's model, everything it does recorded.
    A None argument is left out of the call (fit's default)."""
    import torch
    from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

    from grader import probes

    model = _mlp()
    probes.load_state_dict(model, state)
    if eval_first:
        torch.nn.Module.eval(model)
    params = list(probes.named_parameters(model).items())
    forwards, steps = [], []

    class Samples(torch.utils.data.Dataset):
        def __len__(self):
            return len(x)

        def __getitem__(self, i):
            return x[i], y[i]

    def forward_pre(module, args):
        modes = [m.training for _, m in probes.modules(model)]
        forwards.append({"x": args[0].detach().clone(), "train": all(modes)})

    def forward_post(module, args, out):
        forwards[-1]["out"] = out.detach().clone()

    def step_pre(opt, args, kwargs):
        steps.append({"lrs": [g["lr"] for g in opt.param_groups],
                      "before": {n: p.detach().clone() for n, p in params},
                      "grads": {n: None if p.grad is None else p.grad.detach().clone() for n, p in params},
                      "forwards": len(forwards)})

    def step_post(opt, args, kwargs):
        steps[-1]["after"] = {n: p.detach().clone() for n, p in params}

    torch.nn.Module.register_forward_pre_hook(model, forward_pre)
    torch.nn.Module.register_forward_hook(model, forward_post)
    handles = [register_optimizer_step_pre_hook(step_pre), register_optimizer_step_post_hook(step_post)]
    given = {k: v for k, v in (("batch_size", batch_size), ("lr", lr), ("decay_every", decay_every)) if v is not None}
    try:
        history = mod.fit(model, Samples(), epochs, **given)
    finally:
        for handle in handles:
            handle.remove()
    return {"history": list(history) if isinstance(history, (list, tuple)) else repr(history)[:200],
            "forwards": forwards, "steps": steps}


def _run(sub, epochs=EPOCHS, batch_size=BATCH, lr=0.1, decay_every=1, eval_first=False, seed=75):
    x, y, state = _data(seed)
    seen = sub.probe(_fit, sub, x, y, state, epochs, batch_size, lr, decay_every, eval_first)
    return x, y, state, seen


def _ids(x, batch):
    """The dataset index of each row of a recorded batch (rows are matched exactly: nothing transforms them)."""
    index = {tuple(row.tolist()): i for i, row in enumerate(x)}
    found = [index.get(tuple(row.tolist())) for row in batch]
    assert None not in found, "the model received a row that is not a sample of the dataset"
    return found


def _per_epoch(seen, what, epochs=EPOCHS, batch_size=BATCH):
    per = math.ceil(N / batch_size)
    forwards = seen["forwards"]
    assert len(forwards) == epochs * per, (f"{what}: the model ran {len(forwards)} forwards, expected {epochs * per} "
                                           f"({epochs} epochs of {per} batches of at most {batch_size})")
    return [forwards[e * per:(e + 1) * per] for e in range(epochs)]


@check("value", weight=3)
def test_model_outputs_logits(sub):
    def run(mod, x):
        from grader import probes

        model = mod.build_model(FEATURES, HIDDEN, CLASSES)
        linears = [(n, m.weight.detach().clone(), m.bias.detach().clone()) for n, m in probes.modules(model)
                   if isinstance(m, torch.nn.Linear)]
        return linears, model(x).detach().clone()

    x = torch.randn(10, FEATURES) * 3
    linears, out = sub.probe(run, sub, x)
    shapes = [tuple(w.shape) for _, w, _ in linears]
    assert shapes == [(HIDDEN, FEATURES), (CLASSES, HIDDEN)], (
        f"build_model({FEATURES}, {HIDDEN}, {CLASSES}) holds Linear layers of shapes {shapes}; expected "
        f"[({HIDDEN}, {FEATURES}), ({CLASSES}, {HIDDEN})]")
    (_, w1, b1), (_, w2, b2) = linears
    want = F.linear(F.relu(F.linear(x, w1, b1)), w2, b2)
    assert_close(out, want, atol=1e-5, rtol=1e-5,
                 what="build_model's output for 10 samples (the raw class scores of Linear, ReLU, Linear)")


@check("grad", weight=3)
def test_steps_use_fresh_gradients(sub):
    x, y, state, seen = _run(sub)
    what = f"fit over {N} samples, batches of {BATCH}, {EPOCHS} epochs"
    assert not isinstance(seen["history"], str), f"{what} returned {seen['history']}, expected a list of floats"
    steps, forwards = seen["steps"], seen["forwards"]
    assert len(steps) == len(forwards) == EPOCHS * math.ceil(N / BATCH), (
        f"{what}: the model ran {len(forwards)} forwards and the optimizer {len(steps)} steps; expected one step "
        f"per batch, {EPOCHS * math.ceil(N / BATCH)} of each")
    for k, step in enumerate(steps):
        assert step["forwards"] == k + 1, f"{what}: optimizer step {k} ran after {step['forwards']} forwards, expected {k + 1}"
        batch = forwards[k]["x"]
        labels = y[_ids(x, batch)]
        model = _mlp()
        model.load_state_dict(step["before"])
        F.cross_entropy(model(batch), labels).backward()
        for name, p in model.named_parameters():
            got = step["grads"][name]
            assert got is not None, f"{what}: at optimizer step {k}, {name}.grad is None"
            assert_close(got, p.grad, atol=1e-5, rtol=1e-4,
                         what=f"{what}: {name}.grad when optimizer step {k} ran (expected the gradient of batch {k}'s "
                              f"mean cross-entropy alone, at the parameters of that moment)")


@check("value", weight=3)
def test_epochs_visit_samples_in_fresh_order(sub):
    x, y, state, seen = _run(sub)
    what = f"fit over a dataset of {N} samples sorted by label, batches of {BATCH}, {EPOCHS} epochs"
    orders = []
    for e, epoch in enumerate(_per_epoch(seen, what)):
        sizes = [len(f["x"]) for f in epoch]
        assert sizes == [BATCH] * (N // BATCH), f"{what}: epoch {e} ran batches of sizes {sizes}"
        order = [i for f in epoch for i in _ids(x, f["x"])]
        assert sorted(order) == list(range(N)), f"{what}: epoch {e} did not visit every sample exactly once"
        orders.append(order)
    assert orders[0] != list(range(N)) and len({tuple(o) for o in orders}) == EPOCHS, (
        f"{what}: the epochs visited the samples in the dataset's own order or repeated one order "
        f"(epoch orders start {[o[:6] for o in orders]}); every epoch must draw a fresh random order")


@check("state", weight=3)
def test_lr_halves_per_epoch(sub):
    lr, decay_every = 0.2, 2
    x, y, state, seen = _run(sub, lr=lr, decay_every=None)          # decay_every's default, 2
    what = f"fit(lr={lr}) (decay_every's default, {decay_every}) over {EPOCHS} epochs of {N // BATCH} batches"
    per = N // BATCH
    assert len(seen["steps"]) == EPOCHS * per, f"{what}: the optimizer took {len(seen['steps'])} steps, expected {EPOCHS * per}"
    got = [s["lrs"] for s in seen["steps"]]
    want = [[lr * 0.5 ** ((k // per) // decay_every)] for k in range(EPOCHS * per)]
    bad = [k for k in range(len(want)) if len(got[k]) != 1 or abs(got[k][0] - want[k][0]) > 1e-7 * want[k][0]]
    assert not bad, (f"{what}: the learning rates of the steps were {[g[0] for g in got]}; expected "
                     f"{[w[0] for w in want]} (lr during epochs 0-{decay_every - 1}, halved every {decay_every} epochs)")


@check("value", weight=0.5)
def test_history_is_epoch_mean_loss(sub):
    x, y, state, seen = _run(sub)
    what = f"fit over {N} samples, batches of {BATCH}, {EPOCHS} epochs"
    history = seen["history"]
    assert isinstance(history, list) and len(history) == EPOCHS and all(type(v) is float for v in history), (
        f"{what} returned {history!r}; expected a list of {EPOCHS} Python floats")
    for e, epoch in enumerate(_per_epoch(seen, what)):
        total = sum(F.cross_entropy(f["out"], y[_ids(x, f["x"])], reduction="sum").item() for f in epoch)
        want = total / N
        assert abs(history[e] - want) <= 1e-5 * max(1.0, abs(want)), (
            f"{what}: history[{e}] is {history[e]}, expected {want}: the mean over the epoch's samples of the loss "
            "each batch had when it was trained on")


@check("value", weight=0.5)
def test_sgd_momentum_update(sub):
    x, y, state, seen = _run(sub, batch_size=None, lr=None)         # the defaults: batches of 32, lr 0.1
    what = f"fit over {N} samples for {EPOCHS} epochs with the default batch size and learning rate"
    steps = seen["steps"]
    sizes = [len(f["x"]) for f in seen["forwards"]]
    assert sizes == [32, N - 32] * EPOCHS, f"{what}: the batches had sizes {sizes}; the default batch size is 32"
    assert len(steps) == len(sizes) and steps[0]["lrs"] == [0.1], (
        f"{what}: the first of {len(steps)} steps ran at learning rate {steps[0]['lrs'] if steps else None}; "
        "the default is 0.1")
    buffers = {}
    for k, step in enumerate(steps):
        assert "after" in step, f"{what}: optimizer step {k} did not finish"
        for name, before in step["before"].items():
            grad = step["grads"][name]
            grad = torch.zeros_like(before) if grad is None else grad
            buffers[name] = grad if name not in buffers else 0.9 * buffers[name] + grad
            assert_close(step["after"][name], before - step["lrs"][0] * buffers[name], atol=1e-6, rtol=1e-5,
                         what=f"{what}: {name} after optimizer step {k} (SGD with momentum 0.9, no weight decay)")


@check("mode", weight=0.5)
def test_trains_in_training_mode(sub):
    x, y, state, seen = _run(sub, epochs=1, eval_first=True)
    what = "fit on a model handed over in eval mode"
    assert seen["forwards"], f"{what} never ran the model"
    modes = [f["train"] for f in seen["forwards"]]
    assert all(modes), f"{what}: forward number {modes.index(False)} ran with a module in eval mode"
