"""Public checks for 53_train_one_epoch: run them with `grader check 53`.

Training changes the model in place, so the model, the optimizer and the batches are built inside a
probe (a function that runs next to your code) and the parameters are copied back.
"""
import torch
import torch.nn.functional as F

from grader.testing import assert_close, check


def _data():
    g = torch.Generator().manual_seed(0)
    weight, bias = torch.randn(2, 3, generator=g), torch.zeros(2)
    batches = [(torch.randn(n, 3, generator=g), torch.randn(n, 2, generator=g)) for n in (4, 4, 2)]
    return weight, bias, batches


def _run(mod, weight, bias, batches):
    model = torch.nn.Linear(3, 2)
    with torch.no_grad():
        model.weight.copy_(weight)
        model.bias.copy_(bias)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss = mod.train_one_epoch(model, batches, opt, F.mse_loss, "cpu")
    return loss, model.training, model.weight.detach().clone(), model.bias.detach().clone()


def _expected(weight, bias, batches, lr=0.1, momentum=0.9):
    """What one epoch must give, written out by hand for this linear model and the MSE loss: each
    batch's gradient in closed form, then SGD with momentum (float64, compared at 1e-6)."""
    w, b = weight.double(), bias.double()
    vel_w = vel_b = None
    total, count = 0.0, 0
    for x, y in batches:
        x, y = x.double(), y.double()
        r = x @ w.T + b - y                       # residuals, (n, 2)
        total += float((r ** 2).mean()) * len(x)
        count += len(x)
        grad_w, grad_b = 2 * r.T @ x / r.numel(), 2 * r.sum(0) / r.numel()
        vel_w = grad_w if vel_w is None else momentum * vel_w + grad_w
        vel_b = grad_b if vel_b is None else momentum * vel_b + grad_b
        w, b = w - lr * vel_w, b - lr * vel_b
    return total / count, w.float(), b.float()


@check("value")
def test_three_batches_with_momentum(sub):
    weight, bias, batches = _data()
    _, training, w, b = sub.probe(_run, sub, weight, bias, batches)
    _, want_w, want_b = _expected(weight, bias, batches)
    assert training, "the model must be in training mode after train_one_epoch"
    assert_close(w, want_w, atol=1e-6, rtol=0, what="the weight after one epoch of three batches")
    assert_close(b, want_b, atol=1e-6, rtol=0, what="the bias after one epoch of three batches")


@check("value")
def test_returns_epoch_loss(sub):
    weight, bias, batches = _data()
    loss, _, _, _ = sub.probe(_run, sub, weight, bias, batches)
    want, _, _ = _expected(weight, bias, batches)
    assert type(loss) is float, f"train_one_epoch returned a {type(loss).__name__}, expected a Python float"
    assert_close(loss, want, rtol=1e-5, what="the epoch loss (batches of 4, 4 and 2)")
