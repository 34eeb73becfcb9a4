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


@check("api")
def test_pin_memory_follows_device(sub):
    train, val = sub.make_loaders(TensorDataset(torch.arange(4)), TensorDataset(torch.arange(4)), 2, device="cuda")
    assert train.pin_memory and val.pin_memory, "device='cuda': expected pin_memory True on both loaders"
    train, val = sub.make_loaders(TensorDataset(torch.arange(4)), TensorDataset(torch.arange(4)), 2, device="cpu")
    assert not train.pin_memory and not val.pin_memory, "device='cpu': expected pin_memory False on both loaders"
