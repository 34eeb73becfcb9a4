"""Hidden checks for 03_dtype_discipline."""
import numpy as np
import pytest
import torch
from torch import nn

from grader.testing import assert_close, assert_device, assert_dtype, check, requires_cuda

FP16_MAX = 65504.0

# --- prepare_classification_batch ------------------------------------------------------------------

LABELS = {
    "int32": np.array([2, 0, 1, 4, 3], dtype=np.int32),
    "uint8": np.array([2, 0, 1, 4, 3], dtype=np.uint8),
    "int64": np.array([2, 0, 1, 4, 3], dtype=np.int64),
    "integral_float64": np.array([2.0, 0.0, 1.0, 4.0, 3.0]),
}


@check("dtype", weight=0.5)
@pytest.mark.parametrize("label_kind", list(LABELS))
def test_batch_dtypes(sub, label_kind):
    features = np.random.randn(5, 3)  # float64
    labels = LABELS[label_kind]
    x, y = sub.prepare_classification_batch(features, labels)
    assert_close(x, torch.tensor(features, dtype=torch.float32), what="features (float64 in)")
    assert_close(y, torch.tensor([2, 0, 1, 4, 3], dtype=torch.int64), what=f"labels ({label_kind} in)")


@check("value", weight=2)
def test_non_integral_labels_raise(sub):
    try:
        sub.prepare_classification_batch(np.zeros((2, 3)), np.array([0.0, 1.5]))
    except ValueError:
        return
    raise AssertionError("labels [0.0, 1.5] must raise ValueError: a plain cast silently turns 1.5 into class 1")


@check("value")
def test_batch_trains_with_cross_entropy(sub):
    n_features, n_classes = 6, 4
    features = np.random.randn(8, n_features)
    labels = np.array([0, 3, 1, 2, 2, 1, 0, 3], dtype=np.int32)
    x, y = sub.prepare_classification_batch(features, labels)
    model = nn.Linear(n_features, n_classes)
    try:
        loss = nn.CrossEntropyLoss()(model(x), y)
    except RuntimeError as exc:
        raise AssertionError(f"nn.CrossEntropyLoss()(nn.Linear(F, C)(features), labels) failed: {exc}") from None
    assert torch.isfinite(loss), f"the loss is {loss.item()}"


# --- pick_low_precision_dtype ----------------------------------------------------------------------

def _assert_pick(sub, x, expected, what):
    got = sub.pick_low_precision_dtype(x)
    assert got == expected, f"pick_low_precision_dtype({what}) should be {expected}, got {got}"
    finite = x[torch.isfinite(x)]
    assert not torch.isinf(finite.to(got)).any(), f"{what}: x.to({got}) overflows to inf"


@check("dtype", weight=2)
@pytest.mark.parametrize("case", ["max_7e4", "within_1e3"])
def test_pick_low_precision(sub, case):
    if case == "max_7e4":
        x = torch.randn(100)
        x[17] = 7e4
        _assert_pick(sub, x, torch.bfloat16, "x with max |x| = 7e4")
    else:
        x = torch.rand(1000) * 2000 - 1000
        _assert_pick(sub, x, torch.float16, "x with |x| <= 1e3")


EDGES = {
    "negative_7e4": (torch.tensor([1.0, -7e4, 3.0]), torch.bfloat16),
    "exactly_fp16_max": (torch.tensor([-FP16_MAX, 2.0, FP16_MAX]), torch.float16),
    "just_above_fp16_max": (torch.tensor([0.0, 65600.0]), torch.bfloat16),
    "ignores_inf_and_nan": (torch.tensor([1.0, float("inf"), -float("inf"), float("nan"), -20.0]), torch.float16),
    "one_finite_value_above": (torch.tensor([float("inf"), 7e4, float("nan")]), torch.bfloat16),
    "no_finite_value": (torch.tensor([float("inf"), float("nan")]), torch.float16),
}


@check("dtype", weight=0.5)
@pytest.mark.parametrize("case", list(EDGES))
def test_pick_low_precision_edges(sub, case):
    x, expected = EDGES[case]
    _assert_pick(sub, x, expected, f"{x.tolist()}")


# --- match_model_dtype -----------------------------------------------------------------------------

@check("dtype", weight=0.5)
@pytest.mark.parametrize("case", ["double_model", "half_model", "ids_linear", "ids_embedding", "float_model"])
def test_match_model_dtype(sub, case):
    if case in ("double_model", "half_model", "float_model"):
        model = {"double_model": nn.Linear(3, 2).double(), "half_model": nn.Linear(3, 2).half(),
                 "float_model": nn.Linear(3, 2)}[case]
        x = torch.randn(4, 3, dtype=torch.float64 if case == "float_model" else torch.float32)
        want = next(model.parameters()).dtype
    else:
        model = nn.Linear(3, 2).double() if case == "ids_linear" else nn.Embedding(10, 4)
        x = torch.tensor([[1, 5, 9], [0, 2, 3]])  # int64 token ids
        want = torch.int64
    out = sub.match_model_dtype(x, model)
    assert_dtype(out, want, what=f"match_model_dtype ({case})")
    assert_close(out, x.to(want), what=f"match_model_dtype ({case})")
    if case.startswith("ids_"):  # the same model must still cast a floating input to its own dtype
        param_dtype = next(model.parameters()).dtype
        xf = torch.randn(4, 3, dtype=torch.float32 if param_dtype == torch.float64 else torch.float64)
        assert_close(sub.match_model_dtype(xf, model), xf.to(param_dtype),
                     what=f"match_model_dtype (floating input, {case} model with {param_dtype} parameters)")


@check("device")
def test_match_model_device_meta(sub):
    # CPU fallback of the CUDA check: a model on the meta device.
    model = nn.Linear(3, 2, device="meta", dtype=torch.float64)
    out = sub.match_model_dtype(torch.randn(4, 3), model)
    assert_device(out, "meta", what="input for a meta model")
    assert_dtype(out, torch.float64, what="input for a meta float64 model")
    ids = sub.match_model_dtype(torch.tensor([1, 2, 3]), nn.Embedding(5, 2, device="meta"))
    assert_device(ids, "meta", what="token ids for a meta model")
    assert_dtype(ids, torch.int64, what="token ids for a meta model")


@requires_cuda
@check("device")
def test_match_model_device_cuda(sub):
    model = nn.Linear(3, 2).cuda().half()
    x = torch.randn(4, 3)
    out = sub.match_model_dtype(x, model)
    assert_device(out, "cuda", what="input for a CUDA model")
    assert_close(out, x.to("cuda", torch.float16), what="input for a CUDA float16 model")
    ids = sub.match_model_dtype(torch.tensor([1, 2, 3]), nn.Embedding(5, 2).cuda())
    assert_device(ids, "cuda", what="token ids for a CUDA model")
    assert_dtype(ids, torch.int64, what="token ids for a CUDA model")
