"""Public checks for 47_dataloader_config: run them with `grader check 47`."""
import torch
from torch.utils.data import TensorDataset

from grader.testing import check


def _ids(loader):
    return [batch[0].tolist() for batch in loader]


@check("value")
def test_val_in_order(sub):
    train, val = sub.make_loaders(TensorDataset(torch.arange(8)), TensorDataset(torch.arange(5)), 2)
    assert _ids(val) == [[0, 1], [2, 3], [4]], "val: expected the batches [[0, 1], [2, 3], [4]]"


@check("value")
def test_train_drop_last_and_seed(sub):
    train, _ = sub.make_loaders(TensorDataset(torch.arange(7)), TensorDataset(torch.arange(5)), 2, seed=1)
    assert len(train) == 3, "7 samples in batches of 2: expected len(train_loader) == 3"
    epoch = _ids(train)
    assert [len(b) for b in epoch] == [2, 2, 2]
    again, _ = sub.make_loaders(TensorDataset(torch.arange(7)), TensorDataset(torch.arange(5)), 2, seed=1)
    assert _ids(again) == epoch, "the same seed must give the same first epoch"


@check("value")
def test_train_order_ignores_global_seed(sub):
    def first_epoch(mod, global_seed):
        train, _ = mod.make_loaders(TensorDataset(torch.arange(8)), TensorDataset(torch.arange(4)), 2, seed=4)
        torch.manual_seed(global_seed)          # between building the loader and iterating it
        return [b[0].tolist() for b in train]

    assert sub.probe(first_epoch, sub, 1) == sub.probe(first_epoch, sub, 123), \
        "make_loaders(seed=4): torch.manual_seed(1) or (123) before the epoch must not change its order"
