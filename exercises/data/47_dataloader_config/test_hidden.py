"""Hidden checks for 47_dataloader_config.

The loaders are built and iterated inside a probe, over TensorDatasets of sample ids (train ids
0.., val ids 100..), so a batch names its samples. Iteration and length go through
DataLoader's own `__iter__`/`__len__` and the datasets are read from the loaders' `__dict__`
(probes.instance_attrs): a DataLoader subclass cannot redefine what the checks see. Pinning and
worker reuse are graded by what the loaders do (a host made to look like a CUDA one, the pids of
the processes that load each epoch), not by their settings. What comes back is plain data (lists
of ids per batch), compared in the judge with what the contract says.
"""
import torch

from grader.testing import check, requires_cuda

N_TRAIN, N_VAL, BATCH = 10, 10, 3


def _read(loader, epochs):
    """Epochs of one loader, each a list of batches of sample ids, and DataLoader.__len__."""
    from torch.utils.data import DataLoader

    out = []
    for _ in range(epochs):
        batches = []
        for batch in DataLoader.__iter__(loader):
            ids = batch[0] if isinstance(batch, (list, tuple)) else batch
            batches.append([int(v) for v in ids.reshape(-1)])
        out.append(batches)
    return {"len": DataLoader.__len__(loader), "epochs": out}


def _observe(mod, runs, n_train=N_TRAIN, n_val=N_VAL, batch_size=BATCH, epochs=2):
    """Build the loaders once per run ({"kwargs": ..., "reseed": global seed set after building or
    None}) and read `epochs` epochs of each; None for a run whose result is not two DataLoaders
    over the datasets given."""
    from torch.utils.data import DataLoader, TensorDataset

    from grader import probes

    seen = []
    for run in runs:
        train_ds = TensorDataset(torch.arange(n_train))
        val_ds = TensorDataset(torch.arange(100, 100 + n_val))
        pair = mod.make_loaders(train_ds, val_ds, batch_size, **run["kwargs"])
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2
                and all(issubclass(type(loader), DataLoader) for loader in pair)):
            seen.append(None)
            continue
        held = [probes.instance_attrs(loader).get("dataset") for loader in pair]
        if not (held[0] is train_ds and held[1] is val_ds):
            seen.append("datasets")
            continue
        if run.get("reseed") is not None:
            torch.manual_seed(run["reseed"])
        seen.append({"train": _read(pair[0], epochs), "val": _read(pair[1], epochs)})
        del pair
    return seen


def _loaders_ok(result):
    assert result is not None, "make_loaders must return (train_loader, val_loader), two DataLoaders"
    assert result != "datasets", "the first loader must load train_ds and the second val_ds"
    return result


def _check_train_epochs(train, n=N_TRAIN, batch_size=BATCH):
    assert train["len"] == n // batch_size, \
        f"len(train_loader) is {train['len']} for {n} samples and batch_size={batch_size}: expected {n // batch_size} (drop_last)"
    for k, epoch in enumerate(train["epochs"]):
        sizes = [len(b) for b in epoch]
        assert sizes == [batch_size] * (n // batch_size), \
            f"train epoch {k} yielded batches of sizes {sizes}: expected {n // batch_size} full batches of {batch_size} (drop_last)"
        ids = [i for b in epoch for i in b]
        assert len(set(ids)) == len(ids) and set(ids) <= set(range(n)), \
            f"train epoch {k} yielded samples {ids}: each sample of train_ds at most once expected"
    orders = [[i for b in epoch for i in b] for epoch in train["epochs"]]
    assert all(order != orders[0] for order in orders[1:]), \
        f"every train epoch yielded the same order {orders[0]}: shuffle anew each epoch"


def _check_val_epochs(val, n=N_VAL, batch_size=BATCH):
    want = [list(range(100 + s, 100 + min(s + batch_size, n))) for s in range(0, n, batch_size)]
    assert val["len"] == len(want), f"len(val_loader) is {val['len']}, expected {len(want)} (the partial batch counts)"
    for k, epoch in enumerate(val["epochs"]):
        assert epoch == want, f"val epoch {k} yielded {epoch}: expected every sample once, in order, batches of {batch_size} and a partial last batch: {want}"


@check("value")
def test_val_in_order_partial_batch(sub):
    (seen,) = sub.probe(_observe, sub, [{"kwargs": {"seed": 3}, "reseed": 55}], n_val=11, batch_size=4)
    _check_val_epochs(_loaders_ok(seen)["val"], n=11, batch_size=4)


@check("value")
def test_train_epochs_drop_last_reshuffle(sub):
    (seen,) = sub.probe(_observe, sub, [{"kwargs": {"seed": 3}}], epochs=3)
    _check_train_epochs(_loaders_ok(seen)["train"])


def _orders(result):
    return [[i for b in epoch for i in b] for epoch in _loaders_ok(result)["train"]["epochs"]]


@check("value")
def test_seed_reproducible(sub):
    first, again, other, zero, default = sub.probe(
        _observe, sub, [{"kwargs": {"seed": 5}}, {"kwargs": {"seed": 5}}, {"kwargs": {"seed": 6}},
                        {"kwargs": {"seed": 0}}, {"kwargs": {}}])
    assert _orders(first) == _orders(again), \
        f"two make_loaders(seed=5) gave the train orders {_orders(first)} and {_orders(again)}: the same seed must give the same epochs"
    assert _orders(other) != _orders(first), "seed=5 and seed=6 gave the same train epochs: the order must depend on seed"
    assert _orders(default) == _orders(zero), "make_loaders without seed must be make_loaders(seed=0) (the signature's default)"


@check("value")
def test_own_generator(sub):
    quiet, reseeded = sub.probe(_observe, sub, [{"kwargs": {"seed": 7}, "reseed": 1},
                                                {"kwargs": {"seed": 7}, "reseed": 123}])
    assert _orders(quiet) == _orders(reseeded), \
        ("torch.manual_seed(123) called between make_loaders(seed=7) and the first epoch changed the train order: "
         "shuffle with a torch.Generator of the loader's own")


@check("api")
def test_pin_memory_and_persistent_workers(sub):
    def behaviour(mod, devices, workers_list):
        """Pinning: the loaders built and iterated (num_workers=0) on a host made to look like a
        CUDA one, with DataLoader's pinning step replaced by a counter. Workers: the processes that
        load each epoch's batches (os.getpid() in the dataset), two epochs per loader."""
        import os

        from torch.utils.data import DataLoader, Dataset, TensorDataset

        from grader import probes

        def build(train_ds, val_ds, **kwargs):
            pair = mod.make_loaders(train_ds, val_ds, 2, **kwargs)
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2
                    and all(issubclass(type(loader), DataLoader) for loader in pair)):
                return None
            if not isinstance(pair, tuple):
                return "tuple"
            attrs = [probes.instance_attrs(loader) for loader in pair]
            if not (attrs[0].get("dataset") is train_ds and attrs[1].get("dataset") is val_ds):
                return "datasets"
            return pair

        pins = []
        for device in devices:
            pinned = []

            def fake_pin(data, device=None):
                pinned.append(1)
                return data

            with probes.replace("torch.cuda.is_available", "torch.accelerator.is_available", returns=True, module=mod), \
                    probes.replace("torch.accelerator.current_accelerator", returns=torch.device("cuda", 0), module=mod), \
                    probes.substitute("torch.utils.data._utils.pin_memory.pin_memory", fake_pin):
                train_ds, val_ds = TensorDataset(torch.arange(6)), TensorDataset(torch.arange(5))
                pair = (build(train_ds, val_ds) if device == "default"   # the defaults: num_workers=0, device="cpu"
                        else build(train_ds, val_ds, num_workers=0, device=device, seed=0))
                if not isinstance(pair, tuple):
                    return pair
                row = []
                for loader in pair:
                    before = len(pinned)
                    batches = sum(1 for _ in DataLoader.__iter__(loader))
                    row.append((len(pinned) - before, batches))
            pins.append((device if isinstance(device, str) else repr(device), row))

        class Pids(Dataset):
            def __len__(self):
                return 12

            def __getitem__(self, i):
                return torch.tensor(os.getpid())

        procs = []
        for workers in workers_list:
            train_ds, val_ds = Pids(), Pids()
            pair = (build(train_ds, val_ds) if workers == "default"
                    else build(train_ds, val_ds, num_workers=workers, device="cpu", seed=0))
            if not isinstance(pair, tuple):
                return pair
            row = [[sorted({int(p) for batch in DataLoader.__iter__(loader) for p in batch.reshape(-1)})
                    for _ in range(2)] for loader in pair]
            procs.append((workers, row))
            del pair
        return {"pins": pins, "procs": procs, "main": os.getpid()}

    devices = ["cpu", "cuda", "cuda:0", torch.device("cpu"), torch.device("cuda", 0), "default"]
    seen = _loaders_ok(sub.probe(behaviour, sub, devices, [0, 1, 2, "default"]))
    assert seen != "tuple", "make_loaders must return a tuple (train_loader, val_loader), not a list"
    for device, row in seen["pins"]:
        cuda = "cuda" in device
        for name, (pinned, batches) in zip(("train", "val"), row):
            assert pinned == (batches if cuda else 0), (
                f"device={device}, on a host where torch reports a CUDA device: {pinned} of the {batches} batches "
                f"of the {name} loader were put in page-locked memory, expected {'all' if cuda else 'none'} "
                "(decided from the device argument)")
    for workers, row in seen["procs"]:
        want = 0 if workers == "default" else workers
        for name, (first, second) in zip(("train", "val"), row):
            if want == 0:
                assert first == second == [seen["main"]], \
                    f"num_workers={workers}: the {name} loader's batches came from other processes than the caller's"
                continue
            assert seen["main"] not in first and len(first) == want, \
                f"num_workers={workers}: the {name} loader's first epoch was loaded by {len(first)} worker processes"
            assert second == first, (f"num_workers={workers}: the {name} loader started new worker processes "
                                     "for its second epoch instead of reusing those of the first")


@requires_cuda
@check("device")
def test_cuda_batches_pinned(sub):
    def pinned(mod):
        from torch.utils.data import DataLoader, TensorDataset

        pair = mod.make_loaders(TensorDataset(torch.arange(8.0)), TensorDataset(torch.arange(5.0)), 2, device="cuda")
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2
                and all(issubclass(type(loader), DataLoader) for loader in pair)):
            return None
        out = []
        for loader in pair:
            batch = next(DataLoader.__iter__(loader))
            x = batch[0] if isinstance(batch, (list, tuple)) else batch
            out.append((x.device.type, bool(x.is_pinned()), x.tolist()))
        return out

    seen = _loaders_ok(sub.probe(pinned, sub))
    for name, (device_type, is_pinned, values), first in zip(("train", "val"), seen, (None, [0.0, 1.0])):
        assert device_type == "cpu", f"the {name} loader's batches are on {device_type}: the loader yields CPU batches"
        assert is_pinned, f"device='cuda': the {name} loader's first batch is not in pinned memory"
        assert first is None or values == first, f"the val loader's first batch is {values}, expected {first}"


@check("value")
def test_two_workers(sub):
    (seen,) = sub.probe(_observe, sub, [{"kwargs": {"seed": 2, "num_workers": 2}, "reseed": 9}])
    seen = _loaders_ok(seen)
    _check_val_epochs(seen["val"])
    _check_train_epochs(seen["train"])
