"""Public checks for 77_evaluation_that_lies: run them with `grader check 77`.

They check the shape of what the program returns, not whether it tells the truth.
"""
import torch

from grader.testing import assert_shape, check


def _run(mod, fn, batches):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    out = getattr(mod, fn)(model, batches)
    return out.detach() if isinstance(out, torch.Tensor) else out


def _batches():
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(n, 3, generator=g), torch.randint(0, 2, (n,), generator=g)) for n in (4, 4, 2)]


@check("value", weight=0.5)
def test_evaluate_returns_two_floats(sub):
    out = sub.probe(_run, sub, "evaluate", _batches())
    assert isinstance(out, dict) and set(out) >= {"loss", "accuracy"}, f"evaluate returned {out!r}"
    assert type(out["loss"]) is float and type(out["accuracy"]) is float, f"evaluate returned {out!r}: floats expected"
    assert 0.0 <= out["accuracy"] <= 1.0, f"an accuracy of {out['accuracy']} is not in [0, 1]"


@check("shape", weight=0.5)
def test_predict_proba_shape(sub):
    assert_shape(sub.probe(_run, sub, "predict_proba", _batches()), (10, 2),
                 what="predict_proba over batches of 4, 4 and 2 samples, 2 classes")
