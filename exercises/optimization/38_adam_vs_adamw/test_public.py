"""Public checks for 38_adam_vs_adamw: run them with `grader check 38`.

`adam_update` changes its arguments in place, so each example runs inside a probe (a function
that runs next to your code) over tensors it owns, and sends back what it saw.
"""
import torch

from grader.testing import assert_close, check


def _one_step(mod, param, grad, **kwargs):
    state = {}
    out = mod.adam_update(param, grad, state, **kwargs)
    return out is None, param, sorted(state)


@check("value")
def test_first_adam_step_moves_by_lr(sub):
    param = torch.tensor([1.0, -2.0, 0.5])
    grad = torch.tensor([0.3, -4.0, -0.01])
    returned_none, after, keys = sub.probe(_one_step, sub, param, grad, lr=0.1)
    assert returned_none, "adam_update updates in place and returns None"
    assert_close(after, torch.tensor([0.9, -1.9, 0.6]), atol=1e-5, rtol=0, what="param after one Adam step")
    assert keys == ["exp_avg", "exp_avg_sq", "step"], f"state keys are {keys}"


@check("value")
def test_adamw_decays_the_param(sub):
    param = torch.tensor([2.0, -4.0])
    _, after, _ = sub.probe(_one_step, sub, param, torch.zeros(2), lr=0.1, weight_decay=0.5, decoupled=True)
    assert_close(after, torch.tensor([1.9, -3.8]), what="param after one AdamW step with a zero gradient")
