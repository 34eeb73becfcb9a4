"""Public checks for 75_loop_that_does_not_learn: run them with `grader check 75`.

They check the program's shape only: it runs and returns what it promises. Whether it learns is for
you to find out (the README's worked example shows how it behaves now).
"""
import torch

from grader.testing import assert_shape, check


@check("shape", weight=0.5)
def test_model_maps_features_to_class_scores(sub):
    def run(mod, x):
        return mod.build_model(5, 8, 3)(x).detach()

    assert_shape(sub.probe(run, sub, torch.randn(4, 5)), (4, 3), what="build_model(5, 8, 3) on 4 samples")


@check("value", weight=0.5)
def test_fit_returns_one_loss_per_epoch(sub):
    def run(mod, x, y):
        torch.manual_seed(0)
        model = mod.build_model(5, 8, 3)
        return mod.fit(model, torch.utils.data.TensorDataset(x, y), 3, batch_size=8)

    g = torch.Generator().manual_seed(0)
    history = sub.probe(run, sub, torch.randn(20, 5, generator=g), torch.randint(0, 3, (20,), generator=g))
    assert isinstance(history, list) and len(history) == 3, f"fit(..., epochs=3) returned {history!r}: expected 3 losses"
    assert all(type(v) is float and v == v and abs(v) != float("inf") for v in history), \
        f"fit returned {history!r}: expected finite Python floats"
