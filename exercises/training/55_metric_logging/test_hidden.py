"""Hidden checks for 55_metric_logging.

The fake writer is built inside each probe, in the worker, where the candidate's `MetricLogger`
calls it. Its `add_scalar` has `SummaryWriter.add_scalar`'s own signature (so positional and keyword
calls both work) and records, for every call, the tag, the *type* of `scalar_value` and
`global_step`, and their values converted to plain floats / ints; it never keeps the objects it is
given (so the grad check sees only what the logger itself keeps). The probe marks which logger call
is running (`phase`), so every record says which call wrote it. Expected values are computed in
the judge from the same inputs. The integration check drives a real `SummaryWriter` in the worker,
reads the event file's bytes as they are when `close()` returns and opens them with tensorboard's `EventAccumulator`
only in the verifier (a worker that never imports the submission).
"""
import math

import pytest
import torch

from grader.testing import check

TRAIN_TAGS = "Loss/train_step"
EPOCH_TAGS = ("Loss/train", "Loss/val", "Accuracy/val")


def _fake_writer():
    """Runs in the worker: a writer with SummaryWriter's method signatures that records plain data."""
    import torch

    def plain(value):
        if isinstance(value, torch.Tensor):
            try:
                return float(value.detach().reshape(()).item())
            except Exception:  # noqa: BLE001 - not one number: recorded as None
                return None
        if isinstance(value, (bool, int, float)):
            return float(value)
        try:
            return float(value)
        except Exception:  # noqa: BLE001 - not a number: recorded as None
            return None

    class FakeWriter:
        def __init__(self):
            self.records = []
            self.phase = None

        def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                       double_precision=False):
            self.records.append({
                "call": "add_scalar", "phase": self.phase, "tag": tag if type(tag) is str else repr(tag),
                "value": plain(scalar_value), "value_type": type(scalar_value).__name__,
                "value_is_float": isinstance(scalar_value, float),
                "step": global_step if type(global_step) is int else plain(global_step),
                "step_type": type(global_step).__name__,
            })

        def flush(self):
            self.records.append({"call": "flush", "phase": self.phase})

        def close(self):
            self.records.append({"call": "close", "phase": self.phase})

    return FakeWriter()


def _optimizer(lrs):
    params = [torch.nn.Parameter(torch.ones(2)) for _ in lrs]
    return torch.optim.SGD([{"params": [p], "lr": lr} for p, lr in zip(params, lrs)], lr=0.5)


def _session(mod, weights, coeffs, lrs, lr_scales, epochs):
    """Runs in the worker: `len(weights)` train steps (loss = (w * c).sum(), with a graph; every
    group's lr scaled by lr_scales[k] before step k), one log_epoch(epoch, ...) for each
    (after_step, epoch, values) in `epochs` after that step, then close()."""
    writer = _fake_writer()
    logger = mod.MetricLogger(writer)
    opt = _optimizer(lrs)
    for k, (w, c) in enumerate(zip(weights, coeffs)):
        for group in opt.param_groups:
            group["lr"] = group["lr"] * lr_scales[k]
        p = torch.nn.Parameter(w.clone())
        writer.phase = f"train{k}"
        logger.log_train_step((p * c).sum(), opt)
        for after, epoch, values in epochs:
            if after == k:
                writer.phase = f"epoch{epoch}"
                logger.log_epoch(epoch, *values)
    writer.phase = "close"
    logger.close()
    return writer.records


def _expected_train(weights, coeffs, lrs, lr_scales):
    """Judge side: {phase: {tag: value}} and the step of each train phase."""
    out, current = {}, list(lrs)
    for k, (w, c) in enumerate(zip(weights, coeffs)):
        current = [lr * lr_scales[k] for lr in current]
        tags = {TRAIN_TAGS: (w * c).sum().item()}
        tags.update({f"LR/group{i}": lr for i, lr in enumerate(current)})
        out[f"train{k}"] = tags
    return out


def _by_phase(records):
    phases = {}
    for r in records:
        if r["call"] == "add_scalar":
            phases.setdefault(r["phase"], []).append(r)
    return phases


def _same(a, b):
    return a is not None and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def _inputs(steps):
    weights = [torch.randn(3) for _ in range(steps)]
    coeffs = [torch.randn(3) for _ in range(steps)]
    return weights, coeffs


# ---------------------------------------------------------------- log_train_step

@check("value", weight=2)
def test_train_step_tags(sub):
    for lrs in ([0.1], [0.1, 0.01, 0.003]):             # one param group, three
        _train_step_tags(sub, lrs)


def _train_step_tags(sub, lrs):
    weights, coeffs = _inputs(4)
    scales = [1.0, 0.5, 1.0, 0.1]                      # the lr changes between steps, as a scheduler would
    epochs = [(1, 0, (1.5, 1.7, 0.25)), (2, 1, (1.2, 1.4, 0.5))]  # log_epoch calls in between
    records = sub.probe(_session, sub, weights, coeffs, lrs, scales, epochs)
    expected = _expected_train(weights, coeffs, lrs, scales)
    phases = _by_phase(records)
    for k in range(4):
        phase = f"train{k}"
        got = phases.get(phase, [])
        tags = sorted(r["tag"] for r in got)
        assert tags == sorted(expected[phase]), \
            (f"log_train_step call {k} (with {len(lrs)} param group(s)) wrote the tags {tags}, "
             f"expected exactly {sorted(expected[phase])}")
        for r in got:
            assert r["step_type"] == "int" and r["step"] == k, \
                (f"log_train_step call {k} wrote {r['tag']!r} at global_step={r['step']!r} ({r['step_type']}), "
                 f"expected the int {k}: steps count log_train_step calls from 0, whatever else is logged")
            assert _same(r["value"], expected[phase][r["tag"]]), \
                (f"log_train_step call {k} wrote {r['tag']!r} = {r['value']}, expected {expected[phase][r['tag']]} "
                 "(the loss's value; each group's current param_groups[i]['lr'])")


@check("dtype")
def test_scalar_values_are_python_floats(sub):
    weights, coeffs = _inputs(3)
    lrs = [0.1, torch.tensor(0.05)]                   # torch optimizers accept a tensor lr too
    records = sub.probe(_session, sub, weights, coeffs, lrs, [1.0, 1.0, 1.0], [(1, 0, (1.5, 1.7, 0.25))])
    written = [r for r in records if r["call"] == "add_scalar"]
    tags = {r["tag"] for r in written}
    assert {TRAIN_TAGS, "LR/group0", "LR/group1", *EPOCH_TAGS} <= tags, \
        f"the logger wrote the tags {sorted(tags)}, expected the train-step, lr and epoch tags"
    wrong = sorted({(r["tag"], r["value_type"]) for r in written if not r["value_is_float"]})
    assert not wrong, \
        f"scalar_value must be a Python float; the logger passed {', '.join(f'{t}: {ty}' for t, ty in wrong)}"


# ---------------------------------------------------------------- log_epoch

@check("value")
def test_epoch_tags(sub):
    weights, coeffs = _inputs(3)
    epochs = [(0, 0, (2.5, 2.25, 0.125)), (1, 1, (1.5, 1.75, 0.5)), (2, 4, (0.75, 1.0, 0.875))]
    records = sub.probe(_session, sub, weights, coeffs, [0.1], [1.0, 1.0, 1.0], epochs)
    phases = _by_phase(records)
    for _, epoch, values in epochs:
        got = phases.get(f"epoch{epoch}", [])
        tags = sorted(r["tag"] for r in got)
        assert tags == sorted(EPOCH_TAGS), f"log_epoch({epoch}, ...) wrote the tags {tags}, expected exactly {sorted(EPOCH_TAGS)}"
        want = dict(zip(EPOCH_TAGS, values))
        for r in got:
            assert r["step_type"] == "int" and r["step"] == epoch, \
                f"log_epoch({epoch}, ...) wrote {r['tag']!r} at global_step={r['step']!r}, expected the int {epoch}"
            assert _same(r["value"], want[r["tag"]]), \
                f"log_epoch({epoch}, ...) wrote {r['tag']!r} = {r['value']}, expected {want[r['tag']]}"


# ---------------------------------------------------------------- graphs

def _holds(mod, weights, coeffs):
    """Runs in the worker: log losses that carry a graph, then look for what still holds them."""
    import gc
    import weakref

    from grader import probes

    writer = _fake_writer()
    logger = mod.MetricLogger(writer)
    opt = _optimizer([0.1])
    refs = []
    for w, c in zip(weights, coeffs):
        p = torch.nn.Parameter(w.clone())
        loss = (p * c).exp().sum()                  # exp saves its output: the graph holds tensors
        refs.append(weakref.ref(loss))
        logger.log_train_step(loss, opt)
        del loss, p
    gc.collect()
    steps = [r["step"] for r in writer.records if r["call"] == "add_scalar" and r["tag"] == "Loss/train_step"]
    return {"steps": steps, "alive": sum(r() is not None for r in refs),
            "holders": probes.graph_holders(mod, logger)}


@check("grad")
def test_no_graph_held(sub):
    weights, coeffs = _inputs(3)
    seen = sub.probe(_holds, sub, weights, coeffs)
    assert seen["steps"] == [0, 1, 2], f"three log_train_step calls wrote 'Loss/train_step' at steps {seen['steps']}"
    assert not seen["holders"], f"the logger keeps tensors with an autograd graph: {seen['holders'][:5]}"
    assert seen["alive"] == 0, \
        f"{seen['alive']} of 3 loss tensors passed to log_train_step are still alive after the caller dropped them"


def _backward_after_logging(mod, w, c):
    """Runs in the worker: log a loss, then backpropagate it as a training step would."""
    writer = _fake_writer()
    logger = mod.MetricLogger(writer)
    p = torch.nn.Parameter(w.clone())
    loss = (p * c).sum()
    logger.log_train_step(loss, _optimizer([0.1]))
    logged = [r["value"] for r in writer.records if r["call"] == "add_scalar" and r["tag"] == "Loss/train_step"]
    seen = {"logged": logged, "requires_grad": loss.requires_grad, "grad": None}
    if loss.requires_grad:
        loss.backward()
        seen["grad"] = None if p.grad is None else p.grad.detach().clone()
    return seen


@check("grad")
def test_loss_still_backpropagates(sub):
    w, c = torch.randn(3), torch.randn(3)
    seen = sub.probe(_backward_after_logging, sub, w, c)
    assert len(seen["logged"]) == 1 and _same(seen["logged"][0], (w * c).sum().item()), \
        f"log_train_step wrote 'Loss/train_step' values {seen['logged']}, expected one, the loss's value"
    assert seen["requires_grad"], "after log_train_step the caller's loss no longer requires grad (detached in place?)"
    assert seen["grad"] is not None and torch.equal(seen["grad"], c), \
        "backward() on the loss after log_train_step did not give the parameter its gradient"


# ---------------------------------------------------------------- close

def _close_twice(mod):
    writer = _fake_writer()
    logger = mod.MetricLogger(writer)
    writer.phase = "train"
    logger.log_train_step(torch.tensor(0.5, requires_grad=True) * 2, _optimizer([0.1]))
    writer.phase = "close1"
    logger.close()
    writer.phase = "close2"
    logger.close()
    return [(r["call"], r["phase"]) for r in writer.records]


@check("state")
def test_close_once(sub):
    calls = sub.probe(_close_twice, sub)
    logged = [c for c in calls if c == ("add_scalar", "train")]
    assert len(logged) == 2, f"log_train_step wrote {len(logged)} scalars, expected 2 (the loss and one lr)"
    after = [c for c in calls if c[1] != "train"]
    assert after == [("flush", "close1"), ("close", "close1")], \
        (f"close() called twice made the writer calls {after}; expected flush() then close() "
         "on the first call and nothing on the second")


# ---------------------------------------------------------------- a real SummaryWriter

def _real_writer(mod, weights, coeffs, lrs, epochs):
    """Runs in the worker: the candidate's logger over a real SummaryWriter; the bytes of each event
    file as they are on disk when close() has returned."""
    import os

    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(log_dir="tb_run")
    logger = mod.MetricLogger(writer)
    opt = _optimizer(lrs)
    for k, (w, c) in enumerate(zip(weights, coeffs)):
        p = torch.nn.Parameter(w.clone())
        logger.log_train_step((p * c).sum(), opt)
        for after, epoch, values in epochs:
            if after == k:
                logger.log_epoch(epoch, *values)
    logger.close()
    files = {}
    for name in sorted(os.listdir("tb_run")):
        if "tfevents" in name:
            with open(os.path.join("tb_run", name), "rb") as fh:
                files[name] = fh.read()
    return files


def _read_events(raws):
    """Runs in the verifier: the scalars of the event files, read with tensorboard's EventAccumulator."""
    import os
    import tempfile

    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    with tempfile.TemporaryDirectory() as folder:
        for i, raw in enumerate(raws):
            with open(os.path.join(folder, f"events.out.tfevents.{i}.candidate"), "wb") as fh:
                fh.write(raw)
        acc = EventAccumulator(folder, size_guidance={"scalars": 0})
        acc.Reload()
        return {tag: [(int(e.step), float(e.value)) for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


@check("api")
def test_tensorboard_event_file(sub):
    pytest.importorskip("tensorboard")
    weights, coeffs = _inputs(3)
    lrs = [0.1, 0.02]
    epochs = [(1, 0, (1.5, 1.75, 0.25)), (2, 1, (1.25, 1.5, 0.5))]
    files = sub.probe(_real_writer, sub, weights, coeffs, lrs, epochs)
    assert isinstance(files, dict) and files, "no event file was written under the SummaryWriter's log_dir"
    scalars = sub.verify(_read_events, list(files.values()))
    expected = {tag: [] for tag in (TRAIN_TAGS, "LR/group0", "LR/group1", *EPOCH_TAGS)}
    for k, tags in enumerate(_expected_train(weights, coeffs, lrs, [1.0] * 3).values()):
        for tag, value in tags.items():
            expected[tag].append((k, value))
    for _, epoch, values in epochs:
        for tag, value in zip(EPOCH_TAGS, values):
            expected[tag].append((epoch, value))
    missing = sorted(set(expected) - set(scalars))
    assert not missing, f"the event file holds the scalar tags {sorted(scalars)}; missing {missing} (flushed and closed?)"
    for tag, want in expected.items():
        got = sorted(scalars[tag])
        assert [s for s, _ in got] == [s for s, _ in want] and all(
            math.isclose(g, w, rel_tol=1e-6, abs_tol=1e-7) for (_, g), (_, w) in zip(got, want)), \
            f"the event file holds {tag!r} as (step, value) {got}, expected {want}"
