"""Public checks for 64_device_placement: run them with `grader check 64`."""
import torch
from torch import nn

from grader.testing import assert_close, check


@check("device")
def test_move_batch_keeps_containers(sub):
    batch = {"x": torch.randn(2, 3), "tags": ["a", "b"], "pair": (torch.ones(1), 5)}
    out = sub.move_batch(batch, "meta")  # the meta device: tensors with a shape and no data
    assert isinstance(out, dict) and sorted(out) == ["pair", "tags", "x"], f"expected a dict back, got {out!r}"
    assert out["tags"] == ["a", "b"] and isinstance(out["pair"], tuple) and out["pair"][1] == 5
    for name, t in (("x", out["x"]), ("pair[0]", out["pair"][0])):
        assert t.device.type == "meta", f"batch[{name!r}] is on {t.device} after move_batch(batch, 'meta')"
    assert out["x"].shape == (2, 3)


@check("value")
def test_pick_device_returns_a_device(sub):
    device = sub.pick_device()
    assert isinstance(device, torch.device), f"pick_device() should return a torch.device, got {device!r}"
    assert sub.pick_device("cpu") == torch.device("cpu")


@check("value")
def test_forward_on_cpu(sub):
    torch.manual_seed(0)
    model, x = nn.Linear(4, 2), torch.randn(3, 4)
    with torch.no_grad():
        expected = model(x)
    assert_close(sub.forward_on(model, x, "cpu"), expected, what="forward_on(model, x, 'cpu')")
