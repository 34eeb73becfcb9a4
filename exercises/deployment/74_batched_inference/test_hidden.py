"""Hidden checks for 74_batched_inference.

The served model is built inside the probe: a module of the probe's own class wrapping
Linear-BatchNorm-ReLU-Dropout-Linear, with weights and BatchNorm running statistics the judge
made and sent. Its `forward` (the probe's code, not the candidate's) logs every call: batch
size, device, `torch.is_inference_mode_enabled()`, grad mode and every submodule's training flag.
A forward pre-hook and a forward hook, registered through `nn.Module`'s own methods, log grad mode
and the batch size from outside the model. Autograd is graded by behaviour (grad mode off in every
forward, outputs without history, no `.grad` filled): `torch.no_grad()` and
`torch.inference_mode()` both pass; the preference between them is the interviewer's guide's. The expected outputs are computed in the judge, one request at a time
through the same Sequential in eval mode.

The device checks count host-to-device copies by substituting `Tensor.to`, `Tensor.cuda` and
`Tensor.copy_` with wrappers that call torch's own method and log a copy whenever a CPU tensor
lands on the target device; forwards are logged into the same list, so each forward's copies are
the ones since the previous forward.
"""
import math

import pytest
import torch

from grader.testing import assert_close, check, requires_cuda

N_FEATURES, N_CLASSES = 6, 3


def _net():
    return torch.nn.Sequential(torch.nn.Linear(N_FEATURES, 16), torch.nn.BatchNorm1d(16), torch.nn.ReLU(),
                               torch.nn.Dropout(0.5), torch.nn.Linear(16, N_CLASSES))


def _trained_state():
    """A Sequential whose BatchNorm running statistics are far from (0, 1): batch statistics,
    or a BatchNorm left in train mode, give visibly other outputs."""
    net = _net()
    with torch.no_grad():
        for _ in range(20):
            net(torch.randn(32, N_FEATURES) * 3 + 2)
    return net, {k: v.clone() for k, v in net.state_dict().items()}


def _expected(net, requests):
    net.eval()
    with torch.no_grad():
        return [net(r[None])[0] for r in requests]


def _served(state, log):
    """Runs in the worker: the model the candidate serves, logging each forward into `log`."""
    from torch import nn

    class Served(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(state["0.weight"].shape[1], 16), nn.BatchNorm1d(16), nn.ReLU(),
                                     nn.Dropout(0.5), nn.Linear(16, state["4.weight"].shape[0]))

        def forward(self, x):
            log.append({"event": "forward", "n": int(x.shape[0]) if x.dim() else -1, "device": x.device.type,
                        "inference": torch.is_inference_mode_enabled(), "grad": torch.is_grad_enabled(),
                        "training": [m.training for _, m in nn.Module.named_modules(self)]})
            return self.net(x)

    model = Served()
    nn.Module.load_state_dict(model.net, state)
    return model


# The modes a model is given in: every submodule's flag is set, then restored exactly by the candidate.
MODES = {
    "train": lambda model: torch.nn.Module.train(model, True),
    "eval": lambda model: torch.nn.Module.train(model, False),
    "train, BatchNorm frozen in eval": lambda model: (torch.nn.Module.train(model, True),
                                                      torch.nn.Module.train(model.net[1], False)),
    "eval, Dropout left in train": lambda model: (torch.nn.Module.train(model, False),
                                                  torch.nn.Module.train(model.net[3], True)),
}


def _serve(mod, state, runs):
    """Runs in the worker. Each run: {"requests", "max_batch_size", "mode"} served on the CPU.
    Returns per run: the outputs (or a description of what came back), what each output's
    requires_grad and grad_fn say inside the worker, the forward log, the hooks' logs, the training
    flags of every submodule before and after the call, whether the parameters still require grad
    and whether any gained a .grad."""
    from torch import nn

    seen = []
    for run in runs:
        log, pre, post = [], [], []
        model = _served(state, log)
        MODES[run["mode"]](model)
        before = [(name, m.training) for name, m in nn.Module.named_modules(model)]
        handles = [nn.Module.register_forward_pre_hook(model, lambda m, args: pre.append(torch.is_grad_enabled())),
                   nn.Module.register_forward_hook(
                       model, lambda m, args, out: post.append(int(args[0].shape[0]) if args and args[0].dim() else -1))]
        try:
            outs = mod.batched_predict(model, run["requests"], run["max_batch_size"])
        finally:
            for handle in handles:
                handle.remove()
        if isinstance(outs, list) and all(type(o) is torch.Tensor for o in outs):
            answer = [o.detach().clone() for o in outs]
            grads = [bool(o.requires_grad) for o in outs]
            graphs = [o.grad_fn is not None for o in outs]
        else:
            answer, grads, graphs = f"<{type(outs).__name__}>", None, None
        seen.append({"outs": answer, "requires_grad": grads, "graphs": graphs, "log": log, "pre": pre, "post": post,
                     "before": before, "after": [(name, m.training) for name, m in nn.Module.named_modules(model)],
                     "params_require_grad": all(p.requires_grad for p in nn.Module.parameters(model)),
                     "grads_filled": [n for n, p in nn.Module.named_parameters(model) if p.grad is not None]})
    return seen


def _requests(n, seed):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(N_FEATURES, generator=g) * 2 + 1 for _ in range(n)]


# (number of requests, max_batch_size)
SHAPES = [(11, 4), (3, 1), (5, 16), (8, 8), (1, 4)]


def _run_all(sub, mode="train", shapes=SHAPES):
    net, state = _trained_state()
    runs = [{"requests": _requests(n, k), "max_batch_size": b, "mode": mode} for k, (n, b) in enumerate(shapes)]
    seen = sub.probe(_serve, sub, state, runs)
    return [(run, got, _expected(net, run["requests"])) for run, got in zip(runs, seen)]


def _outputs_ok(run, got, want):
    """The answer first: a list of (C,) CPU tensors equal to the per-request eval outputs, in order."""
    n, b = len(run["requests"]), run["max_batch_size"]
    outs = got["outs"]
    assert isinstance(outs, list), f"batched_predict returned {outs}: a list of tensors, one per request, expected"
    assert len(outs) == n, f"{n} requests (max_batch_size={b}) gave {len(outs)} outputs, expected {n}"
    for j, (o, w) in enumerate(zip(outs, want)):
        what = f"the output of request {j} of {n} (max_batch_size={b})"
        if o.shape == w.shape and j + 1 < n and torch.allclose(o, want[j + 1], atol=1e-5) and not torch.allclose(o, w, atol=1e-5):
            raise AssertionError(f"{what} is the output of request {j + 1}: keep the request order")
        assert_close(o, w, atol=1e-6, rtol=1e-5, what=what)


@check("value", weight=2)
def test_outputs_match_per_request_eval(sub):
    for run, got, want in _run_all(sub):
        _outputs_ok(run, got, want)
        assert all(entry["training"] == [False] * len(entry["training"]) for entry in got["log"]), \
            "the model ran with a submodule in training mode: put the whole model in eval mode"


@check("perf")
def test_forward_count_and_batch_sizes(sub):
    for run, got, want in _run_all(sub):
        _outputs_ok(run, got, want)
        n, b = len(run["requests"]), run["max_batch_size"]
        sizes = [entry["n"] for entry in got["log"]]
        assert got["post"] == sizes, \
            (f"the model's forward ran on batches {sizes} but its forward hooks saw {got['post']}: "
             "call the model (model(batch)), not model.forward")
        assert len(sizes) == math.ceil(n / b), \
            f"{n} requests with max_batch_size={b} took {len(sizes)} forwards (batch sizes {sizes}), expected {math.ceil(n / b)}"
        assert max(sizes) <= b and sum(sizes) == n, \
            f"{n} requests with max_batch_size={b} ran as batches of {sizes}: at most {b} each, every request once"


@check("grad")
def test_no_autograd_in_forward(sub):
    for run, got, want in _run_all(sub, shapes=SHAPES[:2]):
        _outputs_ok(run, got, want)
        assert got["pre"], "the model's forward pre-hooks never fired: call the model (model(batch))"
        assert not any(got["pre"]) and not any(entry["grad"] for entry in got["log"]), \
            ("the model ran with gradient recording on (a forward pre-hook saw torch.is_grad_enabled() True): "
             "every forward recorded an autograd graph, even if the outputs were detached afterwards")


@check("grad")
def test_outputs_no_grad(sub):
    for run, got, want in _run_all(sub, shapes=SHAPES[:2]):
        _outputs_ok(run, got, want)
        assert got["params_require_grad"], "batched_predict changed the parameters' requires_grad"
        assert got["requires_grad"] == [False] * len(got["requires_grad"]) and not any(got["graphs"]), \
            "some outputs require grad or carry an autograd graph (grad_fn): no autograd history while serving"
        assert not got["grads_filled"], f"serving filled the .grad of {got['grads_filled']}"


@check("mode")
@pytest.mark.parametrize("mode", list(MODES), ids=["train_mode", "eval_mode", "frozen_batchnorm", "dropout_in_eval"])
def test_mode_restored(sub, mode):
    for run, got, want in _run_all(sub, mode=mode, shapes=SHAPES[:1]):
        _outputs_ok(run, got, want)
        changed = [f"{name or '<model>'}: {before} -> {after}"
                   for (name, before), (_, after) in zip(got["before"], got["after"]) if before != after]
        assert not changed, (f"the model was given in mode '{mode}'; after batched_predict these training flags "
                             f"changed: {changed} (restore the mode it had, submodule by submodule)")


@check("value")
def test_empty_and_mismatched(sub):
    net, state = _trained_state()

    def edge(mod, state, good, bad):
        model = _served(state, [])
        torch.nn.Module.eval(model)
        empty = mod.batched_predict(model, [], 4)
        results = {"empty": empty if isinstance(empty, list) and not empty else f"<{type(empty).__name__} {empty!r}>"[:80]}
        outs = mod.batched_predict(model, good, 2)
        results["good"] = [o.clone() for o in outs] if isinstance(outs, list) and all(type(o) is torch.Tensor for o in outs) else None
        for name, requests in bad.items():
            try:
                mod.batched_predict(model, requests, 2)
                results[name] = "returned"
            except ValueError:
                results[name] = "ValueError"
            except NotImplementedError:
                raise
            except Exception as exc:  # noqa: BLE001 - reported to the judge
                results[name] = type(exc).__name__
        return results

    good = _requests(5, 7)
    wide = torch.randn(N_FEATURES + 1)
    bad = {"first_batch": [good[0], wide, good[1]], "later_batch": good[:4] + [wide] + good[4:],
           "first_request": [wide] + good[:3], "all_two_dimensional": [r[None] for r in good[:3]]}
    results = sub.probe(edge, sub, state, good, bad)
    assert results["good"] is not None, "batched_predict must return a list of tensors"
    want = _expected(net, good)
    assert len(results["good"]) == len(want), f"5 requests gave {len(results['good'])} outputs"
    for j, (o, w) in enumerate(zip(results["good"], want)):
        assert_close(o, w, atol=1e-6, rtol=1e-5, what=f"the output of request {j} of 5 (max_batch_size=2)")
    assert results["empty"] == [], f"batched_predict(model, [], 4) returned {results['empty']}: an empty list expected"
    for name, outcome in results.items():
        if name in bad:
            what = ("(1, F) requests, not 1-D" if name == "all_two_dimensional"
                    else f"a request with another feature size ({name.replace('_', ' ')})")
            assert outcome == "ValueError", f"{what}: batched_predict gave {outcome}, raise ValueError"


def _copies(mod, state, requests, max_batch_size, device):
    """Runs in the worker: serve on `device` with the model there, logging host-to-device copies
    (Tensor.to/cuda/copy_ from a CPU tensor to a `device` tensor) and forwards into one list. On
    the meta device, moving an output back to the CPU raises ("Cannot copy out of meta tensor"):
    the log up to there is kept and the error reported."""
    from grader import probes

    log = []
    model = _served(state, log)
    torch.nn.Module.to(model, device)
    target = torch.device(device).type
    original = {"to": torch.Tensor.to, "cuda": torch.Tensor.cuda, "copy_": torch.Tensor.copy_}

    def moved(src, dst, how):
        if isinstance(dst, torch.Tensor) and src.device.type == "cpu" and dst.device.type == target:
            log.append({"event": "copy", "how": how})

    def to(self, *args, **kwargs):
        out = original["to"](self, *args, **kwargs)
        moved(self, out, "to")
        return out

    def cuda(self, *args, **kwargs):
        out = original["cuda"](self, *args, **kwargs)
        moved(self, out, "cuda")
        return out

    def copy_(self, src, *args, **kwargs):
        out = original["copy_"](self, src, *args, **kwargs)
        if isinstance(src, torch.Tensor):
            moved(src, self, "copy_")
        return out

    error = None
    outs = None
    with probes.substitute("torch.Tensor.to", to, module=mod), probes.substitute("torch.Tensor.cuda", cuda, module=mod), \
            probes.substitute("torch.Tensor.copy_", copy_, module=mod):
        try:
            outs = mod.batched_predict(model, requests, max_batch_size, device)
        except Exception as exc:  # noqa: BLE001 - the meta device ends the run wherever data is read
            # ("Cannot copy out of meta tensor", ".item() cannot be called on meta tensors"): what
            # the meta stand-in cannot model; the log up to there is what this check grades
            if target != "meta" or "meta" not in str(exc).lower():
                raise
            error = "meta"
    if isinstance(outs, list) and all(type(o) is torch.Tensor for o in outs):
        devices = [o.device.type for o in outs]
        outs = [o.clone() for o in outs] if target != "meta" else None
    else:
        devices = None
    return {"log": [{k: v for k, v in e.items() if k in ("event", "n", "device", "how")} for e in log],
            "error": error, "devices": devices, "outs": outs, "returned": type(outs).__name__}


def _one_copy_per_forward(seen, n, b):
    forwards = [e for e in seen["log"] if e["event"] == "forward"]
    assert forwards, f"no forward of the model ran on the device ({seen['log'][:5]})"
    assert all(e["device"] != "cpu" for e in forwards), "the model ran on CPU batches: move each batch to the device"
    copies, per_forward = 0, []
    for e in seen["log"]:
        if e["event"] == "copy":
            copies += 1
        else:
            per_forward.append(copies)
            copies = 0
    assert max(per_forward) <= 1, \
        (f"host-to-device copies before each forward: {per_forward} (max_batch_size={b}, {n} requests): "
         "at most one copy per batch (the whole batch at once), not one per request")
    return forwards


@check("device")
def test_one_copy_per_batch_meta(sub):
    net, state = _trained_state()
    requests = _requests(7, 3)
    seen = sub.probe(_copies, sub, state, requests, 3, "cpu")
    assert seen["outs"] is not None, "batched_predict must return a list of tensors"
    for j, (o, w) in enumerate(zip(seen["outs"], _expected(net, requests))):
        assert_close(o, w, atol=1e-6, rtol=1e-5, what=f"the output of request {j} on device='cpu'")
    seen = sub.probe(_copies, sub, state, requests, 3, "meta")
    if seen["error"] is None:
        assert seen["devices"] is not None, f"batched_predict returned a {seen['returned']} with device='meta'"
        assert set(seen["devices"]) == {"cpu"}, \
            f"with the model on device 'meta' the outputs came back on {sorted(set(seen['devices']))}: return them on CPU"
    _one_copy_per_forward(seen, 7, 3)


@requires_cuda
@check("device")
def test_cuda_one_copy_per_batch(sub):
    net, state = _trained_state()
    requests = _requests(10, 4)
    seen = sub.probe(_copies, sub, state, requests, 4, "cuda")
    assert seen["devices"] is not None, f"batched_predict returned a {seen['returned']}"
    assert set(seen["devices"]) == {"cpu"}, f"the outputs came back on {sorted(set(seen['devices']))}: return them on CPU"
    forwards = _one_copy_per_forward(seen, 10, 4)
    assert len(forwards) == 3, f"10 requests with max_batch_size=4 took {len(forwards)} forwards, expected 3"
    for j, (o, w) in enumerate(zip(seen["outs"], _expected(net, requests))):
        assert_close(o, w, atol=1e-4, rtol=1e-4, what=f"the output of request {j} on CUDA")
