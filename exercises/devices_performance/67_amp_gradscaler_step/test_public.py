"""Public checks for 67_amp_gradscaler_step: run them with `grader check 67`."""
import torch
import torch.nn.functional as F
from torch import nn

from grader.testing import check


def _one_step(mod, dtype):
    """One step on the CPU with bf16/fp16 autocast and a real GradScaler; plain data back."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    x, y = torch.randn(16, 4), torch.randn(16, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    outputs = []
    handle = model[0].register_forward_hook(lambda m, a, out: outputs.append(str(out.dtype)))
    before = [p.detach().clone() for p in model.parameters()]
    loss = mod.amp_train_step(model, x, y, F.mse_loss, opt, scaler, max_norm=1.0, dtype=dtype)
    handle.remove()
    moved = [not torch.equal(b, p) for b, p in zip(before, model.parameters())]
    return loss, outputs, [str(p.dtype) for p in model.parameters()], moved


@check("dtype")
def test_returns_a_float_and_steps(sub):
    loss, _, _, moved = sub.probe(_one_step, sub, torch.bfloat16)
    assert isinstance(loss, float), f"amp_train_step should return the loss as a Python float, got {loss!r}"
    assert loss > 0 and all(moved), f"after one step: loss {loss}, parameters changed {moved}"


@check("dtype")
def test_autocast_dtype(sub):
    _, outputs, params, _ = sub.probe(_one_step, sub, torch.bfloat16)
    assert outputs == ["torch.bfloat16"], f"with dtype=torch.bfloat16 the first Linear produced {outputs}"
    assert params == ["torch.float32"] * 4, f"the parameters should stay float32, they are {params}"
