"""Hidden checks for 77_evaluation_that_lies.

Each check observes one property of the evaluation and is blind to the others, so that a program
with one bug left fails that bug's check alone. The models are the judge's, built inside probes:
a Linear-BatchNorm-ReLU-Dropout-Linear model (whose output depends on its mode) for the mode and
autograd checks, a plain linear model (whose output does not) for the values. A forward pre-hook
registered through torch's own class records each forward's batch size, whether every submodule
was in eval mode, and whether autograd was recording. Expected values come from the judge.
"""
import torch
import torch.nn.functional as F

from grader.testing import assert_close, assert_dtype, assert_shape, check

FEATURES, CLASSES = 5, 4
SIZES = (32, 32, 7)            # a short last batch: a mean of batch means is not a mean over samples


def _batches(seed=77, sizes=SIZES):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(n, FEATURES, generator=g), torch.randint(0, CLASSES, (n,), generator=g)) for n in sizes]


def _linear_state(seed=77):
    g = torch.Generator().manual_seed(seed + 1)
    return {"weight": torch.randn(CLASSES, FEATURES, generator=g), "bias": torch.randn(CLASSES, generator=g) * 0.1}


def _observe(mod, fn, kind, batches, state, mode, loader_kind="list"):
    """Runs in the worker: the candidate's `fn` on the judge's model, each forward recorded."""
    import torch

    from grader import probes

    if kind == "linear":
        model = torch.nn.Linear(FEATURES, CLASSES)
    else:
        model = torch.nn.Sequential(torch.nn.Linear(FEATURES, 16), torch.nn.BatchNorm1d(16), torch.nn.ReLU(),
                                    torch.nn.Dropout(0.5), torch.nn.Linear(16, CLASSES))
    probes.load_state_dict(model, state, strict=kind == "linear")
    if kind != "linear":
        bn = model[1]
        bn.running_mean.fill_(3.0)          # far from the data's statistics: train and eval modes differ
        bn.running_var.fill_(4.0)
    torch.nn.Module.train(model, mode == "train")
    forwards = []

    def pre(module, args):
        forwards.append({"n": len(args[0]), "eval": all(not m.training for _, m in probes.modules(model)),
                         "grad": torch.is_grad_enabled()})

    torch.nn.Module.register_forward_pre_hook(model, pre)
    before = {k: v.clone() for k, v in probes.state_dict(model).items()}
    loader = iter(batches) if loader_kind == "generator" else batches
    out = getattr(mod, fn)(model, loader)
    after = probes.state_dict(model)
    if isinstance(out, torch.Tensor):
        result = {"tensor": out.detach().clone(), "requires_grad": out.requires_grad}
    elif isinstance(out, dict):
        result = {"dict": {k: v for k, v in out.items() if isinstance(v, (int, float, str))},
                  "types": {k: type(v).__name__ for k, v in out.items()}}
    else:
        result = {"other": type(out).__name__}
    return {"out": result, "forwards": forwards,
            "modes_after": [m.training for _, m in probes.modules(model)],
            "changed": sorted(k for k in before if not torch.equal(before[k], after[k])),
            "grads": sorted(n for n, p in probes.named_parameters(model).items() if p.grad is not None)}


def _mlp_state(seed=77):
    g = torch.Generator().manual_seed(seed + 2)
    return {"0.weight": torch.randn(16, FEATURES, generator=g) * 0.5, "0.bias": torch.randn(16, generator=g) * 0.1,
            "4.weight": torch.randn(CLASSES, 16, generator=g) * 0.5, "4.bias": torch.randn(CLASSES, generator=g) * 0.1}


@check("mode", weight=3)
def test_evaluates_in_eval_mode(sub):
    for fn in ("evaluate", "predict_proba"):
        for mode in ("train", "eval"):
            seen = sub.probe(_observe, sub, fn, "mlp", _batches(), _mlp_state(), mode)
            what = f"{fn} on a Dropout-BatchNorm model in {mode} mode"
            assert [f["n"] for f in seen["forwards"]] == list(SIZES), (
                f"{what}: the model ran on batches of sizes {[f['n'] for f in seen['forwards']]}, "
                f"expected {list(SIZES)}")
            modes = [f["eval"] for f in seen["forwards"]]
            assert all(modes), f"{what}: forward number {modes.index(False)} ran with some module in training mode"
            assert not seen["changed"], f"{what}: evaluating changed the model's {seen['changed']}"
            assert seen["modes_after"] == [mode == "train"] * len(seen["modes_after"]), (
                f"{what}: afterwards the modules' training flags are {seen['modes_after']}; expected the mode the "
                f"model had before the call ({mode})")


@check("grad", weight=3)
def test_no_autograd_while_evaluating(sub):
    for fn in ("evaluate", "predict_proba"):
        seen = sub.probe(_observe, sub, fn, "mlp", _batches(), _mlp_state(), "eval")
        what = f"{fn} on a Dropout-BatchNorm model"
        assert seen["forwards"], f"{what} never ran the model"
        recording = [i for i, f in enumerate(seen["forwards"]) if f["grad"]]
        assert not recording, f"{what}: autograd was recording during forward number {recording[0]}"
        assert not seen["grads"], f"{what}: the parameters {seen['grads']} have a .grad afterwards"
        if fn == "predict_proba":
            assert "tensor" in seen["out"], f"predict_proba returned a {seen['out'].get('other')}, expected a tensor"
            assert not seen["out"]["requires_grad"], "predict_proba returned a tensor that requires grad"


@check("value", weight=3)
def test_metrics_over_samples(sub):
    batches, state = _batches(), _linear_state()
    logits = [F.linear(x, state["weight"], state["bias"]) for x, _ in batches]
    batches[-1] = (batches[-1][0], logits[-1].argmax(dim=1))          # the short batch: all correct
    y = torch.cat([b[1] for b in batches])
    z = torch.cat(logits)
    want_loss = F.cross_entropy(z, y).item()
    want_acc = (z.argmax(dim=1) == y).float().mean().item()
    batch_acc = sum((lg.argmax(dim=1) == b[1]).float().mean().item() for lg, b in zip(logits, batches)) / len(batches)
    assert abs(batch_acc - want_acc) > 0.05, "test data: the mean of batch accuracies must differ"
    for loader_kind in ("list", "generator"):
        seen = sub.probe(_observe, sub, "evaluate", "linear", batches, state, "eval", loader_kind)
        what = f"evaluate over a {loader_kind} of batches of sizes {list(SIZES)}"
        out = seen["out"]
        assert "dict" in out and {"loss", "accuracy"} <= set(out["dict"]), (
            f"{what} returned {out}; expected a dict with the Python floats 'loss' and 'accuracy'")
        assert out["types"]["loss"] == out["types"]["accuracy"] == "float", \
            f"{what}: 'loss' and 'accuracy' are {out['types']}, expected Python floats"
        got = out["dict"]
        assert abs(got["loss"] - want_loss) <= 1e-5 * max(1.0, abs(want_loss)), (
            f"{what}: loss {got['loss']}, expected {want_loss} (the mean over all {len(y)} samples)")
        assert abs(got["accuracy"] - want_acc) <= 1e-6, (
            f"{what}: accuracy {got['accuracy']}, expected {want_acc} (correct samples / all {len(y)} samples)")


@check("value", weight=3)
def test_probabilities_per_sample(sub):
    batches, state = _batches(sizes=(8, 8, 3)), _linear_state()
    seen = sub.probe(_observe, sub, "predict_proba", "linear", batches, state, "eval")
    out = seen["out"]
    assert "tensor" in out, f"predict_proba returned a {out.get('other')}, expected a tensor"
    z = F.linear(torch.cat([b[0] for b in batches]), state["weight"], state["bias"])
    assert_close(out["tensor"], F.softmax(z, dim=1), atol=1e-6, rtol=1e-5,
                 what="predict_proba over batches of 8, 8 and 3 (each row: that sample's class probabilities)")


@check("shape", weight=0.5)
def test_probabilities_shape(sub):
    seen = sub.probe(_observe, sub, "predict_proba", "mlp", _batches(), _mlp_state(), "eval", "generator")
    out = seen["out"]
    assert "tensor" in out, f"predict_proba returned a {out.get('other')}, expected a tensor"
    assert_shape(out["tensor"], (sum(SIZES), CLASSES), what="predict_proba over a generator of batches 32, 32, 7")
    assert_dtype(out["tensor"], torch.float32, what="predict_proba's result")
    assert bool(((out["tensor"] >= 0) & (out["tensor"] <= 1)).all()), "predict_proba returned values outside [0, 1]"
