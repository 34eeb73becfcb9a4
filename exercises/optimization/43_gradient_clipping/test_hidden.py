"""Hidden checks for 43_gradient_clipping.

Parameters and their grads are built inside probes (the grads are changed in place, so they have
to be observed where they live); what comes back is plain data: the returned total, each grad
after the call, and whether it is still the same tensor object. Expected values come from
`torch.nn.utils.clip_grad_norm_` / `torch.clamp` run in the judge on the same grads.
"""
import math

import torch

from grader.testing import assert_close, check, requires_cuda

FORBIDDEN = ["torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_value_", "torch.nn.utils.get_total_norm",
             "torch.nn.utils.clip_grads_with_norm_", "torch.nn.utils.clip_grad_norm", "torch.nn.utils.clip_grad"]


def _clip(mod, cases):
    """Runs in the worker: for each case build parameters with the given grads (None: no grad),
    call the candidate's function and report what happened."""
    import torch

    out = []
    for case in cases:
        params = []
        for g in case["grads"]:
            p = torch.nn.Parameter(torch.zeros(g.shape if g is not None else (2,), dtype=case.get("dtype", torch.float64),
                                               device=case.get("device", "cpu")))
            p.grad = None if g is None else g.to(p.dtype).to(p.device).clone()
            params.append(p)
        before = [p.grad for p in params]
        if case.get("single"):
            arg = params[0]                    # a bare tensor, not a list
        else:
            arg = (p for p in params) if case.get("generator") else list(params)
        error = None
        total = None
        try:
            if case.get("value") is not None:
                total = mod.clip_grad_value(arg, case["value"])
            else:                              # only the arguments the case names: the others keep their defaults
                kwargs = {k: case[k] for k in ("norm_type", "error_if_nonfinite") if k in case}
                total = mod.clip_grad_norm(arg, case["max_norm"], **kwargs)
        except NotImplementedError:
            raise
        except RuntimeError as exc:
            error = f"RuntimeError: {exc}"
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
        def home(t):                           # meta tensors hold no values: send their shape instead
            return tuple(t.shape) if t.device.type == "meta" else t.detach().to("cpu").clone()

        if isinstance(total, torch.Tensor):
            total_info = {"tensor": home(total), "dim": total.dim(), "dtype": total.dtype, "device": str(total.device)}
        else:
            total_info = {"tensor": None, "type": type(total).__name__}
        out.append({"error": error, "total": total_info,
                    "grads": [None if p.grad is None else home(p.grad) for p in params],
                    "same": [p.grad is b for p, b in zip(params, before)]})
    return out


def _expected(grads, max_norm, norm_type=2.0, dtype=torch.float64):
    params = []
    for g in grads:
        p = torch.nn.Parameter(torch.zeros(g.shape if g is not None else (2,), dtype=dtype))
        p.grad = None if g is None else g.to(dtype).clone()
        params.append(p)
    total = torch.nn.utils.clip_grad_norm_(params, max_norm, norm_type)
    return total, [None if p.grad is None else p.grad for p in params]


def _total(seen, what):
    assert seen["error"] is None, f"{what} raised {seen['error']}"
    total = seen["total"]["tensor"]
    assert total is not None, f"{what} returned {seen['total']['type']}, expected a 0-dim tensor"
    return total


def _grads():
    g = torch.Generator().manual_seed(43)
    return [torch.randn(4, 3, generator=g, dtype=torch.float64),
            torch.randn(5, generator=g, dtype=torch.float64) * 3.0,     # the largest element lives here
            torch.randn(2, 2, generator=g, dtype=torch.float64) * 0.5]


NORMS = [1, 2.0, math.inf]


@check("value", weight=3)
def test_matches_torch_clip_grad_norm(sub):
    grads = _grads()
    cases = [{"grads": grads, "max_norm": 0.8, "norm_type": n} for n in NORMS]
    for n, seen in zip(NORMS, sub.probe(_clip, sub, cases)):
        what = f"clip_grad_norm(params, max_norm=0.8, norm_type={n})"
        want_total, want_grads = _expected(grads, 0.8, n)
        assert_close(_total(seen, what), want_total, what=f"{what}: the returned total norm")
        for i, (got, want) in enumerate(zip(seen["grads"], want_grads)):
            assert_close(got, want, what=f"{what}: parameter {i}'s grad after clipping")
            assert seen["same"][i], f"{what} replaced parameter {i}'s .grad with another tensor; scale it in place"


@check("value", weight=2)
def test_norm_is_global(sub):
    grads = [torch.tensor([0.6, 0.0]), torch.tensor([0.0, 0.6])]     # each 0.6 < 0.7, together 0.849 > 0.7
    (seen,) = sub.probe(_clip, sub, [{"grads": grads, "max_norm": 0.7}])
    what = "clip_grad_norm of two grads of norm 0.6 each with max_norm=0.7"
    want_total, want_grads = _expected(grads, 0.7)
    assert_close(_total(seen, what), want_total, what=f"{what}: the returned total (the joint norm)")
    for i, (got, want) in enumerate(zip(seen["grads"], want_grads)):
        assert_close(got, want, what=f"{what}: parameter {i}'s grad (the joint norm 0.849 exceeds 0.7)")


@check("grad", weight=2)
def test_untouched_none_and_generator(sub):
    grads = _grads()
    small = [g / 100 for g in grads]                                  # joint norm ~0.06 < 1
    holes = [grads[0], None, grads[1], None, grads[2]]
    cases = [{"grads": small, "max_norm": 1.0},
             {"grads": holes, "max_norm": 0.8},
             {"grads": grads, "max_norm": 0.8, "generator": True},
             {"grads": [grads[1]], "max_norm": 0.8, "single": True},
             {"grads": [None, None], "max_norm": 0.8}]
    below, with_none, generator, single, nothing = sub.probe(_clip, sub, cases)

    what = "clip_grad_norm with a joint norm below max_norm"
    _total(below, what)
    for i, (got, want) in enumerate(zip(below["grads"], small)):
        assert got is not None and torch.equal(got, want), f"{what}: parameter {i}'s grad changed; it must stay bit-identical"

    what = "clip_grad_norm over parameters of which two have grad None"
    want_total, want_grads = _expected(grads, 0.8)
    assert_close(_total(with_none, what), want_total, what=f"{what}: the returned total")
    assert with_none["grads"][1] is None and with_none["grads"][3] is None, f"{what}: a grad that was None is no longer None"
    for i, want in zip((0, 2, 4), want_grads):
        assert_close(with_none["grads"][i], want, what=f"{what}: parameter {i}'s grad")

    what = "clip_grad_norm given a generator of parameters"
    assert_close(_total(generator, what), want_total, what=f"{what}: the returned total")
    for i, (got, want) in enumerate(zip(generator["grads"], want_grads)):
        assert_close(got, want, what=f"{what}: parameter {i}'s grad (a generator can be iterated only once)")

    what = "clip_grad_norm given one tensor (not a list)"
    want_total, (want,) = _expected([grads[1]], 0.8)
    assert_close(_total(single, what), want_total, what=f"{what}: the returned total")
    assert_close(single["grads"][0], want, what=f"{what}: its grad")

    what = "clip_grad_norm over parameters that have no grad at all"
    total = _total(nothing, what)
    assert total.dim() == 0 and total.item() == 0.0, f"{what} returned {total}, expected tensor(0.)"
    assert nothing["grads"] == [None, None], f"{what}: a grad appeared"


@check("value")
def test_nonfinite_grads(sub):
    grads = _grads()
    with_inf = [grads[0], torch.tensor([1.0, math.inf], dtype=torch.float64)]
    with_nan = [grads[0], torch.tensor([1.0, math.nan], dtype=torch.float64)]
    cases = [{"grads": with_inf, "max_norm": 1.0, "error_if_nonfinite": True},
             {"grads": with_nan, "max_norm": 1.0, "error_if_nonfinite": True},
             {"grads": with_inf, "max_norm": 1.0, "error_if_nonfinite": False},
             {"grads": grads, "max_norm": 0.8, "error_if_nonfinite": True},
             {"grads": with_inf, "max_norm": 1.0}]
    inf_raise, nan_raise, inf_quiet, finite, by_default = sub.probe(_clip, sub, cases)
    for seen, kind in ((inf_raise, "an inf"), (nan_raise, "a NaN")):
        assert seen["error"] is not None and seen["error"].startswith("RuntimeError"), \
            f"clip_grad_norm(..., error_if_nonfinite=True) with {kind} grad did not raise RuntimeError (got {seen['error']})"
    for seen, what in ((inf_quiet, "clip_grad_norm(..., error_if_nonfinite=False) with an inf grad"),
                       (by_default, "clip_grad_norm with an inf grad and error_if_nonfinite left at its default")):
        total = _total(seen, what)
        assert total.dim() == 0 and not torch.isfinite(total).item(), f"{what} returned {total}, expected a non-finite norm"
    what = "clip_grad_norm(..., error_if_nonfinite=True) with finite grads"
    want_total, want_grads = _expected(grads, 0.8)
    assert_close(_total(finite, what), want_total, what=f"{what}: the returned total")
    for i, (got, want) in enumerate(zip(finite["grads"], want_grads)):
        assert_close(got, want, what=f"{what}: parameter {i}'s grad")


@check("dtype")
def test_returns_0dim_float32(sub):
    grads = [g.float() for g in _grads()]
    (seen,) = sub.probe(_clip, sub, [{"grads": grads, "max_norm": 0.8, "dtype": torch.float32}])
    what = "clip_grad_norm on float32 grads"
    total = _total(seen, what)
    assert seen["total"]["dim"] == 0, f"{what} returned a tensor with {seen['total']['dim']} dims, expected 0"
    assert seen["total"]["dtype"] == torch.float32, f"{what} returned a {seen['total']['dtype']} tensor, expected float32"
    want_total, _ = _expected(grads, 0.8, dtype=torch.float32)
    assert_close(total, want_total, what=f"{what}: the returned total")


@check("value", weight=2)
def test_clip_grad_value_in_place(sub):
    grads = [g * 2 for g in _grads()]
    holes = [grads[0], None, grads[1], grads[2]]
    cases = [{"grads": holes, "value": 0.5}, {"grads": grads, "value": 0.25, "generator": True},
             {"grads": [grads[1]], "value": 0.25, "single": True}]
    for case, seen in zip(cases, sub.probe(_clip, sub, cases)):
        how = " as a generator" if case.get("generator") else " as one tensor" if case.get("single") else ""
        what = f"clip_grad_value(params{how}, {case['value']})"
        assert seen["error"] is None, f"{what} raised {seen['error']}"
        assert seen["total"]["tensor"] is None and seen["total"]["type"] == "NoneType", \
            f"{what} returned {seen['total'].get('type', 'a tensor')}, expected None (it works in place)"
        for i, (got, g) in enumerate(zip(seen["grads"], case["grads"])):
            if g is None:
                assert got is None, f"{what}: parameter {i} had no grad and now has one"
                continue
            assert got is not None and torch.equal(got, g.clamp(-case["value"], case["value"])), \
                f"{what}: parameter {i}'s grad is not clamped into [-{case['value']}, {case['value']}]"
            assert seen["same"][i], f"{what}: parameter {i}'s .grad is a new tensor; clamp the existing one in place"


def _guarded(mod, cases):
    from grader import probes

    targets = ["torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_value_", "torch.nn.utils.get_total_norm",
               "torch.nn.utils.clip_grads_with_norm_", "torch.nn.utils.clip_grad_norm",
               "torch.nn.utils.clip_grad.clip_grad_norm_", "torch.nn.utils.clip_grad.clip_grad_value_",
               "torch.nn.utils.clip_grad._get_total_norm", "torch.nn.utils.clip_grad._clip_grads_with_norm_",
               "torch.nn.utils.clip_grad.clip_grad_norm"]
    with probes.forbid(*targets, module=mod) as seen:
        try:
            out = _clip(mod, cases)
        except probes.ForbiddenAPIError:
            out = None
    return seen.names(), out


@check("api")
def test_no_torch_clipping(sub):
    sub.static.require_implemented("clip_grad_norm", "clip_grad_value")
    for api in FORBIDDEN:
        lines = sub.static.uses(api)
        assert not lines, f"the solution uses {api} (line {lines[0]}): compute the norm and the scaling yourself"
    grads = _grads()
    called, out = sub.probe(_guarded, sub, [{"grads": grads, "max_norm": 0.8}, {"grads": grads, "value": 0.5}])
    assert not called, f"the solution called {sorted(set(called))}: compute the norm and the scaling yourself"
    assert out is not None and out[0]["error"] is None and out[1]["error"] is None, "the solution failed under the guard"
    want_total, want_grads = _expected(grads, 0.8)
    assert_close(_total(out[0], "clip_grad_norm"), want_total, what="clip_grad_norm under the guard: the total")
    for i, (got, want) in enumerate(zip(out[0]["grads"], want_grads)):
        assert_close(got, want, what=f"clip_grad_norm under the guard: parameter {i}'s grad")
    for i, (got, g) in enumerate(zip(out[1]["grads"], grads)):
        assert torch.equal(got, g.clamp(-0.5, 0.5)), f"clip_grad_value under the guard: parameter {i}'s grad"


@check("device")
def test_meta_no_host_read(sub):
    """CPU fallback of the CUDA sync check: on `meta` tensors any read of a value on the host
    (`if total > max_norm`, `.item()`, `float()`) raises, as it would force a sync on CUDA."""
    grads = [torch.empty(4, 3), torch.empty(5)]
    (seen,) = sub.probe(_clip, sub, [{"grads": grads, "max_norm": 0.8, "dtype": torch.float32, "device": "meta"}])
    what = "clip_grad_norm on meta grads (error_if_nonfinite=False)"
    assert seen["error"] is None, (f"{what} raised {seen['error']}: the code reads a tensor's value on the host "
                                   "(a Python `if`, `.item()`, `float()`), which forces a sync on CUDA")
    assert seen["total"]["tensor"] is not None and seen["total"]["device"] == "meta" and seen["total"]["dim"] == 0, \
        f"{what} returned {seen['total']}, expected a 0-dim tensor on the grads' device"
    assert all(seen["same"]), f"{what} replaced a .grad with another tensor"
    assert seen["grads"] == [(4, 3), (5,)], f"{what}: the grads' shapes became {seen['grads']}"


def _cuda_sync(mod, grads):
    import torch

    params = []
    for g in grads:
        p = torch.nn.Parameter(torch.zeros_like(g, device="cuda"))
        p.grad = g.to("cuda")
        params.append(p)
    mod.clip_grad_norm(params, 0.8)                       # warm up (first kernels may sync)
    for p, g in zip(params, grads):
        p.grad.copy_(g)
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        error = None
        try:
            total = mod.clip_grad_norm(params, 0.8)
        except NotImplementedError:
            raise
        except RuntimeError as exc:
            error = str(exc)
            total = None
    finally:
        torch.cuda.set_sync_debug_mode(0)
    return error, None if total is None else total.detach().cpu(), [p.grad.detach().cpu() for p in params]


@requires_cuda
@check("device")
def test_cuda_no_host_sync(sub):
    grads = [g.float() for g in _grads()]
    error, total, got = sub.probe(_cuda_sync, sub, grads)
    assert error is None, f"clip_grad_norm on CUDA grads synchronised with the host: {error}"
    want_total, want_grads = _expected(grads, 0.8, dtype=torch.float32)
    assert_close(total, want_total, what="clip_grad_norm on CUDA: the total")
    for i, (g, w) in enumerate(zip(got, want_grads)):
        assert_close(g, w, what=f"clip_grad_norm on CUDA: parameter {i}'s grad")
