"""Hidden checks for 58_early_stopping.

Scripted metric sequences go through `step` inside a probe, which records what each call returned
(stopping at the first True) and the `best_score` / `best_epoch` the instance shows afterwards.
The restore checks train a Linear-BatchNorm-ReLU-Linear model in place (torch's SGD with momentum,
train-mode forwards that move the BatchNorm running statistics) between `step` calls, snapshot its
state through torch's registries after each epoch, and compare what `restore_best` puts back with
the snapshot of the best epoch, bit for bit. The device checks walk what the instance keeps
(`__dict__`/`__slots__` read directly, through dicts, lists, tuples and modules).
"""
import math

import pytest
import torch

from grader.testing import check, requires_cuda

NAN = float("nan")
# name: (constructor kwargs, metrics, index of the call that must return True, best_score, best_epoch)
SCRIPTS = {
    "min_ties_count": ({"patience": 3}, [1.0, 0.9, 0.95, 0.9, 0.91, 0.5], 4, 0.9, 1),
    "max_accuracy": ({"patience": 2, "mode": "max"}, [0.5, 0.6, 0.55, 0.7, 0.7, 0.65, 0.9], 5, 0.7, 3),
    "min_delta": ({"patience": 3, "min_delta": 0.05}, [1.0, 0.97, 0.93, 0.90, 0.89, 0.885, 0.1], 5, 0.93, 2),
    "max_min_delta": ({"patience": 2, "min_delta": 0.1, "mode": "max"}, [0.2, 0.28, 0.35, 0.44, 0.43, 0.9], 4, 0.35, 2),
    "patience_one": ({"patience": 1}, [2.0, 1.0, 1.5, 0.1], 2, 1.0, 1),
    "defaults": ({}, [5.0, 4.0, 4.5, 4.2, 4.1, 4.0, 4.3, 0.1], 6, 4.0, 1),
}
NAN_SCRIPTS = {
    "nan_first": ({"patience": 2}, [NAN, 1.0, 0.9, 0.95, 0.96, 0.1], 4, 0.9, 2),
    "nan_later": ({"patience": 2}, [1.0, NAN, 0.9, NAN, NAN, 0.1], 4, 0.9, 2),
    "nan_max": ({"patience": 3, "mode": "max"}, [0.3, NAN, 0.4, NAN, 0.35, NAN, 0.9], 5, 0.4, 2),
}


def _mlp():
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU(), torch.nn.Linear(8, 2))


def _plain(value):
    if value is None or type(value) in (bool, int, float):
        return value
    return f"<{type(value).__name__}>"


def _script(mod, kwargs, metrics):
    """Runs in the worker: feed `metrics` to a fresh EarlyStopping, stop at the first True."""
    import torch

    es = mod.EarlyStopping(**kwargs)
    model = torch.nn.Linear(3, 2)
    returns, best = [], []
    for metric in metrics:
        with torch.no_grad():
            model.weight.add_(0.01)                       # the model changes between epochs
        out = es.step(metric, model)
        returns.append(_plain(out))
        best.append((_plain(getattr(es, "best_score", "<missing>")), _plain(getattr(es, "best_epoch", "<missing>"))))
        if out is True:
            break
    return returns, best


def _walk(root):
    """(path, device type, data_ptr) of every tensor reachable from `root`'s own attributes."""
    import torch

    from grader import probes

    found, seen, todo = [], set(), [("self", root)]
    while todo and len(seen) < 20000:
        path, obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, torch.Tensor):
            ptr = obj.untyped_storage().data_ptr() if obj.device.type != "meta" else -1
            found.append((path, obj.device.type, ptr))
        elif isinstance(obj, dict):
            todo += [(f"{path}[{k!r}]", v) for k, v in obj.items()]
        elif isinstance(obj, (list, tuple, set)):
            todo += [(f"{path}[{i}]", v) for i, v in enumerate(obj)]
        elif not isinstance(obj, (str, bytes, int, float, bool, type(None), type)) and not callable(obj) \
                or isinstance(obj, torch.nn.Module):
            todo += [(f"{path}.{k}", v) for k, v in probes.instance_attrs(obj).items()]
    return found


def _spec(metrics, device="cpu", seed=58):
    g = torch.Generator().manual_seed(seed)
    state = {"0.weight": torch.randn(8, 4, generator=g) * 0.5, "0.bias": torch.randn(8, generator=g) * 0.1,
             "1.weight": 1 + 0.1 * torch.randn(8, generator=g), "1.bias": 0.1 * torch.randn(8, generator=g),
             "1.running_mean": torch.zeros(8), "1.running_var": torch.ones(8), "1.num_batches_tracked": torch.tensor(0),
             "3.weight": torch.randn(2, 8, generator=g) * 0.5, "3.bias": torch.zeros(2)}
    batches = [(torch.randn(16, 4, generator=g) + 1, torch.randn(16, 2, generator=g)) for _ in range(len(metrics) + 1)]
    return {"state": state, "batches": batches, "metrics": metrics, "device": device}


def _train(mod, spec):
    """Runs in the worker: train in place between step calls, restore the best twice (training in
    place in between), and return plain data."""
    import torch

    from grader import probes

    device = spec["device"]
    model = _mlp()
    probes.load_state_dict(model, spec["state"])
    torch.nn.Module.to(model, device)
    params = list(probes.named_parameters(model).values())
    opt = torch.optim.SGD(params, lr=0.2, momentum=0.9)

    def train_once(x, y):
        torch.nn.Module.train(model, True)
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x.to(device)), y.to(device)).backward()
        opt.step()

    es = mod.EarlyStopping(patience=len(spec["metrics"]) + 1)
    snapshots, kept_devices = [], []
    for (x, y), metric in zip(spec["batches"], spec["metrics"]):
        train_once(x, y)
        snapshots.append({k: v.to("cpu") for k, v in probes.state_dict(model).items()})
        es.step(metric, model)
        kept_devices.append(sorted({d for _, d, _ in _walk(es)}))
    restored, same = [], []
    for x, y in (spec["batches"][-1], spec["batches"][0]):
        train_once(x, y)                                   # keeps changing the model in place
        es.restore_best(model)
        restored.append({k: v.to("cpu") for k, v in probes.state_dict(model).items()})
        same.append([a is b for a, b in zip(probes.named_parameters(model).values(), params)])
    return {"snapshots": snapshots, "restored": restored, "same": same, "kept_devices": kept_devices,
            "where": sorted({p.device.type for p in params}),
            "best_epoch": _plain(getattr(es, "best_epoch", None))}


def _best(metrics):
    return min(range(len(metrics)), key=lambda i: metrics[i])


def _compare(seen, metrics, keys, what):
    best = _best(metrics)
    want = seen["snapshots"][best]
    for r, state in enumerate(seen["restored"]):
        for key in keys:
            assert key in state and torch.equal(state[key], want[key]), \
                (f"{what}: after restore_best (call {r + 1}) {key} is not the state saved at the best epoch "
                 f"{best}; later in-place training leaked into the saved state, or it was not restored")
    assert all(all(s) for s in seen["same"]), \
        f"{what}: restore_best replaced the model's parameter objects; load the values into the model in place"


def _check_script(sub, kwargs, metrics, stop, best_score, best_epoch, what):
    returns, best = sub.probe(_script, sub, kwargs, metrics)
    want = [False] * stop + [True]
    kinds = sorted({type(r).__name__ for r in returns})
    assert kinds in (["bool"], []), f"{what}: step returned {returns}, expected Python bools"
    assert returns == want, f"{what}: step returned {returns}, expected True exactly at call {stop} (0-based)"
    score, epoch = best[-1]
    assert type(score) is float and math.isclose(score, best_score, rel_tol=0, abs_tol=1e-12), \
        f"{what}: best_score is {score!r} after the run, expected {best_score}"
    return best, epoch


@check("value", weight=3)
@pytest.mark.parametrize("name", list(SCRIPTS))
def test_stop_index(sub, name):
    kwargs, metrics, stop, best_score, best_epoch = SCRIPTS[name]
    _check_script(sub, kwargs, metrics, stop, best_score, best_epoch,
                  f"EarlyStopping({', '.join(f'{k}={v!r}' for k, v in kwargs.items())}) fed {metrics}")


@check("state", weight=2)
def test_restore_best_after_training(sub):
    metrics = [1.0, 0.6, 0.8, 0.7, 0.9]
    seen = sub.probe(_train, sub, _spec(metrics))
    keys = ["0.weight", "0.bias", "1.weight", "1.bias", "3.weight", "3.bias"]
    _compare(seen, metrics, keys, f"EarlyStopping over metrics {metrics} with the model trained in place each epoch")


@check("state")
def test_restores_buffers(sub):
    metrics = [1.0, 0.6, 0.8, 0.7, 0.9]
    seen = sub.probe(_train, sub, _spec(metrics))
    keys = ["1.running_mean", "1.running_var", "1.num_batches_tracked", "0.weight"]
    _compare(seen, metrics, keys, f"EarlyStopping over metrics {metrics} (BatchNorm statistics move each epoch)")


@check("value", weight=2)
@pytest.mark.parametrize("name", list(NAN_SCRIPTS))
def test_nan_is_not_improvement(sub, name):
    kwargs, metrics, stop, best_score, best_epoch = NAN_SCRIPTS[name]
    what = f"EarlyStopping({', '.join(f'{k}={v!r}' for k, v in kwargs.items())}) fed {metrics}"
    best, _ = _check_script(sub, kwargs, metrics, stop, best_score, best_epoch, what)
    scores = [s for s, _ in best]
    assert not any(isinstance(s, float) and math.isnan(s) for s in scores), f"{what}: best_score became NaN: {scores}"
    if math.isnan(metrics[0]):
        assert best[0] == (None, None), f"{what}: after a first NaN metric, (best_score, best_epoch) is {best[0]}, expected (None, None)"


@check("value")
def test_best_epoch(sub):
    kwargs, metrics = {"patience": 10}, [3.0, 2.0, 2.5, 1.5, 1.7, 1.6]
    returns, best = sub.probe(_script, sub, kwargs, metrics)
    what = f"EarlyStopping(patience=10) fed {metrics}"
    assert returns == [False] * len(metrics), f"{what}: step returned {returns}, expected False every time"
    epochs = [e for _, e in best]
    assert epochs == [0, 1, 1, 3, 3, 3], f"{what}: best_epoch after each call was {epochs}, expected [0, 1, 1, 3, 3, 3] (0-based call index)"
    assert all(type(e) is int for e in epochs), f"{what}: best_epoch must be a Python int"
    assert [s for s, _ in best][-1] == 1.5, f"{what}: best_score is {best[-1][0]!r}, expected 1.5"


def _off_device(mod, state):
    """CPU fallback of the CUDA check. (1) On a CPU model: step/restore behave, and every tensor the
    instance keeps is on the CPU in storage of its own. (2) On a meta-device model (standing in for
    an accelerator: its tensors have no data), nothing the instance keeps after step() is on meta;
    copying a meta tensor to the CPU raises, which is expected here."""
    import torch

    from grader import probes

    model = _mlp()
    probes.load_state_dict(model, state)
    es = mod.EarlyStopping(patience=2)
    returns = [_plain(es.step(1.0, model))]
    best = {k: v.clone() for k, v in probes.state_dict(model).items()}
    with torch.no_grad():
        for p in probes.named_parameters(model).values():
            p.mul_(3)
    returns.append(_plain(es.step(2.0, model)))
    returns.append(_plain(es.step(3.0, model)))
    model_ptrs = {v.untyped_storage().data_ptr() for v in [*probes.named_parameters(model).values(),
                                                          *[b for _, m in probes.modules(model) for b in m._buffers.values() if b is not None]]}
    kept = _walk(es)
    es.restore_best(model)
    restored = all(torch.equal(v, best[k]) for k, v in probes.state_dict(model).items())
    cpu = {"returns": returns, "restored": restored, "devices": sorted({d for _, d, _ in kept}),
           "shared": [p for p, _, ptr in kept if ptr in model_ptrs]}
    meta = _mlp()
    torch.nn.Module.to(meta, "meta")
    es2 = mod.EarlyStopping(patience=2)
    error = None
    try:
        es2.step(1.0, meta)
    except NotImplementedError as exc:
        if "meta" not in str(exc):
            raise
        error = str(exc)[:200]
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"[:200]
    return cpu, {"error": error, "meta": [p for p, d, _ in _walk(es2) if d == "meta"]}


@check("device")
def test_best_copy_kept_off_model_device(sub):
    cpu, meta = sub.probe(_off_device, sub, _spec([1.0])["state"])
    what = "EarlyStopping(patience=2) fed 1.0, 2.0, 3.0"
    assert cpu["returns"] == [False, False, True], f"{what}: step returned {cpu['returns']}, expected [False, False, True]"
    assert cpu["restored"], f"{what}: restore_best did not bring back the state of the first call"
    assert cpu["devices"] in ([], ["cpu"]), f"{what}: the instance keeps tensors on {cpu['devices']}"
    assert not cpu["shared"], f"{what}: {cpu['shared'][:3]} share storage with the model's own tensors (keep copies)"
    assert not meta["meta"], (f"EarlyStopping.step on a model on the meta device kept {meta['meta'][:3]} on the model's "
                              "device; the best state must be copied to the CPU")


@requires_cuda
@check("device")
def test_cuda_copy_on_cpu(sub):
    metrics = [1.0, 0.6, 0.8]
    seen = sub.probe(_train, sub, _spec(metrics, device="cuda"))
    what = "EarlyStopping on a CUDA model"
    assert all("cuda" not in d for d in seen["kept_devices"]), \
        f"{what}: the instance keeps tensors on {seen['kept_devices']}; keep the best state on the CPU"
    assert seen["where"] == ["cuda"], f"{what}: after restore_best the parameters are on {seen['where']}, expected cuda"
    _compare(seen, metrics, list(seen["snapshots"][0]), what)
