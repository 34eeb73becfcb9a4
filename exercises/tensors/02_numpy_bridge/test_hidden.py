"""Hidden checks for 02_numpy_bridge."""
import numpy as np
import pytest
import torch

from grader.testing import assert_close, assert_device, assert_dtype, check, requires_cuda


def _assert_array(value, expected, what):
    assert isinstance(value, np.ndarray), f"expected {what} to be a numpy.ndarray, got {type(value).__name__}"
    assert value.dtype == expected.dtype, f"expected {what} of dtype {expected.dtype}, got {value.dtype}"
    assert value.shape == expected.shape, f"expected {what} of shape {expected.shape}, got {value.shape}"
    assert np.array_equal(value, expected), f"{what} holds {value!r}, expected {expected!r}"


# --- share_from_numpy ----------------------------------------------------------------------------

@check("value", weight=2)
def test_share_sees_writes(sub):
    def write_after(mod):
        arr = np.arange(5, dtype=np.float64)
        out = mod.share_from_numpy(arr)
        arr[0] = 99.0
        same_buffer = isinstance(out, torch.Tensor) and out.data_ptr() == arr.ctypes.data
        return out, same_buffer

    out, same_buffer = sub.probe(write_after, sub)
    assert_device(out, "cpu", what="share_from_numpy(arr)")
    assert out[0].item() == 99.0, "writing arr[0] = 99 after share_from_numpy(arr) did not show in the tensor: share memory"
    assert same_buffer, "the tensor's data_ptr() is not arr.ctypes.data: it must wrap arr's buffer, not a copy"


@check("value", weight=2)
def test_share_strided_view(sub):
    # "shares memory with arr" holds for any array torch can wrap, not only contiguous ones: a
    # positive-strided view such as arr[:, ::2] must not be copied (np.ascontiguousarray would).
    # Built in the worker: the view would arrive contiguous if it were sent from here.
    def write_after(mod):
        base = np.arange(12, dtype=np.float64).reshape(3, 4)
        view = base[:, ::2]
        out = mod.share_from_numpy(view)
        before = out.clone() if isinstance(out, torch.Tensor) else out
        base[0, 0] = 99.0
        same_buffer = isinstance(out, torch.Tensor) and out.data_ptr() == view.ctypes.data
        return before, out, same_buffer

    before, out, same_buffer = sub.probe(write_after, sub)
    view = np.arange(12, dtype=np.float64).reshape(3, 4)[:, ::2]
    assert isinstance(out, torch.Tensor), f"share_from_numpy(arr[:, ::2]) returned {type(out).__name__}, not a tensor"
    assert_close(before, torch.tensor(view), what="share_from_numpy(arr[:, ::2])")
    assert out[0, 0].item() == 99.0, ("writing the base array after share_from_numpy(arr[:, ::2]) did not show in "
                                      "the tensor: a strided view was copied (np.ascontiguousarray?)")
    assert same_buffer, "share_from_numpy(arr[:, ::2]).data_ptr() is not the view's buffer: it must not copy"


@check("dtype")
@pytest.mark.parametrize("np_dtype", [np.float64, np.int32], ids=["float64", "int32"])
def test_share_keeps_dtype(sub, np_dtype):
    # NumPy defaults to float64; a cast to float32 would be a copy, so it is not zero-copy.
    arr = np.arange(4).astype(np_dtype)
    out = sub.share_from_numpy(arr)
    assert_dtype(out, torch.from_numpy(arr).dtype, what=f"share_from_numpy({np.dtype(np_dtype).name} array)")
    assert_close(out, torch.from_numpy(arr), what=f"share_from_numpy({np.dtype(np_dtype).name} array)")


# --- copy_from_numpy -----------------------------------------------------------------------------

@check("value", weight=2)
def test_copy_is_independent(sub):
    def write_after(mod):
        arr = np.arange(6, dtype=np.float64).reshape(2, 3)
        out = mod.copy_from_numpy(arr)
        arr[...] = -1.0
        return out

    out = sub.probe(write_after, sub)
    expected = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    assert (out != -1.0).all(), "writing arr after copy_from_numpy(arr) changed the tensor: copy the data"
    assert_close(out, expected, what="copy_from_numpy(arr)")


@check("value", weight=2)
def test_copy_accepts_any_strides(sub):
    # Built in the worker: a strided view would arrive contiguous if it were sent from here.
    def strided_views(mod):
        base = np.arange(12, dtype=np.float32).reshape(3, 4)
        outs = {"arr[::-1]": mod.copy_from_numpy(base[::-1]),
                "arr[:, ::2]": mod.copy_from_numpy(base[:, ::2]),
                "arr[:, ::-2]": mod.copy_from_numpy(base[:, ::-2]),
                "arr.T": mod.copy_from_numpy(base.T)}
        base[...] = -1.0
        return outs

    outs = sub.probe(strided_views, sub)
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    views = {"arr[::-1]": base[::-1], "arr[:, ::2]": base[:, ::2], "arr[:, ::-2]": base[:, ::-2], "arr.T": base.T}
    for label, view in views.items():
        expected = torch.tensor(np.ascontiguousarray(view))
        assert_close(outs[label], expected, what=f"copy_from_numpy({label}) (then the base array overwritten)")


@check("dtype", weight=0.5)
@pytest.mark.parametrize("np_dtype", [np.int32, np.uint8, np.bool_, np.float16], ids=["int32", "uint8", "bool", "float16"])
def test_copy_preserves_dtype(sub, np_dtype):
    arr = (np.arange(6) % 3).astype(np_dtype).reshape(2, 3)
    expected = torch.from_numpy(arr.copy())
    out = sub.copy_from_numpy(arr)
    assert_close(out, expected, what=f"copy_from_numpy({np.dtype(np_dtype).name} array)")


# --- to_numpy --------------------------------------------------------------------------------------

@check("grad", weight=2)
def test_to_numpy_requires_grad(sub):
    leaf = torch.tensor([1.0, -2.0, 3.5], requires_grad=True)
    _assert_array(sub.to_numpy(leaf), np.array([1.0, -2.0, 3.5], dtype=np.float32),
                  "to_numpy(leaf with requires_grad=True)")

    def non_leaf(mod):
        w = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
        return mod.to_numpy(w * 3)

    _assert_array(sub.probe(non_leaf, sub), np.array([3.0, 6.0]), "to_numpy(w * 3) with w requiring grad")


@check("value")
def test_to_numpy_shares_memory(sub):
    def write_through(mod):
        t = torch.arange(4, dtype=torch.float32)
        arr = mod.to_numpy(t, copy=False)
        if not isinstance(arr, np.ndarray):
            return t, type(arr).__name__
        arr[0] = 42.0
        return t, arr

    t, arr = sub.probe(write_through, sub)
    assert not isinstance(arr, str), f"to_numpy(t, copy=False) returned {arr}, not a numpy.ndarray"
    _assert_array(arr, np.array([42.0, 1.0, 2.0, 3.0], dtype=np.float32), "to_numpy(t, copy=False) after a write")
    assert t[0].item() == 42.0, "to_numpy(t, copy=False) on a CPU float32 tensor must share memory with t"

    def default_shares(mod):
        t = torch.arange(3, dtype=torch.float64)
        arr = mod.to_numpy(t)  # copy defaults to False
        if isinstance(arr, np.ndarray):
            arr[2] = -1.0
        return t

    assert sub.probe(default_shares, sub)[2].item() == -1.0, \
        "to_numpy(t) (copy left at its default, False) on a CPU float64 tensor must share memory with t"

    def views_share(mod):
        # non-contiguous views (a transpose, a positive-strided slice) of an int32 tensor: NumPy
        # holds them as they are, so "shares t's memory" holds for them too
        seen = {}
        for name in ("transposed", "strided"):
            base = torch.arange(12, dtype=torch.int32).reshape(3, 4)
            t = base.T if name == "transposed" else base[:, ::2]
            arr = mod.to_numpy(t, copy=False)
            if not isinstance(arr, np.ndarray) or arr.shape != tuple(t.shape):
                seen[name] = f"returned {type(arr).__name__} {getattr(arr, 'shape', '')}"
                continue
            arr[1, 0] = -7
            seen[name] = bool(t[1, 0].item() == -7)
        return seen

    for name, shared in sub.probe(views_share, sub).items():
        assert shared is True, (
            f"to_numpy(t, copy=False) on a {name} view of a CPU int32 tensor must share memory with t"
            + ("" if shared is False else f" ({shared})") + ": a non-contiguous tensor needs no copy either")


@check("value")
def test_to_numpy_copy_is_independent(sub):
    def write_copy(mod):
        t = torch.arange(4, dtype=torch.float32)
        arr = mod.to_numpy(t, copy=True)
        arr[1] = 42.0
        return t, arr

    t, arr = sub.probe(write_copy, sub)
    assert t[1].item() == 1.0, "to_numpy(t, copy=True) returned an array that shares memory with t"
    _assert_array(arr, np.array([0.0, 42.0, 2.0, 3.0], dtype=np.float32), "to_numpy(t, copy=True) after a write")


@check("dtype")
def test_bfloat16_to_float32(sub):
    # 1e38 is inside bfloat16's range but far outside float16's.
    t = torch.tensor([1.5, -2.25, 1e38], dtype=torch.bfloat16)
    _assert_array(sub.to_numpy(t), t.float().numpy(), "to_numpy(bfloat16 tensor)")


@check("device")
def test_moves_to_host_before_numpy(sub):
    # The CPU fallback of test_cuda_to_host: a tensor subclass that says it lives on CUDA (device,
    # is_cuda) until it is moved, refuses .numpy() there as a CUDA tensor would, and records the
    # calls to_numpy makes on it. The result must come from a host copy (.cpu(), .to("cpu"),
    # .numpy(force=True) or .tolist()), whether the code moves always or only off the CPU.
    def spy(mod):
        calls = []
        state = {"moved": False}

        class Spy(torch.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                if func == torch.Tensor.device.__get__:
                    return torch.device("cpu") if state["moved"] else torch.device("cuda", 0)
                if func == torch.Tensor.is_cuda.__get__:
                    return not state["moved"]
                name = getattr(func, "__name__", str(func))
                device = kwargs.get("device", args[1] if name == "to" and len(args) > 1 else None)
                device = str(device) if device is not None else None
                force = bool(kwargs.get("force"))
                calls.append((name, device, force))
                if name in ("numpy", "__array__") and not state["moved"] and not force:
                    raise TypeError("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to "
                                    "copy the tensor to host memory first.")
                out = super().__torch_function__(func, types, args, kwargs)
                if (name in ("cpu", "tolist") or (name == "to" and device is not None and device.startswith("cpu"))
                        or (name == "numpy" and force)):
                    state["moved"] = True
                return out

        t = (torch.arange(5, dtype=torch.float32) * 1.5).as_subclass(Spy)
        try:
            return mod.to_numpy(t), calls
        except TypeError as exc:
            return str(exc), calls

    arr, calls = sub.probe(spy, sub)
    moved = any(name in ("cpu", "tolist") or (name == "to" and device is not None and device.startswith("cpu"))
                or (name == "numpy" and force) for name, device, force in calls)
    assert moved, ("to_numpy never moved the tensor to the host (.cpu(), .to('cpu') or .numpy(force=True)): "
                   "a CUDA tensor would make .numpy() raise")
    _assert_array(arr, np.arange(5, dtype=np.float32) * 1.5, "to_numpy(t) for a tensor on CUDA")


@requires_cuda
@check("device")
def test_cuda_to_host(sub):
    t = torch.arange(5, dtype=torch.float32, device="cuda") * 1.5
    _assert_array(sub.to_numpy(t), np.arange(5, dtype=np.float32) * 1.5, "to_numpy(CUDA tensor)")
    _assert_array(sub.to_numpy(t, copy=True), np.arange(5, dtype=np.float32) * 1.5, "to_numpy(CUDA tensor, copy=True)")
