"""Public checks for 60_checkpoint_resume: run them with `grader check 60`.

The checkpoint functions work on models and optimizers in place, so they run inside a probe (a
function that runs next to your code) and plain values come back.
"""
import torch

from grader.testing import check


def _round_trip(mod):
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    opt = torch.optim.AdamW(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    model(torch.randn(4, 3)).pow(2).mean().backward()
    opt.step()
    sched.step()
    mod.save_checkpoint("example.pt", model, opt, sched, 7, {"best": 0.5})
    fresh = torch.nn.Linear(3, 2)
    fresh_opt = torch.optim.AdamW(fresh.parameters(), lr=0.1)
    fresh_sched = torch.optim.lr_scheduler.StepLR(fresh_opt, step_size=1, gamma=0.5)
    start = mod.load_checkpoint("example.pt", fresh, fresh_opt, fresh_sched)
    same = torch.equal(fresh.weight, model.weight) and torch.equal(fresh.bias, model.bias)
    return start, same, fresh_opt.param_groups[0]["lr"], len(fresh_opt.state)


def _safe_load(mod):
    model = torch.nn.Linear(3, 2)
    opt = torch.optim.AdamW(model.parameters(), lr=0.1)
    mod.save_checkpoint("example.pt", model, opt, None, 0, {"note": "first"})
    return torch.load("example.pt", weights_only=True)["extra"]


@check("state")
def test_round_trip(sub):
    start, same, lr, states = sub.probe(_round_trip, sub)
    assert start == 8, f"load_checkpoint of a checkpoint saved at epoch 7 returned {start!r}, expected 8"
    assert same, "the loaded model's weights differ from the saved ones"
    assert lr == 0.05, f"the scheduler's lr after loading is {lr}, expected 0.05 (one StepLR step restored)"
    assert states == 2, f"the optimizer holds state for {states} parameters after loading, expected 2 (AdamW moments)"


@check("state")
def test_loads_with_weights_only(sub):
    extra = sub.probe(_safe_load, sub)
    assert extra == {"note": "first"}, f"torch.load(path, weights_only=True)['extra'] is {extra!r}"
