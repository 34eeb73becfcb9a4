"""assert_close's failure message says how the values differ (issue 42): the largest absolute and
relative error, where (the index), both values there, the tolerance and the dtype."""
import math
import re

import pytest
import torch

from grader.testing import Mismatch, assert_close


def _message(actual, expected, **kwargs) -> str:
    with pytest.raises(Mismatch) as caught:
        assert_close(actual, expected, **kwargs)
    return str(caught.value)


def test_largest_errors_index_tolerance_and_dtype():
    expected = torch.zeros(3, 4, dtype=torch.float64)
    actual = expected.clone()
    actual[1, 2] = 0.5          # the largest absolute error
    actual[2, 3] = 1e-6         # above atol 1e-8 (+ rtol * 0): a second mismatch
    expected[0, 1] = actual[0, 1] = 3.0
    text = _message(actual, expected, what="the lrs")
    assert text.startswith("the lrs differs from the expected values")
    assert "2 of 12 elements (float64)" in text
    assert "atol=1e-08, rtol=1e-07" in text
    assert "largest absolute error 0.5" in text and "index (1, 2)" in text
    assert "got 0.5, expected 0.0" in text


def test_absolute_and_relative_worst_at_different_places():
    expected = torch.tensor([1000.0, 0.001, 1.0])
    actual = torch.tensor([1000.5, 0.002, 1.0])
    text = _message(actual, expected)
    assert "(float32)" in text and "atol=1e-05, rtol=0.0001" in text
    assert re.search(r"largest absolute error 0\.5 at index \(0,\) \(got 1000\.5, expected 1000\)", text), text
    assert re.search(r"largest relative error 1 at index \(1,\)", text), text


def test_same_place_is_said_once():
    text = _message(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.5, 3.0]))
    assert "largest absolute error 0.5 and largest relative error 0.2, both at index (1,)" in text


def test_explicit_tolerance_is_reported():
    text = _message(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.01]), atol=1e-3, rtol=0)
    assert "atol=0.001, rtol=0" in text and "index (1,)" in text


def test_zero_dim_and_precision_of_values():
    text = _message(torch.tensor(0.49999997, dtype=torch.float32), torch.tensor(0.5), atol=0, rtol=0)
    assert "index ()" in text and "got 0.49999997, expected 0.5" in text


def test_non_finite_mismatches_are_named():
    actual = torch.tensor([[1.0, math.nan], [math.inf, 4.0]])
    expected = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    text = _message(actual, expected)
    assert "2 of 4 elements" in text
    assert "2 non-finite mismatch(es)" in text and "index (0, 1)" in text and "got nan, expected 2" in text
    assert "equal_nan=True" in text


def test_nan_equal_nan_passes_and_is_explained_otherwise():
    assert_close(torch.tensor([math.nan, 1.0]), torch.tensor([math.nan, 1.0]), equal_nan=True)
    assert "equal_nan=True" in _message(torch.tensor([math.nan]), torch.tensor([math.nan]))


def test_integers_must_be_equal():
    text = _message(torch.tensor([1, 2, 3]), torch.tensor([1, 2, 4]))
    assert "(int64)" in text and "must be equal" in text and "index (2,)" in text and "got 3, expected 4" in text


def test_half_precision_default_tolerance():
    text = _message(torch.tensor([1.0, 2.0], dtype=torch.float16), torch.tensor([1.0, 2.5], dtype=torch.float16))
    assert "(float16)" in text and "atol=0.01, rtol=0.01" in text


def test_complex_values():
    text = _message(torch.tensor([1 + 1j, 2j]), torch.tensor([1 + 1j, 3j]))
    assert "(complex64)" in text and "largest absolute error 1" in text and "index (1,)" in text


def test_unchecked_dtype_reports_the_dtype_compared():
    text = _message(torch.tensor([1.0, 2.0], dtype=torch.float64), torch.tensor([1.0, 3.0]), check_dtype=False)
    assert "(float64)" in text and "index (1,)" in text


def test_sparse_tensors_are_described_densely():
    text = _message(torch.tensor([1.0, 2.0]).to_sparse(), torch.tensor([1.0, 3.0]).to_sparse())
    assert "index (1,)" in text and "got 2, expected 3" in text


def test_numbers_report_errors_and_tolerance():
    text = _message(1.5, 1.0, what="the loss")
    assert text.startswith("expected the loss ≈ 1.0, got 1.5")
    assert "absolute error 0.5, relative error 0.5" in text
    assert "atol=1e-08, rtol=1e-06" in text and "Python float" in text


def test_mismatch_still_carries_the_values():
    expected, actual = torch.tensor([1.0]), torch.tensor([2.0])
    with pytest.raises(Mismatch) as caught:
        assert_close(actual, expected)
    assert torch.equal(caught.value.expected, expected) and torch.equal(caught.value.actual, actual)


def test_close_values_still_pass():
    assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-6]))
    assert_close(torch.tensor([0.4999999701976776], dtype=torch.float64), torch.tensor([0.5], dtype=torch.float64))
    assert_close(2.0, 2.0 + 1e-9)
