"""Hidden checks of 01_masked_mean: one per promise of the README's task."""

import pytest
import torch

from grader.testing import assert_close, assert_dtype, check, reference

ref = reference(__file__)


def _inputs(shape, dtype=torch.float32, p=0.6):
    x = torch.randn(*shape, dtype=dtype)
    mask = torch.rand(*shape) < p
    return x, mask


@check("value", weight=2)
@pytest.mark.parametrize("dim", [0, 1, -1], ids=["dim0", "dim1", "dim-1"])
def test_matches_reference(sub, dim):
    x, mask = _inputs((6, 5, 4))
    mask[..., 0] = True  # no all-padding slice here: that promise has its own check
    mask[0] = True
    assert_close(sub.masked_mean(x, mask, dim), ref.masked_mean(x, mask, dim))


@check("value")
def test_empty_slice_is_zero(sub):
    x, mask = _inputs((4, 7))
    mask[1] = False
    mask[3] = False
    out = sub.masked_mean(x, mask, 1)
    assert_close(out, ref.masked_mean(x, mask, 1))
    assert not torch.isnan(out).any(), "an all-padding row gave NaN: it must give 0.0"


@check("dtype")
def test_dtype_kept(sub):
    x, mask = _inputs((3, 5), dtype=torch.float64)
    mask[:, 0] = True
    out = sub.masked_mean(x, mask, 1)
    assert_dtype(out, torch.float64)
    assert_close(out, ref.masked_mean(x, mask, 1))


@check("state")
def test_input_untouched(sub):
    def observe(mod, x, mask):
        x_before, mask_before = x.clone(), mask.clone()
        out = mod.masked_mean(x, mask, 1)
        return out, torch.equal(x, x_before), torch.equal(mask, mask_before)

    x, mask = _inputs((4, 6))
    mask[:, 0] = True
    out, x_kept, mask_kept = sub.probe(observe, sub, x, mask)
    assert_close(out, ref.masked_mean(x, mask, 1))
    assert x_kept, "masked_mean changed x in place: leave its input as it was"
    assert mask_kept, "masked_mean changed mask in place: leave its input as it was"


@check("api")
def test_no_python_loops(sub):
    sub.static.require_implemented("masked_mean")
    x, mask = _inputs((3, 4))
    mask[:, 0] = True
    assert_close(sub.masked_mean(x, mask, 1), ref.masked_mean(x, mask, 1))
    loops = sub.static.loops_in("masked_mean")
    assert not loops, f"masked_mean uses a Python loop (line {loops[0][0] if loops else 0}): use tensor operations"
