"""Hidden checks for 24_recurrent_layers.

Expected logits come from the reference solution in the judge. The candidate's model is built in
the worker, given the reference's weights with `nn.Module.load_state_dict` (keys `rnn.*`, `fc.*`:
the contract names the attributes) and run with its own forward; gradients come back through the
bridge to a judge-side input.
"""
import pytest
import torch
from torch import nn

from grader import probes
from grader.testing import assert_close, assert_shape, base_load_state_dict, check, reference, requires_cuda

ref = reference(__file__)

I, H, C = 3, 5, 4
COMBOS = [(cell, bi, layers) for cell in ("rnn", "lstm", "gru") for bi in (False, True) for layers in (1, 2)]


def _name(config):
    cell, bi, layers = config
    if cell is None:
        return f"the defaults (cell and bidirectional not given), {layers} layer{'s' * (layers > 1)}"
    return f"{cell}, {'bidirectional' if bi else 'one direction'}, {layers} layer{'s' * (layers > 1)}"


def _reference(config, seed):
    """The reference model for `config` with weights drawn from `seed`, and its state dict."""
    torch.manual_seed(seed)
    cell, bi, layers = config
    model = ref.SeqClassifier(I, H, layers, C) if cell is None else ref.SeqClassifier(I, H, layers, C, cell, bi)
    return model, nn.Module.state_dict(model)


def _forwards(mod, jobs):
    """Probe: for each (config, state, x, h0) build the candidate's model (cell None: with the
    default cell and direction), load `state` with nn.Module.load_state_dict when given, and run
    its forward. Returns (missing, unexpected, out) per job."""
    from torch import nn

    results = []
    for (cell, bi, layers), state, x, h0 in jobs:
        model = mod.SeqClassifier(I, H, layers, C) if cell is None else mod.SeqClassifier(I, H, layers, C, cell, bi)
        missing = unexpected = []
        if state is not None:
            missing, unexpected = probes.load_state_dict(model, state, strict=False)
        nn.Module.train(model, False)
        with torch.no_grad():
            out = model(x) if h0 is None else model(x, h0)
        results.append((missing, unexpected, out))
    return results


def _compare(sub, jobs, what):
    """Run `jobs` (config, seed, x, h0) in the worker with the reference's weights and compare each
    output with the reference's."""
    shipped, expected = [], []
    for config, seed, x, h0 in jobs:
        model, state = _reference(config, seed)
        with torch.no_grad():
            expected.append(model(x, h0))
        shipped.append((config, state, x, h0))
    for (config, _, x, _), exp, (missing, unexpected, out) in zip(jobs, expected, sub.probe(_forwards, sub, shipped)):
        assert not missing and not unexpected, (
            f"{_name(config)}: the reference's state dict (rnn.*, fc.*) does not fit the model: missing "
            f"{missing[:4]}, unexpected {unexpected[:4]}; name the layers self.rnn and self.fc")
        assert_close(out, exp, what=f"logits of {_name(config)} for x of shape {tuple(x.shape)}{what}")


@check("shape")
def test_all_combinations_shape(sub):
    x = torch.randn(4, 6, I)
    results = sub.probe(_forwards, sub, [(config, None, x, None) for config in COMBOS])
    assert len(results) == len(COMBOS)
    for config, (_, _, out) in zip(COMBOS, results):
        assert_shape(out, (4, C), what=f"logits of {_name(config)} for x of shape (4, 6, 3)")


@check("value", weight=3)
def test_reference_weights_values(sub):
    x = torch.randn(3, 7, I)
    configs = [*COMBOS, (None, None, 1), (None, None, 2)]
    _compare(sub, [(config, seed, x, None) for seed, config in enumerate(configs)], "")


def _initial_state(config, batch):
    cell, bi, layers = config
    shape = (layers * (2 if bi else 1), batch, H)
    h0 = torch.randn(shape)
    return (h0, torch.randn(shape)) if cell == "lstm" else h0


@check("value", weight=2)
def test_explicit_initial_state(sub):
    x = torch.randn(3, 6, I)
    configs = [("lstm", True, 2), ("lstm", False, 1), ("gru", True, 1), ("rnn", False, 2)]
    _compare(sub, [(config, 40 + i, x, _initial_state(config, 3)) for i, config in enumerate(configs)],
             " with an explicit initial state h0 (LSTM: (h0, c0))")


@check("shape")
def test_batch_not_time(sub):
    x = torch.randn(3, 11, I)
    configs = [("lstm", True, 2), ("gru", False, 1)]
    _compare(sub, [(config, 60 + i, x, None) for i, config in enumerate(configs)], " (batch 3, 11 steps)")


@check("grad", weight=2)
def test_grad_reaches_first_step(sub):
    config = ("lstm", True, 2)
    model, state = _reference(config, 7)
    x, r = torch.randn(2, 11, I), torch.randn(2, C)
    expected_x = x.clone().requires_grad_()
    (model(expected_x) * r).sum().backward()

    candidate = sub.SeqClassifier(I, H, 2, C, "lstm", True)
    missing, unexpected = base_load_state_dict(sub, candidate, state, strict=False)
    assert not missing and not unexpected, \
        f"the reference's state dict does not fit the model: missing {missing[:4]}, unexpected {unexpected[:4]}"
    x.requires_grad_()
    out = candidate(x)
    assert_shape(out, (2, C), what="logits of a bidirectional 2-layer LSTM")
    assert out.requires_grad, "the logits do not depend on x through autograd"
    (out * r).sum().backward()
    assert x.grad is not None, "x got no gradient"
    assert bool((x.grad[:, 0].abs().sum(-1) > 0).all()), "the gradient w.r.t. x is zero at the first time step"
    assert_close(x.grad, expected_x.grad, atol=1e-6, rtol=1e-4, what="gradient of (logits * r).sum() w.r.t. x")


@check("device")
def test_meta_device_fallback(sub):
    def on_meta(mod, x):
        return [probes.meta_forward(mod.SeqClassifier(3, 5, layers, 4, cell, bi), x)
                for cell, bi, layers in [("lstm", True, 2), ("gru", False, 1), ("rnn", True, 1)]]

    for seen in sub.probe(on_meta, sub, torch.randn(3, 6, I)):
        assert seen["params"] == ["meta"], f"after .to('meta') parameters are on {seen['params']}"
        assert seen["error"] is None, f"forward of a meta model with h0=None failed: {seen['error']}"
        assert seen["out"] == [("meta", (3, C))], f"meta forward gave {seen['out']}"


@requires_cuda
@check("device", weight=2)
@pytest.mark.parametrize("config", [("lstm", True, 2), ("gru", False, 1)], ids=["lstm-bi-2", "gru-1"])
def test_cuda_no_cpu_state(sub, config):
    def on_cuda(mod, config, x):
        from torch import nn

        cell, bi, layers = config
        model = nn.Module.cuda(mod.SeqClassifier(3, 5, layers, 4, cell, bi))
        with torch.no_grad():
            out = model(x.cuda())
        return out.device.type, tuple(out.shape)

    assert sub.probe(on_cuda, sub, config, torch.randn(3, 6, I)) == ("cuda", (3, C))
