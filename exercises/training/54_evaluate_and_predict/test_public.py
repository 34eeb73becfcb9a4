"""Public checks for 54_evaluate_and_predict: run them with `grader check 54`.

The model is built inside a probe (a function that runs next to your code), so that its mode after
your call can be read back; expected values are computed here with the model in eval mode.
"""
import torch
import torch.nn.functional as F

from grader.testing import assert_close, check


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.ReLU(), torch.nn.Dropout(0.5), torch.nn.Linear(8, 3))


def _data():
    g = torch.Generator().manual_seed(1)
    return [(torch.randn(n, 3, generator=g), torch.randint(0, 3, (n,), generator=g)) for n in (4, 4, 2)]


def _evaluate(mod, batches):
    model = _model()
    model.train()
    result = mod.evaluate(model, batches, F.cross_entropy, "cpu")
    return result, model.training


def _predict(mod, x):
    model = _model()
    model.eval()
    return mod.predict(model, x), model.training


@check("value")
def test_evaluate_small_loader(sub):
    batches = _data()
    (loss, acc), training = sub.probe(_evaluate, sub, batches)
    model = _model().eval()
    with torch.no_grad():
        logits = torch.cat([model(x) for x, _ in batches])
    y = torch.cat([y for _, y in batches])
    assert type(loss) is float and type(acc) is float, "evaluate must return two Python floats"
    assert_close(loss, float(F.cross_entropy(logits, y)), atol=1e-6, rtol=1e-5,
                 what="the loss (mean over all 10 samples, in eval mode)")
    assert_close(acc, float((logits.argmax(dim=1) == y).float().mean()), atol=1e-6, rtol=0, what="the accuracy")
    assert training, "the model was in training mode before evaluate and must be again afterwards"


@check("dtype")
def test_predict_class_indices(sub):
    x = torch.randn(6, 3)
    labels, training = sub.probe(_predict, sub, x)
    with torch.no_grad():
        want = _model().eval()(x).argmax(dim=1)
    assert_close(labels, want, what="predict's class indices")
    assert not training, "the model was in eval mode before predict and must stay so"
