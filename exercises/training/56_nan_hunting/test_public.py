"""Public checks for 56_nan_hunting: run them with `grader check 56`.

The model and the loss are built inside a probe (a function that runs next to your code); only
plain answers come back.
"""
import torch

from grader.testing import check


def _first(mod, poison_input):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    with torch.no_grad():
        model[2].weight[0, 0] = float("inf")       # layer "2" produces the first non-finite output
    x = torch.ones(2, 3)
    if poison_input:
        x[0, 0] = float("nan")
    return mod.first_nonfinite_module(model, x)


def _anomaly(mod):
    x = torch.zeros(3, requires_grad=True)
    return mod.backward_with_anomaly_detection((torch.sqrt(x) * 0).sum())


@check("value")
def test_first_bad_layer(sub):
    got = sub.probe(_first, sub, False)
    assert got == "2", f"first_nonfinite_module returned {got!r}, expected '2' (the Linear holding an inf weight)"


@check("value")
def test_bad_input(sub):
    got = sub.probe(_first, sub, True)
    assert got == "input", f"first_nonfinite_module returned {got!r} for an input holding NaN, expected 'input'"


@check("value")
def test_anomaly_names_sqrt(sub):
    got = sub.probe(_anomaly, sub)
    assert got == "SqrtBackward0", f"backward_with_anomaly_detection returned {got!r}, expected 'SqrtBackward0'"
