"""Hidden checks for 60_checkpoint_resume.

The training run is tiny: a Linear-ReLU-Dropout-Linear net, AdamW, StepLR(step_size=3) (the lr
halves before epoch 3; with step_size=1 a fresh StepLR would continue the same schedule from the
restored optimizer's lr), 8 fixed samples in 2 minibatches of 4, 4 epochs (8 optimizer steps).
The straight run is computed in the judge; the interrupted one runs in the worker: 2 epochs, the candidate's
`save_checkpoint`, the global RNG reseeded and a brand-new model/optimizer/scheduler built with
other initial weights (as a fresh process would), the candidate's `load_checkpoint`, then the
remaining epochs from the epoch it returns. Every tensor is compared with `torch.equal`.

What the candidate saved is read back with `sub.read_file` and opened only in the verifier (a worker
that never imports the submission) with `torch.load(weights_only=True)`. The files are the
candidate's own (the layout is theirs except for the `'extra'` key), so no check writes one.
"""
import torch
import torch.nn.functional as F
from torch import nn

from grader.testing import check, requires_cuda

EPOCHS, SPLIT = 4, 2


def _setup(seed):
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 1))
    opt = torch.optim.AdamW(model.parameters(), lr=0.05, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    return model, opt, sched


def _epoch(model, opt, sched, x, y):
    """One epoch in fixed order (2 minibatches); dropout draws from the global CPU RNG."""
    model.train()
    losses = []
    for i in range(0, len(x), 4):
        opt.zero_grad()
        loss = F.mse_loss(model(x[i:i + 4]), y[i:i + 4])
        loss.backward()
        opt.step()
        losses.append(loss.detach().clone())
    sched.step()
    return losses


def _data():
    return torch.randn(8, 4), torch.randn(8, 1)


def _straight(x, y):
    """Judge side: the uninterrupted run."""
    model, opt, sched = _setup(3)
    losses = []
    for _ in range(EPOCHS):
        losses += _epoch(model, opt, sched, x, y)
    return losses, {k: v.detach().clone() for k, v in model.state_dict().items()}


def _resume(mod, x, y):
    """Runs in the worker: 2 epochs, save, a fresh model/optimizer/scheduler and RNG, load, the rest."""
    from grader import probes

    model, opt, sched = _setup(3)
    losses = []
    for _ in range(SPLIT):
        losses += _epoch(model, opt, sched, x, y)
    mod.save_checkpoint("ckpt.pt", model, opt, sched, SPLIT - 1)
    del model, opt, sched
    model, opt, sched = _setup(11)                     # other initial weights, another RNG stream
    torch.manual_seed(1234)
    start = mod.load_checkpoint("ckpt.pt", model, opt, sched)
    seen = {"start": start if type(start) is int else repr(start)[:80]}
    if type(start) is not int or not 0 <= start <= EPOCHS:
        return seen
    for _ in range(start, EPOCHS):
        losses += _epoch(model, opt, sched, x, y)
    seen.update(losses=losses, state=probes.state_dict(model))
    return seen


@check("state", weight=3)
def test_resume_bit_identical(sub):
    x, y = _data()
    seen = sub.probe(_resume, sub, x, y)
    assert seen["start"] == SPLIT, \
        f"load_checkpoint of the checkpoint saved at epoch {SPLIT - 1} returned {seen['start']!r}, expected {SPLIT}"
    losses, state = _straight(x, y)
    got = seen["losses"]
    assert len(got) == len(losses), f"the resumed run took {len(got)} steps in all, expected {len(losses)}"
    for i, (a, b) in enumerate(zip(got, losses)):
        assert torch.equal(a, b), \
            (f"step {i} (epoch {i // 2}) of the resumed run has loss {a.item():.8g}, the uninterrupted run "
             f"{b.item():.8g}: something of the training state (weights, AdamW moments and step, the "
             "scheduler's position, the RNG that draws the dropout masks) was not restored exactly")
    for key, tensor in state.items():
        assert torch.equal(seen["state"][key], tensor), f"after the resumed run {key!r} differs from the uninterrupted run's"


# ---------------------------------------------------------------- the file

def _lambda_scheduler(opt):
    return torch.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 0.9 ** epoch)


def _save(mod, scheduler_kind, epoch, extra, path="ckpt.pt"):
    """Runs in the worker: a few training steps, then the candidate's save_checkpoint."""
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    model, opt, sched = _setup(5)
    if scheduler_kind == "lambdalr":
        sched = _lambda_scheduler(opt)
    elif scheduler_kind == "none":
        sched = None
    model.train()
    for _ in range(2):
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()
        if sched is not None:
            sched.step()
    if extra is None:
        mod.save_checkpoint(path, model, opt, sched, epoch)
    else:
        mod.save_checkpoint(path, model, opt, sched, epoch, extra)
    return True


def _save_each(mod, kinds):
    """Runs in the worker: one checkpoint per scheduler kind, in ckpt_<kind>.pt."""
    for kind in kinds:
        _save(mod, kind, 3, {"best": 0.5}, f"ckpt_{kind}.pt")
    return True


def _open_each(raws):
    """Runs in the verifier: `_open` of each file."""
    return [_open(raw) for raw in raws]


def _open(raw):
    """Runs in the verifier: torch.load(weights_only=True) of the candidate's file."""
    import io

    import torch

    try:
        obj = torch.load(io.BytesIO(raw), weights_only=True, map_location="cpu")
    except Exception as exc:  # noqa: BLE001 - reported, the check fails on it
        return {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}
    seen = {"error": None, "type": type(obj).__name__, "is_dict": isinstance(obj, dict),  # an OrderedDict is a dict
            "has_extra": isinstance(obj, dict) and "extra" in obj}
    if seen["has_extra"]:
        seen["extra"] = obj["extra"]
    return seen


@check("state")
def test_file_loads_weights_only(sub):
    kinds = ["steplr", "lambdalr", "none"]
    sub.probe(_save_each, sub, kinds)
    reports = sub.verify(_open_each, [sub.read_file(f"ckpt_{kind}.pt") for kind in kinds])
    for scheduler, seen in zip(kinds, reports):
        assert seen["error"] is None, \
            (f"torch.load(path, weights_only=True) of the checkpoint (scheduler: {scheduler}) failed in a process "
             f"that never imported your code: {seen['error']}")
        assert seen["is_dict"], f"the checkpoint (scheduler: {scheduler}) holds a {seen['type']}, expected a dict"


EXTRA = {"best_val": 0.25, "run": "exp-7", "patience_left": 3, "flags": [True, False],
         "history": (1.0, 0.5), "ema": torch.tensor([0.5, -1.0, 2.0]), "nested": {"seed": 11, "ids": torch.arange(4)}}


def _equal(a, b):
    if isinstance(b, torch.Tensor):
        return isinstance(a, torch.Tensor) and a.dtype == b.dtype and torch.equal(a, b)
    if isinstance(b, dict):
        return isinstance(a, dict) and a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in b)
    if isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_equal(p, q) for p, q in zip(a, b))
    return type(a) is type(b) and a == b


@check("state")
def test_extra_round_trip(sub):
    sub.probe(_save, sub, "steplr", 2, EXTRA)
    seen = sub.verify(_open, sub.read_file("ckpt.pt"))
    assert seen["error"] is None, f"torch.load(path, weights_only=True) of the checkpoint failed: {seen['error']}"
    assert seen["has_extra"], f"the checkpoint ({seen['type']}) has no 'extra' key"
    assert _equal(seen["extra"], EXTRA), f"checkpoint['extra'] is {seen['extra']!r}, expected {EXTRA!r}"


# ---------------------------------------------------------------- load_checkpoint

def _next_epochs(mod, epochs):
    """Runs in the worker: what load_checkpoint returns for checkpoints saved at each epoch."""
    return [_load_only(mod, epoch, True)["start"] for epoch in epochs]


@check("value")
def test_returns_next_epoch(sub):
    epochs = [0, 6]
    for epoch, start in zip(epochs, sub.probe(_next_epochs, sub, epochs)):
        assert start == epoch + 1, \
            f"load_checkpoint of a checkpoint saved with epoch={epoch} returned {start!r}, expected the int {epoch + 1}"


def _load_only(mod, epoch, with_optimizer):
    """Runs in the worker: save a trained model at `epoch`, then load it into a fresh one (with or
    without the optimizer and scheduler); the saved and the loaded weights come back."""
    from grader import probes

    torch.manual_seed(4)
    model, opt, sched = _setup(5)
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    for _ in range(2):
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()
        sched.step()
    mod.save_checkpoint("ckpt.pt", model, opt, sched, epoch)
    saved = probes.state_dict(model)
    fresh, fresh_opt, fresh_sched = _setup(9)
    if with_optimizer:
        start = mod.load_checkpoint("ckpt.pt", fresh, fresh_opt, fresh_sched)
    else:
        start = mod.load_checkpoint("ckpt.pt", fresh)
    return {"start": start if type(start) is int else repr(start)[:80], "saved": saved,
            "loaded": probes.state_dict(fresh)}


@check("state")
def test_optimizer_none(sub):
    seen = sub.probe(_load_only, sub, 4, False)
    assert seen["start"] == 5, f"load_checkpoint(path, model) returned {seen['start']!r}, expected 5"
    assert sorted(seen["loaded"]) == sorted(seen["saved"]), f"the loaded model has keys {sorted(seen['loaded'])}"
    for key, tensor in seen["saved"].items():
        assert torch.equal(seen["loaded"][key], tensor), f"load_checkpoint(path, model) did not restore {key!r}"


class _ArbitraryCall:
    """Pickles as a call of torch.full: only an unrestricted unpickler runs it."""

    def __reduce__(self):
        return (torch.full, ((3,), 7.0))


def _refuses(mod):
    """Runs in the worker: a good checkpoint must load; one whose 'extra' unpickles as a function
    call must make load_checkpoint raise."""
    model, opt, sched = _setup(5)
    mod.save_checkpoint("good.pt", model, opt, sched, 1, {"note": "ok"})
    mod.save_checkpoint("bad.pt", model, opt, sched, 1, {"note": _ArbitraryCall()})
    fresh, fresh_opt, fresh_sched = _setup(6)
    try:
        start = mod.load_checkpoint("good.pt", fresh, fresh_opt, fresh_sched)
    except NotImplementedError:
        raise
    except Exception as exc:  # noqa: BLE001 - reported, the check fails on it
        return f"the good checkpoint did not load: {type(exc).__name__}: {str(exc)[:200]}"
    if start != 2:
        return f"the good checkpoint loaded but load_checkpoint returned {start!r}, expected 2"
    try:
        mod.load_checkpoint("bad.pt", fresh, fresh_opt, fresh_sched)
    except NotImplementedError:
        raise
    except Exception:  # noqa: BLE001 - raising is the expected outcome
        return None
    return "load_checkpoint loaded a file whose unpickling calls a function: open it with torch.load(..., weights_only=True)"


@check("state")
def test_refuses_unsafe_file(sub):
    problem = sub.probe(_refuses, sub)
    assert problem is None, problem


# ---------------------------------------------------------------- devices

def _map_location(mod, where):
    """Runs in the worker: what map_location load_checkpoint hands torch.load. The load itself
    goes to the CPU (torch.load replaced for the call), so a CUDA target needs no GPU."""
    from grader import probes

    model, opt, sched = _setup(5)
    mod.save_checkpoint("ckpt.pt", model, opt, sched, 1)
    real = torch.load
    seen = []

    def fake_load(f, map_location=None, *args, **kwargs):
        try:
            seen.append(str(torch.device(map_location)) if map_location is not None else None)
        except Exception:  # noqa: BLE001 - not a device: its type is recorded
            seen.append(f"<{type(map_location).__name__}>")
        return real(f, "cpu", *args, **kwargs)

    fresh, fresh_opt, fresh_sched = _setup(6)
    with probes.substitute("torch.load", fake_load, module=mod), \
         probes.substitute("torch.serialization.load", fake_load, module=mod):
        start = mod.load_checkpoint("ckpt.pt", fresh, fresh_opt, fresh_sched, map_location=where)
    return {"start": start if type(start) is int else repr(start)[:80], "map_locations": seen}


def _map_locations(mod, wheres):
    """Runs in the worker: `_map_location` for each target."""
    return [_map_location(mod, where) for where in wheres]


@check("device")
def test_map_location_passed(sub):
    wheres = ["cuda:0", torch.device("cuda", 0), "cpu"]
    for where, seen in zip(wheres, sub.probe(_map_locations, sub, wheres)):
        assert seen["start"] == 2, f"load_checkpoint(..., map_location={where!r}) returned {seen['start']!r}, expected 2"
        want = str(torch.device(where))
        assert seen["map_locations"] and all(m == want for m in seen["map_locations"]), \
            (f"load_checkpoint(..., map_location={where!r}) called torch.load with map_location "
             f"{seen['map_locations']}, expected {want!r}")


_CPU_ONLY_SCRIPT = r"""
import importlib.util, json, sys
import torch
spec = importlib.util.spec_from_file_location("candidate_checkpoint", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
torch.manual_seed(0)
model = torch.nn.Linear(4, 3)
opt = torch.optim.AdamW(model.parameters(), lr=0.1)
start = mod.load_checkpoint(sys.argv[2], model, opt, None, map_location="cpu")
state = {"model": {k: v.detach().clone() for k, v in torch.nn.Module.state_dict(model).items()},
         "exp_avg": [opt.state[p]["exp_avg"].detach().clone() for p in model.parameters() if "exp_avg" in opt.state[p]]}
torch.save(state, sys.argv[3])
print(json.dumps({"cuda": torch.cuda.is_available(), "start": start if type(start) is int else repr(start)}))
"""


def _cuda_save(mod):
    """Runs in the worker: a CUDA Linear trained 2 AdamW steps, saved through the candidate."""
    from grader import probes

    torch.manual_seed(2)
    model = torch.nn.Linear(4, 3).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=0.1)
    x, y = torch.randn(8, 4, device="cuda"), torch.randn(8, 3, device="cuda")
    for _ in range(2):
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()
    rng = torch.cuda.get_rng_state()                  # saving draws nothing: the state the file must hold
    mod.save_checkpoint("cuda.pt", model, opt, None, 5)
    return {"model": {k: v.cpu() for k, v in probes.state_dict(model).items()},
            "exp_avg": [opt.state[p]["exp_avg"].detach().cpu() for p in model.parameters()], "cuda_rng": rng}


def _load_without_cuda(mod, path):
    """Runs in the worker: load_checkpoint in a fresh Python with CUDA_VISIBLE_DEVICES="" (it
    imports the submission itself, after the variable is set)."""
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    proc = subprocess.run([sys.executable, "-c", _CPU_ONLY_SCRIPT, mod.__file__, path, "cpu_state.pt"],
                          env=env, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        return {"error": proc.stderr[-600:]}
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    seen["state"] = torch.load("cpu_state.pt", weights_only=True)
    return seen


def _load_on_cuda(mod, path, where):
    """Runs in the worker: load into a fresh CUDA model and AdamW."""
    from grader import probes

    torch.manual_seed(0)
    model = torch.nn.Linear(4, 3).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=0.1)
    torch.cuda.manual_seed_all(987)                    # another CUDA RNG state, as in a new process
    start = mod.load_checkpoint(path, model, opt, None, map_location=where)
    state = [opt.state[p] for p in model.parameters()]
    return {"start": start if type(start) is int else repr(start)[:80], "cuda_rng": torch.cuda.get_rng_state(),
            "model": {k: v.cpu() for k, v in probes.state_dict(model).items()},
            "param_devices": sorted({p.device.type for p in model.parameters()}),
            "moment_devices": sorted({s[k].device.type for s in state for k in ("exp_avg", "exp_avg_sq") if k in s}),
            "exp_avg": [s["exp_avg"].detach().cpu() for s in state if "exp_avg" in s]}


@requires_cuda
@check("device", timeout_s=120)
def test_cuda_checkpoint(sub):
    saved = sub.probe(_cuda_save, sub)
    cpu = sub.probe(_load_without_cuda, sub, "cuda.pt")
    assert "error" not in cpu, f"loading the CUDA checkpoint with map_location='cpu' where CUDA is hidden failed: {cpu['error']}"
    assert cpu["cuda"] is False and cpu["start"] == 6, f"CPU-only load: {cpu['cuda']=}, returned {cpu['start']!r}, expected 6"
    for key, tensor in saved["model"].items():
        assert torch.equal(cpu["state"]["model"][key], tensor), f"CPU-only load: {key!r} differs from the saved one"
    assert len(cpu["state"]["exp_avg"]) == 2 and all(
        torch.equal(a, b) for a, b in zip(cpu["state"]["exp_avg"], saved["exp_avg"])), "CPU-only load: exp_avg not restored"
    for where in ("cpu", "cuda"):
        seen = sub.probe(_load_on_cuda, sub, "cuda.pt", where)
        assert seen["start"] == 6, f"map_location={where!r}: load_checkpoint returned {seen['start']!r}, expected 6"
        assert seen["param_devices"] == ["cuda"] and seen["moment_devices"] == ["cuda"], \
            (f"map_location={where!r} into a CUDA model: parameters on {seen['param_devices']}, AdamW exp_avg/exp_avg_sq "
             f"on {seen['moment_devices']}, expected all on cuda")
        for key, tensor in saved["model"].items():
            assert torch.equal(seen["model"][key], tensor), f"map_location={where!r}: {key!r} differs from the saved one"
        assert all(torch.equal(a, b) for a, b in zip(seen["exp_avg"], saved["exp_avg"])), \
            f"map_location={where!r}: exp_avg differs from the saved one"
        assert torch.equal(seen["cuda_rng"], saved["cuda_rng"]), \
            f"map_location={where!r}: the CUDA RNG state after load_checkpoint is not the one saved"
