"""Worker-side probe helpers (grader.probes: spies, forbidden-API guards, hook recorders, the meta
forward), module-qualified handle types and state_dict metadata, against a real worker process
whose tamper guard runs around every probe."""
from __future__ import annotations

import pytest
import torch
from torch import nn

from grader import probes
from grader.sandbox.handles import RemoteError, call_remote


def _probe(subject, fn, *args):
    """A probe request as the judge sends it (the worker's TamperGuard checks before and after)."""
    return call_remote(subject._worker, {"op": "probe", "fn": fn}, args, {}, what="probe")


def test_spy_records_calls_and_restores_without_tripping_the_guard(subject):
    def spied(mod):
        model = mod.make_model()
        with probes.spy("torch.Tensor.to", "torch.nn.functional.linear") as seen:
            model(torch.ones(1, 3).to(torch.float32))
            torch.ones(2).to("cpu")
        after = torch.Tensor.__dict__.get("to")
        return seen.names(), seen.count("torch.Tensor.to"), after is None

    names, to_calls, restored = _probe(subject, spied, subject)
    assert names == ["torch.Tensor.to", "torch.nn.functional.linear", "torch.Tensor.to"]
    assert to_calls == 2 and restored
    assert _probe(subject, lambda: torch.ones(2).sum().item()) == 2.0  # no TamperingDetected


def test_a_patch_left_behind_trips_the_guard(subject):
    def leaves_patch():
        torch.Tensor.to = lambda self, *a, **k: self
        return True

    with pytest.raises(RemoteError) as caught:
        _probe(subject, leaves_patch)
    assert caught.value.remote_type == "TamperingDetected"


def test_forbid_records_calls_even_when_the_candidate_catches_them():
    import torch.nn.functional as F

    def candidate(x):
        try:
            return F.softmax(x, dim=0)
        except Exception:  # noqa: BLE001 - what a candidate might do to hide the call
            return torch.exp(x) / torch.exp(x).sum()

    original = F.softmax
    with probes.forbid("torch.nn.functional.softmax") as seen:
        out = candidate(torch.zeros(4))
    assert seen.names() == ["torch.nn.functional.softmax"]
    assert torch.allclose(out, torch.full((4,), 0.25))
    assert F.softmax is original


def test_forbid_and_spy_reach_names_the_module_imported_directly():
    import types

    from torch.nn.functional import relu
    mod = types.ModuleType("cand")
    mod.relu = relu
    with probes.forbid("torch.nn.functional.relu", module=mod) as seen:
        with pytest.raises(probes.ForbiddenAPIError):
            mod.relu(torch.ones(1))
    assert seen.count() == 1 and mod.relu is relu


def test_hook_recorder_sees_forward_and_backward_order_and_removes_its_hooks():
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    with probes.hook_recorder(model, backward=True) as seen:
        model(torch.randn(2, 3, requires_grad=True)).sum().backward()
    assert seen.forward == ["0", "1", "2", ""]
    assert seen.backward[:3] == ["", "2", "1"] or seen.backward[0] in ("", "2")
    assert set(seen.backward) == {"", "0", "1", "2"}
    assert all(not m._forward_hooks and not m._backward_hooks for m in model.modules())


class _CpuConstant(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        return self.lin(x) + torch.ones(3, 3)  # created on the CPU, whatever the model's device


def test_meta_forward_moves_everything_and_reports_device_mistakes():
    good = probes.meta_forward(nn.BatchNorm1d(3), torch.randn(4, 3))
    assert good["params"] == ["meta"] and good["buffers"] == ["meta"]
    assert good["out"] == [("meta", (4, 3))] and good["error"] is None
    bad = probes.meta_forward(_CpuConstant(), torch.randn(3, 3))
    assert bad["params"] == ["meta"] and bad["out"] is None and bad["error"]


def test_handles_carry_module_qualified_type_names(subject):
    model = subject.make_model()
    assert model.remote_type == "torch.nn.modules.linear.Linear" and model.remote_class == "Linear"
    bag = subject.make_bag()
    assert bag.remote_type == "sandbox_subject.Bag"
    assert probes.qualified_name(nn.Linear(1, 1)) == "torch.nn.modules.linear.Linear"


def test_state_dicts_cross_with_their_metadata(subject):
    state = subject.make_model().state_dict()
    assert list(state) == ["weight", "bias"]
    assert state._metadata == nn.Linear(3, 2).state_dict()._metadata
    assert nn.Linear(3, 2).load_state_dict(state).missing_keys == []


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=["fp32", "fp16", "bf16"])
def test_hostile_logits_break_naive_code_and_torch_expected_rounds_once(dtype):
    import torch.nn.functional as F

    from grader.testing import assert_close, hostile_logits, torch_expected

    large = hostile_logits("large", (3, 6), dtype=dtype)
    assert large.dtype == dtype and large.shape == (3, 6) and large.abs().max() > 500
    naive = large.exp() / large.exp().sum(-1, keepdim=True)
    assert not torch.isfinite(naive).all()                      # exp overflows without max-subtraction
    assert torch.equal(large, hostile_logits("large", (3, 6), dtype=dtype))   # its own seed, reproducible

    spread = hostile_logits("spread", (5, 4), dim=0, dtype=dtype)
    expected = torch_expected(F.log_softmax, spread, dim=0)
    assert expected.dtype == dtype and torch.isfinite(expected).all() and expected.min() < -1900
    assert (torch.log(F.softmax(spread.double(), dim=0)) == float("-inf")).any()
    assert_close(torch_expected(F.softmax, spread, dim=0).sum(0), torch.ones(4, dtype=dtype))

    masked = hostile_logits("masked", (6, 5), dtype=dtype)
    inf = masked == float("-inf")
    assert inf.any() and not inf.all(-1).any()                  # masks, never a whole slice
    probs = torch_expected(F.softmax, masked, dim=-1)
    assert torch.equal(probs[inf], torch.zeros(int(inf.sum()), dtype=dtype))
    assert_close(probs, F.softmax(masked.float(), dim=-1).to(dtype))
    assert_close(torch_expected(F.log_softmax, masked, dim=-1), F.log_softmax(masked.float(), -1).to(dtype))

    targets = torch.tensor([0, 2, 1, 4, 3, 0])
    loss = torch_expected(F.cross_entropy, masked.masked_fill(inf, -30.0), targets)
    assert loss.dtype == dtype and loss.shape == ()             # integer targets pass unchanged
    with pytest.raises(ValueError, match="unknown hostile kind"):
        hostile_logits("huge")
