"""Public checks for 76_leaky_data_pipeline: run them with `grader check 76`.

They check the pipeline's shape only: what it returns and that every sample lands somewhere.
Whether the batches are right is for you to find out.
"""
import torch

from grader.testing import assert_dtype, assert_shape, check


def _data():
    g = torch.Generator().manual_seed(0)
    groups = torch.arange(40) % 8
    return torch.randn(40, 3, generator=g), torch.randint(0, 2, (40,), generator=g), groups


@check("shape", weight=0.5)
def test_batches_have_the_right_shapes(sub):
    def run(mod, x, y, groups):
        train, val = mod.make_loaders(x, y, groups, val_fraction=0.25, batch_size=8, seed=0)
        return [(bx.clone(), by.clone()) for bx, by in train], [(bx.clone(), by.clone()) for bx, by in val]

    train, val = sub.probe(run, sub, *_data())
    for name, batches in (("training", train), ("validation", val)):
        assert batches, f"make_loaders gave no {name} batches"
        bx, by = batches[0]
        assert_shape(bx, (8, 3), what=f"the first {name} batch's inputs")
        assert_dtype(bx, torch.float32, what=f"the first {name} batch's inputs")
        assert_dtype(by, torch.int64, what=f"the first {name} batch's labels")


@check("value", weight=0.5)
def test_every_sample_lands_in_one_split(sub):
    x, y, groups = _data()
    train, val = sub.split_by_group(groups, 0.25, 0)
    assert sorted(train.tolist() + val.tolist()) == list(range(40)), \
        "split_by_group must put each of the 40 samples in exactly one split"
