"""The test-authoring API: what an exercise's test_public.py and test_hidden.py import.

    import torch
    from grader.testing import check, assert_close, assert_shape

    @check("value", weight=2)
    def test_matches_cdist(sub, device):
        a, b = torch.randn(7, 3, device=device), torch.randn(5, 3, device=device)
        assert_close(sub.pairwise_sq_dists(a, b), torch.cdist(a, b) ** 2, atol=1e-4, rtol=0)

Fixtures (from the judge's plugin): `sub` is the candidate's module running in the worker (calls
return data or remote handles; `sub.probe(fn, *args)` runs a trusted function next to the
candidate's code; `sub.static` is the parsed source); `device` runs the check on "cpu" and on
"cuda" (skipped, and left out of the score, without CUDA); `seed` is the per-check seed (0), with
torch, numpy and random already seeded in judge and worker.

Expected values are computed here, in the judge: torch built-ins, closed forms, or `reference()`,
the exercise's reference solution loaded in the judge. Public checks must not use `reference()`:
they ship to candidates, who have no solutions.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import torch

from grader.catalog import CHECK_KINDS
from grader.timing import cpu_ratio, judge_cpu_seconds  # noqa: F401 - timing a check the right way

__all__ = [
    "check", "requires_cuda", "reference", "assert_close", "assert_shape", "assert_dtype", "assert_device",
    "assert_tensor", "cuda_available", "base_state_dict", "base_named_parameters", "base_named_modules",
    "base_load_state_dict", "graph_holders", "HOSTILE_KINDS", "hostile_logits", "torch_expected",
]


def check(kind: str, weight: float = 1.0, timeout_s: float | None = None) -> pytest.MarkDecorator:
    """Mark a test as a graded check of `kind` (shape, dtype, value, grad, device, mode, api, state,
    perf) worth `weight` shares of the exercise's points. `timeout_s` overrides the per-check limit."""
    if kind not in CHECK_KINDS:
        raise ValueError(f"unknown check kind {kind!r}: use one of {', '.join(CHECK_KINDS)}")
    if not (isinstance(weight, (int, float)) and weight > 0):
        raise ValueError(f"check weight must be a positive number, got {weight!r}")
    return pytest.mark.check(kind=kind, weight=float(weight), timeout_s=timeout_s)


def cuda_available() -> bool:
    return torch.cuda.is_available()


requires_cuda = pytest.mark.skipif("not __import__('torch').cuda.is_available()", reason="CUDA not available")


def reference(test_file: str | None = None) -> ModuleType:
    """The exercise's reference solution, imported in the judge (trusted code only).

    Call it from test_hidden.py as `ref = reference(__file__)`."""
    if test_file is None:
        test_file = sys._getframe(1).f_globals["__file__"]
    ex_dir = Path(test_file).resolve().parent
    track, ex_id = ex_dir.parent.name, ex_dir.name
    name = ex_id.split("_", 1)[1]
    path = ex_dir.parent.parent.parent / "solutions" / track / ex_id / f"{name}.py"
    # by folder and place: a pack's exercise may share its folder name with one of the catalogue
    key = f"_grader_reference_{ex_id}_{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"
    if key in sys.modules:
        return sys.modules[key]
    if not path.is_file():
        raise FileNotFoundError(f"reference solution not found at {path}")
    spec = importlib.util.spec_from_file_location(key, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    spec.loader.exec_module(module)
    return module


# --- assertions with messages a candidate can act on ---------------------------------------------

class Mismatch(AssertionError):
    """`assert_close` found different values. It carries them (`expected`, `actual`) so that the
    judge can show a failing *public* check's expected-vs-got; hidden checks' values stay hidden."""

    def __init__(self, message: str, expected: Any, actual: Any):
        super().__init__(message)
        self.expected, self.actual = expected, actual


def _fmt_shape(shape: Any) -> str:
    return str(tuple(int(s) for s in shape))


def assert_tensor(value: Any, what: str = "result") -> torch.Tensor:
    if not isinstance(value, torch.Tensor):
        kind = getattr(value, "remote_type", type(value).__name__)
        raise AssertionError(f"expected {what} to be a torch.Tensor, got {kind}")
    return value


def assert_shape(value: Any, shape: tuple[int, ...] | torch.Size, what: str = "result") -> None:
    t = assert_tensor(value, what)
    if tuple(t.shape) != tuple(shape):
        raise AssertionError(f"expected {what} of shape {_fmt_shape(shape)}, got {_fmt_shape(t.shape)}")


def assert_dtype(value: Any, dtype: torch.dtype, what: str = "result") -> None:
    t = assert_tensor(value, what)
    if t.dtype != dtype:
        raise AssertionError(f"expected {what} of dtype {dtype}, got {t.dtype}")


def assert_device(value: Any, device: str | torch.device, what: str = "result") -> None:
    t = assert_tensor(value, what)
    want = torch.device(device)
    if t.device.type != want.type or (want.index is not None and t.device.index != want.index):
        raise AssertionError(f"expected {what} on device {want}, got {t.device}")


def assert_close(actual: Any, expected: Any, *, atol: float | None = None, rtol: float | None = None,
                 check_dtype: bool = True, check_device: bool = True, equal_nan: bool = False,
                 what: str = "result") -> None:
    """Compare tensors (or numbers) with dtype-aware tolerances; shape, dtype and device first.

    Default tolerances (atol, rtol) by the expected dtype: fp32 (1e-5, 1e-4), fp64 (1e-8, 1e-7),
    fp16/bf16 (1e-2, 1e-2); integers and bools must be equal."""
    if isinstance(expected, torch.Tensor):
        t = assert_tensor(actual, what)
        if tuple(t.shape) != tuple(expected.shape):
            raise AssertionError(f"expected {what} of shape {_fmt_shape(expected.shape)}, got {_fmt_shape(t.shape)}")
        if check_dtype and t.dtype != expected.dtype:
            raise AssertionError(f"expected {what} of dtype {expected.dtype}, got {t.dtype}")
        if check_device and t.device.type != expected.device.type:
            raise AssertionError(f"expected {what} on device {expected.device}, got {t.device}")
        if atol is None and rtol is None:
            atol, rtol = _default_tolerance(expected.dtype)
        elif atol is None or rtol is None:
            default_atol, default_rtol = _default_tolerance(expected.dtype)
            atol = default_atol if atol is None else atol
            rtol = default_rtol if rtol is None else rtol
        got, want = t.detach().cpu(), (expected.detach().cpu().to(t.dtype) if not check_dtype
                                       else expected.detach().cpu())
        try:
            _torch_assert_close(got, want, atol=atol, rtol=rtol, equal_nan=equal_nan, check_dtype=check_dtype,
                                check_device=False)
        except AssertionError as exc:
            detail = _mismatch_detail(got, want, atol, rtol, equal_nan) or _short(str(exc))
            raise Mismatch(f"{what} differs from the expected values: {detail}", expected, t) from None
        return
    if isinstance(expected, (int, float)) and not isinstance(expected, bool):
        if isinstance(actual, torch.Tensor) and actual.numel() == 1:
            actual = actual.item()
        if not isinstance(actual, (int, float)) or isinstance(actual, bool):
            raise AssertionError(f"expected {what} to be a number, got {type(actual).__name__}")
        atol = 1e-8 if atol is None else atol
        rtol = 1e-6 if rtol is None else rtol
        if not (math.isclose(actual, expected, rel_tol=rtol, abs_tol=atol) or
                (equal_nan and math.isnan(actual) and math.isnan(expected))):
            raise Mismatch(f"expected {what} ≈ {expected!r}, got {actual!r}: {_number_error(actual, expected)}; "
                           f"allowed |actual - expected| <= max(rtol * max(|actual|, |expected|), atol) with "
                           f"atol={atol:g}, rtol={rtol:g} (Python {type(expected).__name__}, math.isclose)",
                           expected, actual)
        return
    if actual != expected:
        raise AssertionError(f"expected {what} == {expected!r}, got {actual!r}")


def _torch_assert_close(actual: torch.Tensor, expected: torch.Tensor, **kwargs: Any) -> None:
    """`torch.testing.assert_close` without its first step, unwrapping DTensors, which imports
    torch.distributed.tensor (sympy and more: about a second of every judge's start) to compare
    tensors that cannot be DTensors here (plain tensors: the worker's answers are decoded as such).
    The comparison and its message are torch's own; any other tensor goes through torch's entry."""
    comparison = getattr(torch.testing, "_comparison", None)
    pairs = [getattr(comparison, name, None) for name in ("NonePair", "BooleanPair", "NumberPair", "TensorLikePair")]
    metas = getattr(comparison, "not_close_error_metas", None)
    if metas is None or None in pairs or type(actual) is not torch.Tensor or type(expected) is not torch.Tensor:
        torch.testing.assert_close(actual, expected, **kwargs)
        return
    errors = metas(actual, expected, pair_types=tuple(pairs), **kwargs)
    if errors:
        raise errors[0].to_error(None)


def _fmt_index(index: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(i) for i in index) + ("," if len(index) == 1 else "") + ")"


def _fmt_value(value: torch.Tensor) -> str:
    """One element, with the digits its dtype holds (0.49999997 is not printed as 0.5)."""
    item = value.item()
    if isinstance(item, float):
        digits = {torch.float64: 17, torch.float32: 9}.get(value.dtype, 5)
        return repr(item) if digits == 17 else f"{item:.{digits}g}"
    return repr(item)


def _number_error(actual: float, expected: float) -> str:
    """The absolute and relative error of one number, as the tensor message words them."""
    if not (math.isfinite(actual) and math.isfinite(expected)):
        return "a non-finite value where the other is not" if actual != expected else "equal"
    diff = abs(actual - expected)
    rel = diff / abs(expected) if expected else math.inf
    return f"absolute error {diff:.3g}, relative error {rel:.3g}"


def _mismatch_detail(actual: torch.Tensor, expected: torch.Tensor, atol: float, rtol: float,
                     equal_nan: bool) -> str | None:
    """Where and by how much two tensors of one shape differ, in words: how many elements fail
    |actual - expected| <= atol + rtol * |expected| (torch.isclose's rule), the largest absolute
    and relative errors among them with their index and both values, the non-finite mismatches,
    the tolerance and the dtype. None when it cannot say (a layout it does not read): the caller
    then shows torch's own message."""
    try:
        if actual.layout != torch.strided or expected.layout != torch.strided:
            if actual.layout != expected.layout:
                return None
            actual, expected = actual.to_dense(), expected.to_dense()
        if actual.is_quantized or expected.is_quantized:
            return None
        work = torch.complex128 if (actual.is_complex() or expected.is_complex()) else torch.float64
        got, want = actual.to(work), expected.to(work)
        diff = (got - want).abs()
        close = (diff <= atol + rtol * want.abs()) | (got == want)
        if equal_nan:
            close |= got.isnan() & want.isnan()
        bad = ~close
        count, total = int(bad.sum()), bad.numel()
        if count == 0:
            return None
        dtype = str(actual.dtype).replace("torch.", "")
        exact = not (actual.is_floating_point() or actual.is_complex())
        rule = ("they must be equal: an integer/bool dtype" if exact and atol == 0 and rtol == 0 else
                f"allowed |actual - expected| <= atol + rtol * |expected| with atol={atol:g}, rtol={rtol:g}")
        parts = [f"{count} of {total} elements ({dtype}) are not close ({rule})"]
        shape = tuple(actual.shape)
        finite = bad & diff.isfinite()
        def at(flat: torch.Tensor) -> tuple[int, ...]:
            return tuple(int(i) for i in torch.unravel_index(flat, shape)) if shape else ()

        def values(index: tuple[int, ...]) -> str:
            return f"got {_fmt_value(actual[index])}, expected {_fmt_value(expected[index])}"

        if bool(finite.any()):
            worst_abs = at(torch.where(finite, diff, torch.full_like(diff, -1.0)).argmax())
            rel = torch.where(want.abs() > 0, diff / want.abs(), torch.where(diff > 0, math.inf, 0.0))
            worst_rel = at(torch.where(finite, rel, torch.full_like(rel, -1.0)).argmax())
            abs_err, rel_err = float(diff[worst_abs]), float(rel[worst_rel])
            if worst_abs == worst_rel:
                parts.append(f"largest absolute error {abs_err:.3g} and largest relative error {rel_err:.3g}, "
                             f"both at index {_fmt_index(worst_abs)} ({values(worst_abs)})")
            else:
                parts.append(f"largest absolute error {abs_err:.3g} at index {_fmt_index(worst_abs)} "
                             f"({values(worst_abs)}); largest relative error {rel_err:.3g} at index "
                             f"{_fmt_index(worst_rel)} ({values(worst_rel)})")
        odd = bad & ~diff.isfinite()
        if bool(odd.any()):
            first = at(odd.reshape(-1).nonzero()[0, 0])
            nan_seen = bool((odd & (got.isnan() | want.isnan())).any())
            parts.append(f"{int(odd.sum())} non-finite mismatch(es) (NaN or inf), the first at index "
                         f"{_fmt_index(first)} ({values(first)})"
                         + ("; NaN never equals NaN unless the check passes equal_nan=True"
                            if nan_seen and not equal_nan else ""))
        return "; ".join(parts)
    except Exception:  # noqa: BLE001 - a message helper: never let it hide the mismatch itself
        return None


def _default_tolerance(dtype: torch.dtype) -> tuple[float, float]:
    if dtype in (torch.float16, torch.bfloat16):
        return 1e-2, 1e-2
    if dtype in (torch.float64, torch.complex128):
        return 1e-8, 1e-7
    if dtype in (torch.float32, torch.complex64):
        return 1e-5, 1e-4
    return 0.0, 0.0


def _short(text: str, limit: int = 600) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + "…"


# --- observations that never call a method the candidate can override (see grader.probes) ------

def base_state_dict(sub: Any, model: Any) -> dict[str, torch.Tensor]:
    """The remote `model`'s state dict from `nn.Module.state_dict` itself (an override that shows
    decoy layers is not called). Use it instead of `model.state_dict()` in checks."""
    from grader import probes

    return sub.probe(probes.state_dict, model)


def base_named_parameters(sub: Any, model: Any) -> dict[str, torch.Tensor]:
    """name -> parameter (data copies, `.grad` kept) from `nn.Module.named_parameters` itself."""
    from grader import probes

    return sub.probe(probes.named_parameters, model)


def base_named_modules(sub: Any, model: Any) -> list[tuple[str, str]]:
    """(name, class name) of every submodule, from `nn.Module.named_modules` itself."""
    from grader import probes

    return sub.probe(probes.named_modules, model)


def base_load_state_dict(sub: Any, model: Any, state: dict, strict: bool = True) -> tuple[list[str], list[str]]:
    """`nn.Module.load_state_dict` itself on the remote `model`: (missing keys, unexpected keys)."""
    from grader import probes

    return sub.probe(probes.load_state_dict, model, state, strict)


def graph_holders(sub: Any, *roots: Any) -> list[str]:
    """Paths of tensors still holding an autograd graph, reachable from the remote `roots` and the
    candidate's module globals (a graph kept in a module-level dict is found too)."""
    from grader import probes

    return sub.probe(probes.graph_holders, sub, *roots)


# --- numerically hostile inputs for activations and losses (built in the judge) ------------------

HOSTILE_KINDS = ("large", "spread", "masked")


def hostile_logits(kind: str, shape: tuple[int, ...] = (4, 7), *, dim: int = -1,
                   dtype: torch.dtype = torch.float32, scale: float = 1000.0, seed: int = 0) -> torch.Tensor:
    """Logits that break a naive `exp`/`log`, built in float64 from their own generator (`seed`;
    the check's global RNG is not used) and cast once to `dtype` (float16 and bfloat16 included):

    - "large": uniform in [-scale, scale]; `exp` overflows (float32 past 88, float16 past 11), so
      softmax without max-subtraction gives nan/inf;
    - "spread": in every slice along `dim`, one entry at +scale and the others near -scale; their
      log-softmax is about -2 * scale, finite, where `log(softmax(x))` underflows to -inf;
    - "masked": standard normal with about a third of the entries -inf (attention-style masks),
      never a whole slice along `dim`; softmax is 0 there and log-softmax -inf.

    Compare with `torch_expected(F.log_softmax, x, dim=...)` at the default tolerances."""
    if kind not in HOSTILE_KINDS:
        raise ValueError(f"unknown hostile kind {kind!r}: use one of {', '.join(HOSTILE_KINDS)}")
    g = torch.Generator().manual_seed(seed)
    f64 = torch.float64
    dim = dim % len(shape)
    one = list(shape)
    one[dim] = 1
    pick = torch.randint(0, shape[dim], one, generator=g)  # one entry per slice along dim
    if kind == "large":
        x = (torch.rand(shape, generator=g, dtype=f64) * 2 - 1) * scale
    elif kind == "spread":
        x = -scale + torch.randn(shape, generator=g, dtype=f64)
        x = x.scatter(dim, pick, scale)
    else:
        x = torch.randn(shape, generator=g, dtype=f64)
        masked = (torch.rand(shape, generator=g) < 1 / 3).scatter(dim, pick, False)
        x = x.masked_fill(masked, float("-inf"))
    return x.to(dtype)


def torch_expected(fn: Any, *args: Any, dtype: torch.dtype | None = None, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)` (torch's own function) computed with every floating tensor argument
    upcast to float64, and each floating tensor of the result cast back to `dtype` (default: the
    dtype of the first floating tensor argument): the expected value for a float16, bfloat16 or
    float32 input, rounded once, which a candidate's answer in that dtype meets at the default
    tolerances of `assert_close`. Integer and bool arguments (class targets, masks) pass as they are."""
    floats = [a for a in [*args, *kwargs.values()] if isinstance(a, torch.Tensor) and a.is_floating_point()]
    if dtype is None:
        if not floats:
            raise ValueError("torch_expected needs a floating tensor argument or an explicit dtype")
        dtype = floats[0].dtype

    def up(a: Any) -> Any:
        return a.double() if isinstance(a, torch.Tensor) and a.is_floating_point() else a

    def down(r: Any) -> Any:
        if isinstance(r, torch.Tensor):
            return r.to(dtype) if r.is_floating_point() else r
        if isinstance(r, (tuple, list)):
            return [down(v) for v in r] if isinstance(r, list) else tuple(down(v) for v in r)
        return r

    with torch.no_grad():
        result = fn(*[up(a) for a in args], **{k: up(v) for k, v in kwargs.items()})
    return down(result)
