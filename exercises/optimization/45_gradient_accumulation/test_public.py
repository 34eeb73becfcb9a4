"""Public checks for 45_gradient_accumulation: run them with `grader check 45`.

Training changes the model in place, so the model, the optimizer and the micro-batches are built
inside a probe (a function that runs next to your code) and the parameters are copied back.
"""
import torch
import torch.nn.functional as F

from grader.testing import assert_close, check


def _data():
    g = torch.Generator().manual_seed(0)
    weight, bias = torch.randn(2, 3, generator=g), torch.zeros(2)
    batches = [(torch.randn(n, 3, generator=g), torch.randn(n, 2, generator=g)) for n in (4, 4, 4, 2)]
    return weight, bias, batches


def _run(mod, weight, bias, batches, accumulation_steps):
    model = torch.nn.Linear(3, 2)
    with torch.no_grad():
        model.weight.copy_(weight)
        model.bias.copy_(bias)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = mod.train_accumulated(model, opt, F.mse_loss, batches, accumulation_steps)
    return losses, model.weight.detach().clone(), model.bias.detach().clone()


def _large_batch(weight, bias, groups):
    model = torch.nn.Linear(3, 2)
    with torch.no_grad():
        model.weight.copy_(weight)
        model.bias.copy_(bias)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for group in groups:
        opt.zero_grad()
        F.mse_loss(model(torch.cat([x for x, _ in group])), torch.cat([y for _, y in group])).backward()
        opt.step()
    return model.weight.detach(), model.bias.detach()


@check("value")
def test_two_groups_equal_one_large_batch_each(sub):
    weight, bias, batches = _data()
    _, w, b = sub.probe(_run, sub, weight, bias, batches[:2], 2)        # one group of 4 + 4 samples
    want_w, want_b = _large_batch(weight, bias, [batches[:2]])
    assert_close(w, want_w, atol=1e-6, rtol=0, what="the weight after one accumulated step")
    assert_close(b, want_b, atol=1e-6, rtol=0, what="the bias after one accumulated step")


@check("value")
def test_trailing_partial_group(sub):
    weight, bias, batches = _data()
    losses, w, b = sub.probe(_run, sub, weight, bias, batches, 3)        # groups of 4+4+4 and 2 samples
    assert isinstance(losses, list) and len(losses) == 4, "train_accumulated must return one loss per micro-batch"
    want_w, want_b = _large_batch(weight, bias, [batches[:3], batches[3:]])
    assert_close(w, want_w, atol=1e-6, rtol=0, what="the weight after two steps (the second on the trailing micro-batch)")
    assert_close(b, want_b, atol=1e-6, rtol=0, what="the bias after two steps")
