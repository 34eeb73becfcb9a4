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
    model.eval()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss = mod.train_one_epoch(model, batches, opt, F.mse_loss, "cpu")
    return loss, model.training, model.weight.detach().clone(), model.bias.detach().clone()


def _manual(weight, bias, batches):
    model = torch.nn.Linear(3, 2)
    with torch.no_grad():
        model.weight.copy_(weight)
        model.bias.copy_(bias)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for x, y in batches:
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item() * len(x))
    return sum(losses) / sum(len(x) for x, _ in batches), model.weight.detach(), model.bias.detach()


@check("value")
def test_three_batches_with_momentum(sub):
    weight, bias, batches = _data()
    _, training, w, b = sub.probe(_run, sub, weight, bias, batches)
    _, want_w, want_b = _manual(weight, bias, batches)
    assert training, "the model must be in training mode after train_one_epoch"
    assert_close(w, want_w, atol=1e-6, rtol=0, what="the weight after one epoch of three batches")
    assert_close(b, want_b, atol=1e-6, rtol=0, what="the bias after one epoch of three batches")


@check("value")
def test_returns_sample_weighted_mean(sub):
    weight, bias, batches = _data()
    loss, _, _, _ = sub.probe(_run, sub, weight, bias, batches)
    want, _, _ = _manual(weight, bias, batches)
    assert type(loss) is float, f"train_one_epoch returned a {type(loss).__name__}, expected a Python float"
    assert_close(loss, want, rtol=1e-5, what="the epoch loss (batches of 4, 4 and 2, each weighted by its size)")
