"""Public checks for 66_activation_checkpointing: run them with `grader check 66`."""
import torch

from grader.testing import check


@check("state")
def test_blocks_structure(sub):
    model = sub.CheckpointedMLP(8, 3, 0.1, True)
    assert len(model.blocks) == 3, f"expected 3 blocks, got {len(model.blocks)}"
    assert sorted(model.state_dict()) == sorted(f"blocks.{i}.0.{k}" for i in range(3) for k in ("weight", "bias"))


@check("mode")
def test_eval_is_deterministic(sub):
    model = sub.CheckpointedMLP(8, 2, 0.5, True)
    model.eval()
    x = torch.randn(4, 8)
    first, second = model(x), model(x)
    assert first.shape == (4, 8) and torch.equal(first, second), "eval-mode outputs should not change between calls"
    w, h = model.state_dict(), x
    for i in range(2):  # Linear then GELU; Dropout does nothing in eval mode
        h = torch.nn.functional.gelu(h @ w[f"blocks.{i}.0.weight"].T + w[f"blocks.{i}.0.bias"])
    assert torch.allclose(first, h, atol=1e-6), "eval-mode output differs from Linear -> GELU per block"


@check("grad")
def test_parameters_get_grads(sub):
    def run(mod):
        model = mod.CheckpointedMLP(8, 2, 0.1, True).train()
        model(torch.randn(4, 8)).sum().backward()
        return [p.grad is not None for p in model.parameters()]

    assert all(sub.probe(run, sub)), "every parameter should have a grad after backward"
