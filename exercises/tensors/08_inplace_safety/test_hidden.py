"""Hidden checks for 08_inplace_safety."""
import torch

from grader.testing import assert_close, assert_device, check, requires_cuda


@check("value", weight=2)
def test_inplace_same_object(sub):
    def observe(mod, x):
        ptr, version = x.data_ptr(), x._version
        out = mod.scale_shift_(x, 2.5, -1.0)
        return {"same_object": out is x, "same_memory": x.data_ptr() == ptr,
                "version_bumped": x._version > version, "x": x}

    x = torch.randn(5, 4)
    seen = sub.probe(observe, sub, x)
    assert seen["same_object"], "scale_shift_ must return x itself (in-place methods return self)"
    assert seen["same_memory"], "x.data_ptr() changed: the result was written to new memory, not into x"
    assert seen["version_bumped"], "x._version did not change: x was not modified by an in-place operation"
    assert_close(seen["x"], x * 2.5 - 1.0, what="x after scale_shift_(x, 2.5, -1.0)")


@check("value", weight=2)
def test_out_of_place_untouched(sub):
    def observe(mod, x):
        version = x._version
        out = mod.scale_shift(x, 3.0, 0.5)
        return {"x": x, "version_same": x._version == version, "out": out,
                "new_storage": out.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()}

    x = torch.randn(6, 3)
    seen = sub.probe(observe, sub, x)
    assert torch.equal(seen["x"], x) and seen["version_same"], \
        "scale_shift modified its input: `y = x` does not copy, and `y *= s` is in place"
    assert seen["new_storage"], "scale_shift's result shares memory with x: it must be a new tensor"
    assert_close(seen["out"], x * 3.0 + 0.5, what="scale_shift(x, 3.0, 0.5)")


@check("grad", weight=2)
def test_leaf_requires_grad_raises(sub):
    leaf = torch.randn(4, requires_grad=True)
    try:
        sub.scale_shift_(leaf, 2.0, 1.0)
    except RuntimeError:
        return
    raise AssertionError("scale_shift_ on a leaf that requires grad must raise autograd's RuntimeError; "
                         "torch.no_grad() or .data silence it and corrupt the parameter behind autograd's back")


@check("grad", weight=2)
def test_sigmoid_backward(sub):
    def run_backward(mod, x, scale):
        x.requires_grad_(True)
        out = mod.sigmoid_then_scale(x, scale)
        try:
            out.sum().backward()
        except RuntimeError as exc:
            if isinstance(exc, NotImplementedError):
                raise
            return {"error": str(exc).splitlines()[0][:300]}
        return {"error": None, "out": out.detach(), "grad": x.grad}

    x = torch.randn(7, 3, dtype=torch.float64)
    seen = sub.probe(run_backward, sub, x.clone(), 1.7)
    assert seen["error"] is None, f"sigmoid_then_scale(x).sum().backward() raised: {seen['error']}"
    s = torch.sigmoid(x)
    assert_close(seen["out"], 1.7 * s, what="sigmoid_then_scale(x, 1.7)")
    assert seen["grad"] is not None, "x.grad is None after backward(): the result is not connected to x"
    assert_close(seen["grad"], 1.7 * s * (1 - s), what="x.grad")


@check("value", weight=2)
def test_inplace_on_noncontiguous_view(sub):
    def observe(mod):
        parent = torch.arange(24.0).reshape(4, 6)
        column = parent[:, 1]            # 1-D, stride 6
        block = parent[:, 3:5]           # 2-D, non-contiguous
        out_column = mod.scale_shift_(column, 2.0, 1.0)
        out_block = mod.scale_shift_(block, -1.0, 0.5)
        return {"parent": parent, "column_same": out_column is column, "block_same": out_block is block}

    seen = sub.probe(observe, sub)
    expected = torch.arange(24.0).reshape(4, 6)
    expected[:, 1] = expected[:, 1] * 2.0 + 1.0
    expected[:, 3:5] = expected[:, 3:5] * -1.0 + 0.5
    assert seen["column_same"] and seen["block_same"], "scale_shift_ must return the view it was given"
    assert_close(seen["parent"], expected, atol=0, rtol=0,
                 what="the parent tensor after scale_shift_ on its column views (its memory must be updated)")


@requires_cuda
@check("device")
def test_cuda_no_host_sync(sub):
    def run_without_sync(mod):
        x = torch.randn(8, 4, device="cuda")
        y = x.clone()
        z = torch.randn(8, 4, device="cuda", requires_grad=True)
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")
        try:
            out_inplace = mod.scale_shift_(y, 2.0, 1.0)
            out = mod.scale_shift(x, 2.0, 1.0)
            sig = mod.sigmoid_then_scale(z, 3.0)
        finally:
            torch.cuda.set_sync_debug_mode("default")
        sig.sum().backward()
        return {"x": x, "inplace": out_inplace, "out": out, "sig": sig.detach(), "z": z.detach(), "grad": z.grad}

    seen = sub.probe(run_without_sync, sub)
    for name in ("inplace", "out", "sig", "grad"):
        assert_device(seen[name], "cuda", what=f"the {name} result")
    assert_close(seen["inplace"], seen["x"] * 2.0 + 1.0, what="scale_shift_ on CUDA")
    assert_close(seen["out"], seen["x"] * 2.0 + 1.0, what="scale_shift on CUDA")
    s = torch.sigmoid(seen["z"])
    assert_close(seen["grad"], 3.0 * s * (1 - s), what="grad of sigmoid_then_scale on CUDA")
