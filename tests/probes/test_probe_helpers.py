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


def test_instance_attrs_reads_past_the_objects_own_accessors():
    class Sly:
        __slots__ = ("__dict__", "hidden_slot")

        def __getattribute__(self, name):  # what getattr(obj, "__dict__") would see
            return {} if name == "__dict__" else object.__getattribute__(self, name)

    obj = Sly()
    obj.kept = torch.ones(2)
    obj.hidden_slot = torch.zeros(1)
    assert obj.__dict__ == {}
    attrs = probes.instance_attrs(obj)
    assert set(attrs) == {"kept", "hidden_slot"}
    assert torch.equal(attrs["kept"], torch.ones(2))


# --- optimizers, schedulers and warnings in the worker ------------------------------------------

def test_train_steps_and_optimizer_state_come_back_as_data(subject):
    def _sgd_run(mod, steps):
        """Probe: the worker's own model and an optimizer over its real parameters."""
        model = mod.make_model()
        params = list(nn.Module.parameters(model))
        opt = torch.optim.SGD(params, lr=0.1, momentum=0.9)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
        x = torch.ones(4, 3)
        start = [p.detach().clone() for p in params]
        seen = probes.train_steps(opt, params, lambda: model(x).pow(2).sum(), steps, sched)
        return start, seen, probes.optimizer_state(opt), probes.scheduler_state(sched)

    start, seen, state, sched = _probe(subject, _sgd_run, subject, 3)
    model = nn.Linear(3, 2)
    with torch.no_grad():
        for p, value in zip(model.parameters(), start):
            p.copy_(value)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched_local = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    for step in range(3):
        opt.zero_grad()
        model(torch.ones(4, 3)).pow(2).sum().backward()
        assert seen["lrs"][step] == [opt.param_groups[0]["lr"]]
        opt.step()
        sched_local.step()
        for got, want in zip(seen["params"][step], model.parameters()):
            assert torch.allclose(got, want.detach())
    assert seen["lrs"] == [[0.1], [0.05], [0.025]] and len(seen["losses"]) == 3
    assert sorted(state["state"]) == [0, 1] and state["param_groups"][0]["params"] == [0, 1]
    local = opt.state_dict()
    for index in (0, 1):
        assert torch.allclose(state["state"][index]["momentum_buffer"], local["state"][index]["momentum_buffer"])
    assert state["param_groups"][0]["momentum"] == 0.9
    assert sched["last_epoch"] == 3 and sched["_last_lr"] == [0.1 * 0.5 ** 3]


def test_an_optimizer_over_handle_parameters_optimises_copies(subject):
    """The trap docs/authoring.md warns about: parameters read through a handle are data copies."""
    model = subject.make_model()
    before = [p.clone() for p in model.parameters()]
    copies = [p.detach().requires_grad_() for p in model.parameters()]
    opt = torch.optim.SGD(copies, lr=1.0)
    sum(c.sum() for c in copies).backward()
    opt.step()
    after = list(model.parameters())
    assert all(torch.equal(a, b) for a, b in zip(before, after))      # the worker's model never moved
    assert not all(torch.equal(a, c.detach()) for a, c in zip(before, copies))


def test_capture_warnings_records_plain_data_and_restores_the_module(subject):
    def warns():
        import warnings
        original = warnings.showwarning
        with probes.capture_warnings() as seen:
            warnings.warn("first", UserWarning, stacklevel=1)
            warnings.warn("first", UserWarning, stacklevel=1)          # a repeat is recorded too ("always")
            warnings.warn("old", DeprecationWarning, stacklevel=1)
            opt = torch.optim.SGD([nn.Parameter(torch.ones(1))], lr=0.1)
            torch.optim.lr_scheduler.StepLR(opt, 1).step()  # torch's own: scheduler before optimizer
        return seen.as_data(), seen.count("UserWarning"), seen.count("Warning", match="old"), \
            warnings.showwarning is original

    data, users, old, restored = _probe(subject, warns)
    assert [r["category"] for r in data["records"]] == ["UserWarning", "UserWarning", "DeprecationWarning",
                                                        "UserWarning"]
    assert "lr_scheduler.step()" in data["records"][3]["message"] and "Warning" in data["records"][2]["categories"]
    assert users == 3 and old == 1 and restored and data["tampered"] == []


def test_capture_warnings_names_what_the_code_inside_replaced(subject):
    def hides():
        import warnings
        with probes.capture_warnings() as seen:
            saved = warnings.showwarning
            warnings.showwarning = lambda *a, **k: None
            warnings.simplefilter("ignore")
            warnings.warn("hidden", stacklevel=1)
            warnings.showwarning = saved
        return seen.as_data()

    data = _probe(subject, hides)
    assert data["records"] == [] and data["tampered"] == ["filters"]

    def replaces():
        import warnings
        with probes.capture_warnings() as seen:
            warnings.warn = lambda *a, **k: None
        return seen.as_data()["tampered"]

    # the replacement is named by the helper, and, left behind, trips the worker's guard
    with pytest.raises(RemoteError) as caught:
        _probe(subject, replaces)
    assert caught.value.remote_type == "TamperingDetected" and "warnings.warn" in str(caught.value)


@pytest.mark.parametrize("patch", ["warnings.warn = lambda *a, **k: None",
                                   "warnings.showwarning = lambda *a, **k: None"], ids=["warn", "showwarning"])
def test_a_submission_replacing_warnings_is_caught(zygote, tmp_path, patch):
    from grader.sandbox.client import Limits, Worker

    path = tmp_path / "silencer.py"
    path.write_text(f"import warnings\n{patch}\n\ndef f():\n    return 1\n")
    worker = Worker(zygote, str(path), "silencer", Limits())
    worker.start()
    try:
        with pytest.raises(RemoteError) as caught:
            call_remote(worker, {"op": "probe", "fn": lambda: 1}, (), {}, what="probe")
        assert caught.value.remote_type == "TamperingDetected"
        assert f"warnings.{patch.split(' ')[0].split('.')[1]}" in str(caught.value)
    finally:
        worker.kill()


def test_train_steps_can_zero_grads_in_place():
    """An optimizer that keeps `p.grad` itself as its momentum buffer only shows when grads are
    zeroed in place (zero_grad(set_to_none=False)), not when they are set to None."""
    class Aliasing(torch.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": 0.1})

        @torch.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    buf = self.state[p].get("buf")
                    buf = p.grad if buf is None else buf.mul_(0.9).add_(p.grad)
                    self.state[p]["buf"] = buf
                    p.add_(buf, alpha=-group["lr"])

    def run(set_to_none):
        w = nn.Parameter(torch.ones(3))
        return probes.train_steps(Aliasing([w]), [w], lambda: (w * w).sum(), 3, set_to_none=set_to_none)

    fresh, in_place = run(True), run(False)
    w = nn.Parameter(torch.ones(3))
    sgd = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    want = probes.train_steps(sgd, [w], lambda: (w * w).sum(), 3, set_to_none=False)
    assert all(torch.allclose(a[0], b[0]) for a, b in zip(fresh["params"], want["params"]))
    assert not torch.allclose(in_place["params"][2][0], want["params"][2][0])


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


def test_replace_fakes_a_return_value_records_calls_and_restores(subject):
    def faked(mod):
        import torch.cuda
        from torch.cuda import is_available

        namespace = type("M", (), {})()
        namespace.is_available = is_available  # a name imported directly, as a candidate's module would
        before = torch.cuda.is_available()
        with probes.replace("torch.cuda.is_available", returns=True, module=namespace) as seen:
            inside = (torch.cuda.is_available(), namespace.is_available())
        return before, inside, seen.count("torch.cuda.is_available"), torch.cuda.is_available is is_available

    before, inside, calls, restored = _probe(subject, faked, subject)
    assert inside == (True, True) and calls == 2 and restored
    assert before is torch.cuda.is_available()


def test_substitute_installs_an_object_and_restores_it(subject):
    def faked(mod):
        import torch.cuda

        log = []

        class FakeEvent:
            def __init__(self, enable_timing=False):
                log.append(("init", enable_timing))

            def record(self):
                log.append("record")

        original = torch.cuda.Event
        with probes.substitute("torch.cuda.Event", FakeEvent):
            torch.cuda.Event(enable_timing=True).record()
        return log, torch.cuda.Event is original

    log, restored = _probe(subject, faked, subject)
    assert log == [("init", True), "record"] and restored


def test_forbid_ops_sees_a_kernel_however_it_is_reached_and_puts_it_back():
    """cdist's kernels are refused at the dispatcher for the call: by a name built at run time,
    through torch.ops with Python dispatch modes off, small (the `_cdist_forward` path) or large
    (`_euclidean_dist`); the broadcasting expansion reaches neither; torch.cdist works after."""
    from torch.utils import _python_dispatch

    a, b = torch.randn(64, 16), torch.randn(48, 16)
    before = torch.cdist(a, b)
    ops = ("_euclidean_dist", "_cdist_forward")

    def by_name(x, y):
        return getattr(torch, "cd" + "ist")(x, y)

    def modes_off(x, y):
        with _python_dispatch._disable_current_modes():
            return torch.ops.aten._euclidean_dist(x, y)

    def expansion(x, y):
        return ((x * x).sum(1, keepdim=True) + (y * y).sum(1) - 2 * x @ y.T).clamp_min(0).sqrt()

    assert probes.forbid_ops(by_name, ops, a, b) == (None, ["_euclidean_dist"])
    assert probes.forbid_ops(modes_off, ops, a, b) == (None, ["_euclidean_dist"])
    assert probes.forbid_ops(by_name, ops, a[:3], b[:3])[1] == ["_cdist_forward"]
    out, reached = probes.forbid_ops(expansion, ops, a, b)
    assert reached == [] and torch.allclose(out, before, atol=1e-4)
    assert torch.equal(torch.cdist(a, b), before)


def test_forbid_ops_refuses_a_call_that_removes_or_overrides_its_guard():
    """The guard is in the candidate's process: a submission that destroys it (found with
    gc.get_objects), resets its registrations, or leaves a kernel of its own over it, makes the
    probe raise TamperingDetected instead of reporting nothing reached; cdist works after."""
    import gc
    import warnings

    from grader.sandbox.tamper import TamperingDetected

    a, b = torch.randn(8, 4), torch.randn(6, 4)
    before = torch.cdist(a, b)
    ops = ("_euclidean_dist", "_cdist_forward")
    theirs = []

    def guards():
        return [o for o in gc.get_objects() if isinstance(o, torch.library.Library) and o.ns == "aten" and o.m
                and o not in theirs]

    def destroy(x, y):
        for lib in guards():
            lib._destroy()
        return torch.cdist(x, y)

    def reset(x, y):
        for lib in guards():
            lib.m.reset()
        return torch.cdist(x, y)

    def override(x, y):
        lib = torch.library.Library("aten", "IMPL")
        theirs.append(lib)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.impl("_cdist_forward", lambda x1, x2, p, mode: ((x1[:, None] - x2[None]) ** 2).sum(-1).sqrt(), "CPU")
        return torch.cdist(x, y)

    for attack, op in ((destroy, "_euclidean_dist"), (reset, "_euclidean_dist"), (override, "_cdist_forward")):
        with pytest.raises(TamperingDetected, match=f"changed torch's dispatcher for aten.{op} while"):
            probes.forbid_ops(attack, ops, a, b)
    theirs[0]._destroy()
    assert torch.equal(torch.cdist(a, b), before)
    assert probes.forbid_ops(lambda x, y: torch.cdist(x, y), ops, a, b) == (None, ["_cdist_forward"])


@pytest.fixture
def probes_by_value():
    """`grader.probes` registered for pickling by value as the judge registers it, for one test."""
    import cloudpickle

    from grader.judge.plugin import ship_probes_by_value

    before = cloudpickle.list_registry_pickle_by_value()
    ship_probes_by_value()
    registered = cloudpickle.list_registry_pickle_by_value()
    yield registered
    for module in (probes, *probes.SUBMODULES):
        if module.__name__ in registered - before:
            cloudpickle.unregister_pickle_by_value(module)


def test_the_judge_registers_every_module_of_probes_by_value(probes_by_value):
    import pkgutil

    files = {f"grader.probes.{m.name}" for m in pkgutil.iter_modules(probes.__path__)}
    assert files == {m.__name__ for m in probes.SUBMODULES}, "list every module of grader.probes in SUBMODULES"
    assert {"grader.probes", *files} <= probes_by_value


def test_probes_reach_the_worker_by_value_never_from_its_own_copy(subject, probes_by_value):
    """A probe that uses the helpers carries their code: the worker's own `grader.probes` (which
    the candidate's code could have changed) supplies none of them."""
    def homes(model):
        import sys

        helpers = [getattr(probes, name) for name in probes.__all__ if name not in ("MAX_WALK", "SUBMODULES")]
        own = [h.__qualname__ for h in helpers if getattr(sys.modules[h.__module__], h.__qualname__, None) is h]
        own += [m.__name__ for m in probes.SUBMODULES if sys.modules.get(m.__name__) is m]
        return own, sorted(probes.state_dict(model))

    assert _probe(subject, homes, nn.Linear(2, 3)) == ([], ["bias", "weight"])


def test_the_helpers_load_where_grader_probes_cannot_be_imported(probes_by_value, tmp_path):
    import subprocess
    import sys

    import cloudpickle

    helpers = [getattr(probes, name) for name in probes.__all__ if name not in ("MAX_WALK", "SUBMODULES")]
    (tmp_path / "blob").write_bytes(cloudpickle.dumps((helpers, lambda m: sorted(probes.state_dict(m)))))
    names = ["grader.probes", *(m.__name__ for m in probes.SUBMODULES)]
    script = (f"import pickle, sys, torch\nfor name in {names!r}: sys.modules[name] = None  # refused\n"
              f"helpers, probe = pickle.loads(open({str(tmp_path / 'blob')!r}, 'rb').read())\n"
              "print(len(helpers), probe(torch.nn.Linear(2, 3)))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == [str(len(helpers)), "['bias',", "'weight']"]


def test_the_tamper_guard_watches_every_module_of_the_probes():
    """A probe that imports `grader.probes` inside its body runs the worker's copy: the guard must
    see a replaced helper in any of the package's modules (tests/attacks: probes_patched)."""
    from grader import probes
    from grader.sandbox import tamper

    assert set(tamper.PROBES) == {"grader.probes"} | {m.__name__ for m in probes.SUBMODULES}
    assert set(tamper.PROBES) <= set(tamper._WATCHED)
