"""Hidden checks for 79_wasteful_training_loop.

Each check observes one property and is blind to the others, so that a program with one bug left
fails that bug's check alone. Nothing is timed: the waste is counted. A forward pre-hook counts the
model's calls and their batch sizes; a TorchDispatchMode counts the reads of a tensor's value back
to the host (`aten._local_scalar_dense`: `.item()`, `float()`, `bool()`, `int()`) and a spy the
Python-level `tolist`, `numpy` and `cpu` calls; the memory a training pass needs is measured from
outside the worker (`sub.measure_memory`), against the size of one batch's saved activation
computed in the judge. Expected histories and parameters come from the judge's own loop.
"""
import math

import torch
import torch.nn.functional as F

from grader.testing import assert_close, check

FEATURES, HIDDEN, CLASSES = 8, 16, 3


def _spec(steps, batch, seed=79, hidden=HIDDEN, features=FEATURES, nan_at=None):
    g = torch.Generator().manual_seed(seed)
    state = {"0.weight": torch.randn(hidden, features, generator=g) * 0.3, "0.bias": torch.zeros(hidden),
             "2.weight": torch.randn(CLASSES, hidden, generator=g) * 0.3, "2.bias": torch.zeros(CLASSES)}
    batches = [(torch.randn(batch, features, generator=g), torch.randint(0, CLASSES, (batch,), generator=g))
               for _ in range(steps)]
    if nan_at is not None:
        batches[nan_at][0][0, 0] = math.nan
    return {"state": state, "batches": batches, "hidden": hidden, "features": features}


def _mlp(spec):
    return torch.nn.Sequential(torch.nn.Linear(spec["features"], spec["hidden"]), torch.nn.ReLU(),
                               torch.nn.Linear(spec["hidden"], CLASSES))


def _train(mod, spec, kwargs, count_reads=False, make_batches=None):
    """Runs in the worker: the candidate's train on the judge's model and SGD (lr 0.1, momentum 0.9)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    from grader import probes

    model = _mlp(spec)
    probes.load_state_dict(model, spec["state"])
    params = list(probes.named_parameters(model).items())
    opt = torch.optim.SGD([p for _, p in params], lr=0.1, momentum=0.9)
    sizes = []
    torch.nn.Module.register_forward_pre_hook(model, lambda module, args: sizes.append(len(args[0])))
    batches = make_batches(spec) if make_batches else spec["batches"]

    class Reads(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.count = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func.overloadpacket.__name__ == "_local_scalar_dense":
                self.count += 1
            return func(*args, **(kwargs or {}))

    error = None
    reads, calls = Reads(), []
    try:
        if count_reads:
            with probes.spy("torch.Tensor.tolist", "torch.Tensor.numpy", "torch.Tensor.cpu", module=mod) as seen, reads:
                out = mod.train(model, opt, batches, **kwargs)
            calls = seen.names()
        else:
            out = mod.train(model, opt, batches, **kwargs)
    except FloatingPointError as exc:
        out, error = None, str(exc)[:200]
    return {"history": out if isinstance(out, list) else repr(out)[:200], "error": error, "sizes": sizes,
            "reads": reads.count, "calls": calls, "params": {n: p.detach().clone() for n, p in params}}


def _reference(spec, accumulate, log_every):
    model = _mlp(spec)
    model.load_state_dict(spec["state"])
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    history, window = [], 0.0
    for step, (x, y) in enumerate(spec["batches"], start=1):
        if (step - 1) % accumulate == 0:
            opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        (loss / accumulate).backward()
        if step % accumulate == 0:
            opt.step()
        window += loss.item()
        if step % log_every == 0:
            history.append(window / log_every)
            window = 0.0
    return history, dict(model.named_parameters())


def _trained(seen, spec, windows, what):
    """The pass did the work: the history has one float per window, and the parameters moved."""
    history = seen["history"]
    assert seen["error"] is None, f"{what} raised FloatingPointError: {seen['error']}"
    assert isinstance(history, list) and len(history) == windows and all(type(v) is float for v in history), (
        f"{what} returned {history!r}; expected {windows} Python floats, one per window")
    moved = any(not torch.equal(seen["params"][n], p) for n, p in spec["state"].items())
    assert moved, f"{what}: the parameters did not move"


@check("perf", weight=3)
def test_one_forward_per_batch(sub):
    spec = _spec(steps=6, batch=16)
    seen = sub.probe(_train, sub, spec, {"accumulate": 2, "log_every": 3})
    what = "train over 6 batches of 16 samples (accumulate=2, log_every=3)"
    _trained(seen, spec, 2, what)
    assert seen["sizes"] == [16] * 6, (
        f"{what}: the model ran {len(seen['sizes'])} times, on batches of sizes {sorted(set(seen['sizes']))}; "
        "expected once per batch, on the whole batch (a Python loop over the samples runs 16 small forwards "
        "where one batched forward does the same work many times faster)")


BIG_BATCH, BIG_HIDDEN, BIG_STEPS = 32, 32768, 16


def _big_batches(spec):
    g = torch.Generator().manual_seed(7)
    return [(torch.randn(BIG_BATCH, spec["features"], generator=g),
             torch.randint(0, CLASSES, (BIG_BATCH,), generator=g)) for _ in range(BIG_STEPS)]


@check("perf", weight=3)
def test_memory_does_not_grow_with_accumulate(sub):
    spec = _spec(steps=0, batch=BIG_BATCH, hidden=BIG_HIDDEN, features=16)
    one_batch = BIG_BATCH * BIG_HIDDEN * 4       # the (32, 32768) activation autograd saves for one batch: 4 MiB
    # a correct pass needs about 8 (weights, grads, momentum, activations), a valid one that keeps
    # scaled gradients and a list of losses about 16 (65 MiB measured), the bug about 36 (145 MiB)
    limit = 24 * one_batch
    sub.probe(_train, sub, _spec(steps=2, batch=4), {"accumulate": 1, "log_every": 1})   # warm kernels, allocator
    seen, used = sub.measure_memory(sub.probe, _train, sub, spec, {"accumulate": BIG_STEPS, "log_every": BIG_STEPS},
                                    False, _big_batches)
    what = (f"train over {BIG_STEPS} batches of {BIG_BATCH} samples, a hidden layer of {BIG_HIDDEN} units, "
            f"accumulate={BIG_STEPS}")
    _trained(seen, spec, 1, what)
    assert used < limit, (
        f"{what} needed {used / 2**20:.0f} MiB at its peak; one batch's saved activation is "
        f"{one_batch / 2**20:.0f} MiB, and the pass may need at most {limit / 2**20:.0f} MiB whatever accumulate is: "
        "something keeps several batches' autograd graphs alive at once")


@check("perf", weight=3)
def test_reads_back_once_per_window(sub):
    spec = _spec(steps=12, batch=8)
    seen = sub.probe(_train, sub, spec, {"accumulate": 2, "log_every": 4}, True)
    what = "train over 12 batches (accumulate=2, log_every=4: 3 windows)"
    _trained(seen, spec, 3, what)
    reads = seen["reads"] + len(seen["calls"])
    assert reads <= 3, (
        f"{what} read a tensor's value back to the host {reads} times ({seen['reads']} scalar reads such as .item() "
        f"or float(), {len(seen['calls'])} calls of {sorted(set(seen['calls'])) or 'tolist/numpy/cpu'}); expected at "
        "most once per window: on a GPU each read waits for every queued kernel")


@check("value", weight=0.5)
def test_history_and_parameters(sub):
    for steps, kwargs in ((14, {"accumulate": 3, "log_every": 4}), (20, {})):
        spec = _spec(steps=steps, batch=10)
        accumulate, log_every = kwargs.get("accumulate", 4), kwargs.get("log_every", 10)
        windows = steps // log_every
        what = f"train over {steps} batches ({kwargs or 'accumulate and log_every left at their defaults, 4 and 10'})"
        seen = sub.probe(_train, sub, spec, kwargs)
        _trained(seen, spec, windows, what)
        want, params = _reference(spec, accumulate, log_every)
        for i, (got, expected) in enumerate(zip(seen["history"], want)):
            assert abs(got - expected) <= 1e-5 * max(1.0, abs(expected)), (
                f"{what}: window {i}'s mean loss is {got}, expected {expected}")
        for name, p in params.items():
            assert_close(seen["params"][name], p.detach(), atol=1e-5, rtol=1e-4,
                         what=f"{what}: {name} after the pass (one SGD step per {accumulate} batches, on the mean "
                              f"of their losses' gradients; the batches left over take no step)")


@check("value", weight=0.5)
def test_raises_on_non_finite_window(sub):
    spec = _spec(steps=8, batch=6, nan_at=5)
    seen = sub.probe(_train, sub, spec, {"accumulate": 2, "log_every": 4})
    assert seen["error"] is not None, (
        f"train over 8 batches (accumulate=2, log_every=4) whose 6th batch holds a NaN returned {seen['history']!r}; expected a "
        "FloatingPointError for the second window")
