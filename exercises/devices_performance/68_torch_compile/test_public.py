"""Public checks for 68_torch_compile: run them with `grader check 68`."""
import torch

from grader.testing import check


@check("value")
def test_block_clamps(sub):
    block = sub.CompileFriendlyBlock(4, 8, 0.5)
    x = torch.randn(3, 4) * 5
    y = block(x)
    assert y.shape == (3, 4) and y.dtype == torch.float32, f"expected a (3, 4) float32 output, got {y.shape} {y.dtype}"
    assert y.abs().max() <= 0.5, "every output should lie in [-clip, clip]"
    assert sorted(block.state_dict()) == ["fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight", "norm.bias", "norm.weight"]


def _compiled_eager(mod, x):
    """Runs in your process: compile with the cheap "eager" backend (Dynamo only, no code generation)."""
    block = mod.CompileFriendlyBlock(4, 8, 0.5)
    compiled = mod.compile_model(block, backend="eager")
    return compiled(x), block(x), sorted(mod.clean_state_dict(compiled))


@check("state", timeout_s=120)
def test_compiled_matches_and_clean_keys(sub):
    x = torch.randn(5, 4)
    compiled, eager, keys = sub.probe(_compiled_eager, sub, x)
    assert torch.allclose(compiled, eager, atol=1e-6), "the compiled block should give the eager block's outputs"
    assert keys == ["fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight", "norm.bias", "norm.weight"], (
        f"clean_state_dict of a compiled block should have the block's own keys, got {keys}")
