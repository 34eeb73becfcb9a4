"""Hidden checks for 46_map_style_dataset.

Every dataset is built inside a probe from arrays the judge sends; what comes back (items,
batches, spy counts) is compared in the judge with the arrays themselves.
"""
import numpy as np
import pytest
import torch

from grader.testing import assert_close, assert_dtype, assert_shape, check

N, FEAT = 10, 3


def _arrays(n=N):
    rng = np.random.default_rng(46)
    X = rng.normal(size=(n, FEAT))                      # float64
    y = rng.permutation(n).astype(np.int32) % 5         # int32 labels
    return X, y


def _expected(X, y, i):
    return torch.from_numpy(X[i]).float(), torch.tensor(int(y[i]))


def _item_ok(item, X, y, i, what):
    assert isinstance(item, tuple) and len(item) == 2, f"{what} must be a tuple (features, label), got {type(item).__name__}"
    features, label = item
    want_x, want_y = _expected(X, y, i)
    assert_dtype(features, torch.float32, what=f"features of {what}")
    assert_shape(features, (FEAT,), what=f"features of {what}")
    assert_close(features, want_x, what=f"features of {what}")
    assert_dtype(label, torch.int64, what=f"label of {what}")
    assert_shape(label, (), what=f"label of {what}")
    assert int(label) == int(want_y), f"label of {what} is {int(label)}, expected {int(want_y)}"


@check("value")
def test_len_and_length_mismatch(sub):
    X, y = _arrays(13)
    assert sub.probe(lambda mod, X, y: len(mod.TabularDataset(X, y)), sub, X, y) == 13, "len(ds) must be N"
    with pytest.raises(ValueError):
        sub.TabularDataset(X[:5], y[:4])
    with pytest.raises(ValueError):
        sub.TabularDataset(X[:4], y[:5])


@check("dtype")
def test_item_and_batch_dtypes(sub):
    def items(mod, X, y):
        from torch.utils.data import DataLoader

        ds = mod.TabularDataset(X, y)
        batch = next(iter(DataLoader(ds, batch_size=8)))
        return ds[3], tuple(batch) if isinstance(batch, (list, tuple)) else batch

    X, y = _arrays()
    item, batch = sub.probe(items, sub, X, y)
    _item_ok(item, X, y, 3, "ds[3]")
    assert isinstance(batch, tuple) and len(batch) == 2, "a DataLoader batch must be (features, labels)"
    xb, yb = batch
    assert_dtype(xb, torch.float32, what="the batch of features")
    assert_shape(xb, (8, FEAT), what="the batch of features (batch_size=8)")
    assert_dtype(yb, torch.int64, what="the batch of labels")
    assert_shape(yb, (8,), what="the batch of labels (batch_size=8)")
    assert_close(xb, torch.from_numpy(X[:8]).float(), what="the first batch of features")
    assert torch.equal(yb, torch.from_numpy(y[:8]).long()), "the first batch of labels"


@check("perf")
def test_no_conversion_per_item(sub):
    def spied(mod, X, y):
        from grader import probes

        ds = mod.TabularDataset(X, y)
        n = len(X)
        with probes.spy("torch.tensor", "torch.as_tensor", "torch.from_numpy", module=mod) as seen:
            items = [ds[i % n] for i in range(1000)]
        # What the spy cannot see (a converter kept under a name built at run time): an item
        # converted in __init__ is a tensor held across calls, or a view of one (same _base)
        again = ds[0]
        fresh = [part for part, a, b in (("features", items[0][0], again[0]), ("label", items[0][1], again[1]))
                 if not (type(a) is torch.Tensor and type(b) is torch.Tensor
                         and (a is b or (a._base is not None and a._base is b._base)))]
        return seen.names(), items[-n:], fresh

    X, y = _arrays()
    calls, last, fresh = sub.probe(spied, sub, X, y)
    assert len(last) == N
    for k, item in enumerate(last):
        _item_ok(item, X, y, (1000 - N + k) % N, f"ds[{(1000 - N + k) % N}]")
    assert not calls, (f"1000 calls of __getitem__ made {len(calls)} tensor conversions "
                       f"({sorted(set(calls))}): convert X and y once, in __init__")
    assert not fresh, (f"ds[0] returned new tensors for its {' and '.join(fresh)} on each call, neither held by the "
                       f"dataset nor views of a tensor it holds: convert X and y once, in __init__, and index "
                       f"those tensors")


@check("value")
def test_negative_index_and_index_error(sub):
    def indexing(mod, X, y):
        import itertools

        ds = mod.TabularDataset(X, y)
        n = len(X)
        seen = {"last": ds[-1], "first": ds[-n]}
        for name, i in (("past_end", n), ("before_start", -n - 1)):
            try:
                ds[i]
                seen[name] = "no error"
            except IndexError:
                seen[name] = "IndexError"
            except NotImplementedError:
                raise
            except Exception as exc:  # noqa: BLE001 - the kind of error is what we report
                seen[name] = type(exc).__name__
        seen["iterated"] = sum(1 for _ in itertools.islice(iter(ds), n + 5))
        return seen

    X, y = _arrays()
    seen = sub.probe(indexing, sub, X, y)
    _item_ok(seen["last"], X, y, N - 1, "ds[-1]")
    _item_ok(seen["first"], X, y, 0, f"ds[-{N}]")
    assert seen["past_end"] == "IndexError", f"ds[N] must raise IndexError, got: {seen['past_end']}"
    assert seen["before_start"] == "IndexError", f"ds[-N-1] must raise IndexError, got: {seen['before_start']}"
    assert seen["iterated"] == N, f"`for sample in ds` yielded {seen['iterated']} samples (stopped at N+5), expected {N}"


@check("value")
def test_transform_on_features_only(sub):
    def counted(mod, X, y):
        calls = []

        def transform(x):
            calls.append(x.clone() if isinstance(x, torch.Tensor) else repr(type(x)))
            return x * 2 + 1

        ds = mod.TabularDataset(X, y, transform=transform)
        at_init = len(calls)
        items = [ds[i] for i in (4, 0, 4)]
        return at_init, calls[at_init:], items

    X, y = _arrays()
    at_init, calls, items = sub.probe(counted, sub, X, y)
    assert at_init == 0, f"__init__ called the transform {at_init} times: transforms run in __getitem__, per access"
    assert len(calls) == 3, f"3 calls of __getitem__ called the transform {len(calls)} times, expected once each"
    for call, i in zip(calls, (4, 0, 4)):
        assert isinstance(call, torch.Tensor), f"the transform received {call}, expected the features tensor"
        assert_dtype(call, torch.float32, what="what the transform received")
        assert_shape(call, (FEAT,), what="what the transform received (the features only)")
        assert_close(call, _expected(X, y, i)[0], what=f"what the transform received for ds[{i}]")
    for item, i in zip(items, (4, 0, 4)):
        assert isinstance(item, tuple) and len(item) == 2, "an item must be a tuple (features, label)"
        features, label = item
        assert_close(features, _expected(X, y, i)[0] * 2 + 1, what=f"features of ds[{i}] (the transform's result)")
        assert_dtype(label, torch.int64, what=f"label of ds[{i}]")
        assert_shape(label, (), what=f"label of ds[{i}]")
        assert int(label) == int(y[i]), f"the label of ds[{i}] went through the transform (or is wrong)"


@check("value")
def test_dataloader_two_workers(sub):
    def loaded(mod, X, y):
        from torch.utils.data import DataLoader

        ds = mod.TabularDataset(X, y)
        loader = DataLoader(ds, batch_size=4, num_workers=2, multiprocessing_context="fork")
        xs, ys = [], []
        for xb, yb in loader:
            xs.append(xb)
            ys.append(yb)
        return torch.cat(xs), torch.cat(ys)

    X, _ = _arrays()
    y = np.arange(N, dtype=np.int64)[::-1].copy()       # distinct labels name the samples
    xs, ys = sub.probe(loaded, sub, X, y)
    assert_dtype(ys, torch.int64, what="labels from the loader")
    assert sorted(ys.tolist()) == list(range(N)), f"two workers yielded samples {ys.tolist()}: each sample exactly once expected"
    assert_shape(xs, (N, FEAT), what="all features from the loader")
    order = torch.as_tensor([N - 1 - int(v) for v in ys])
    assert_close(xs, torch.from_numpy(X).float()[order], what="features from the two-worker loader")
