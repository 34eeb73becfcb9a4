"""Hidden checks for 76_leaky_data_pipeline.

Each check observes one property of the pipeline and is blind to the others, so that a pipeline with
one bug left fails that bug's check alone. The data's first feature is the sample's index: whatever
statistics standardise it, the standardised values keep the samples' order, so the judge finds
which sample each row of a batch is (the rank of its first feature among all the rows of one
training pass and the validation pass) and checks the labels, the groups, the statistics and the
order against the raw data.
"""
import torch

from grader.testing import assert_close, check

N, FEATURES, GROUPS, CLASSES = 80, 4, 10, 3
VAL_FRACTION, BATCH, SEED = 0.3, 16, 76
N_VAL_GROUPS = 3                          # max(1, round(0.3 * 10))


def _data(seed=SEED):
    g = torch.Generator().manual_seed(seed)
    groups = (torch.arange(N) * 7) % GROUPS                         # 8 samples per group, interleaved
    offsets = torch.randn(GROUPS, FEATURES - 1, generator=g) * 3    # each group (patient) has its own level
    x = torch.cat([torch.arange(N, dtype=torch.float32)[:, None],
                   offsets[groups] + torch.randn(N, FEATURES - 1, generator=g)], dim=1)
    y = torch.randint(0, CLASSES, (N,), generator=g)
    return x, y, groups


def _collect(mod, x, y, groups, val_fraction, batch_size, seed, passes, lengths=False):
    """Runs in the worker: build the loaders and read `passes` passes of each (plain data). A None
    argument is left out of the call (make_loaders' default)."""
    given = {k: v for k, v in (("val_fraction", val_fraction), ("batch_size", batch_size), ("seed", seed))
             if v is not None}
    train, val = mod.make_loaders(x, y, groups, **given)

    def read(loader):
        return [(bx.detach().clone(), by.detach().clone()) for bx, by in loader]

    passes = [read(train) for _ in range(passes)], [read(val) for _ in range(passes)]
    return (passes, (len(train), len(val))) if lengths else passes


def _run(sub, passes=2, seed=SEED):
    x, y, groups = _data()
    train, val = sub.probe(_collect, sub, x, y, groups, VAL_FRACTION, BATCH, seed, passes)
    return x, y, groups, train, val


def _rows(batches):
    xs = [bx for bx, _ in batches]
    ys = [by for _, by in batches]
    return (torch.cat(xs) if xs else torch.empty(0, FEATURES)), (torch.cat(ys) if ys else torch.empty(0))


def _identify(train_pass, val_pass, what):
    """The sample index of every row of one training pass and of the validation pass: the rank of its
    standardised first feature (an increasing function of the index, whatever the statistics)."""
    tx, _ = _rows(train_pass)
    vx, _ = _rows(val_pass)
    assert len(tx) + len(vx) == N, (f"{what}: one training pass and the validation pass hold {len(tx)} + {len(vx)} "
                                    f"rows; the data set has {N} samples, each in exactly one split")
    first = torch.cat([tx[:, 0], vx[:, 0]])
    rank = torch.empty(N, dtype=torch.long)
    rank[torch.argsort(first)] = torch.arange(N)
    return rank[:len(tx)], rank[len(tx):]


@check("value", weight=3)
def test_labels_stay_with_inputs(sub):
    x, y, groups, train, val = _run(sub)
    what = f"make_loaders over {N} samples (batches of {BATCH})"
    for p in range(2):
        train_ids, val_ids = _identify(train[p], val[0], what)
        for name, ids, batches in (("training", train_ids, train[p]), ("validation", val_ids, val[0])):
            _, labels = _rows(batches)
            wrong = (labels != y[ids]).nonzero().flatten()
            assert len(wrong) == 0, (
                f"{what}: in pass {p} of the {name} batches, {len(wrong)} of {len(ids)} rows carry another sample's "
                f"label (row {int(wrong[0])} holds sample {int(ids[wrong[0]])}'s features and label "
                f"{int(labels[wrong[0]])}, its own is {int(y[ids[wrong[0]]])})")


@check("state", weight=3)
def test_validation_order_is_fixed(sub):
    x, y, groups, train, val = _run(sub)
    what = f"the validation batches of make_loaders over {N} samples (batches of {BATCH})"
    first, second = val
    assert len(first) == len(second) and all(torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
                                             for a, b in zip(first, second)), (
        f"{what}: two passes gave different batches; validation must come in the same order every pass")
    _, val_ids = _identify(train[0], first, what)
    assert val_ids.tolist() == sorted(val_ids.tolist()), (
        f"{what}: the samples came in the order {val_ids.tolist()[:12]}...; expected the validation split's order "
        "(ascending sample index)")
    sizes = [len(bx) for bx, _ in first]
    want = [BATCH] * (len(val_ids) // BATCH) + ([len(val_ids) % BATCH] if len(val_ids) % BATCH else [])
    assert sizes == want, f"{what}: batches of sizes {sizes}, expected {want}"


@check("value", weight=3)
def test_statistics_from_training_split(sub):
    x, y, groups, train, val = _run(sub)
    what = f"make_loaders over {N} samples"
    train_ids, val_ids = _identify(train[0], val[0], what)
    mean, std = x[train_ids].mean(dim=0), x[train_ids].std(dim=0)
    tx, _ = _rows(train[0])
    vx, _ = _rows(val[0])
    assert_close(tx, (x[train_ids] - mean) / std, atol=1e-4, rtol=1e-4,
                 what=f"{what}: the training features (standardised with the training split's own mean and std)")
    assert_close(vx, (x[val_ids] - mean) / std, atol=1e-4, rtol=1e-4,
                 what=f"{what}: the validation features (standardised with the training split's mean and std)")


@check("value", weight=3)
def test_groups_stay_on_one_side(sub):
    x, y, groups, train, val = _run(sub)
    what = f"make_loaders over {N} samples in {GROUPS} groups (val_fraction={VAL_FRACTION})"
    train_ids, val_ids = _identify(train[0], val[0], what)
    shared = sorted(set(groups[train_ids].tolist()) & set(groups[val_ids].tolist()))
    assert not shared, f"{what}: groups {shared} have samples in both the training and the validation split"
    n_val = len(set(groups[val_ids].tolist()))
    assert n_val == N_VAL_GROUPS, f"{what}: the validation split holds {n_val} groups, expected {N_VAL_GROUPS}"
    for fraction, n_groups in ((VAL_FRACTION, N_VAL_GROUPS), (0.1, 1), (0.01, 1), (0.5, 5)):
        tr, va = sub.split_by_group(groups, fraction, SEED)
        shared = sorted(set(groups[tr].tolist()) & set(groups[va].tolist()))
        assert not shared, f"split_by_group(val_fraction={fraction}): groups {shared} are on both sides"
        got = len(set(groups[va].tolist()))
        assert got == n_groups, (f"split_by_group(val_fraction={fraction}) over {GROUPS} groups: the validation "
                                 f"indices hold {got} groups, expected {n_groups} (max(1, round(val_fraction * G)))")


@check("value", weight=0.5)
def test_split_is_a_sorted_partition(sub):
    x, y, groups = _data()
    first = sub.split_by_group(groups, VAL_FRACTION, SEED)
    again = sub.split_by_group(groups, VAL_FRACTION, SEED)
    other = sub.split_by_group(groups, VAL_FRACTION, SEED + 1)
    for name, idx in zip(("training", "validation"), first):
        assert isinstance(idx, torch.Tensor) and idx.dtype == torch.int64, \
            f"split_by_group returned {type(idx).__name__} {getattr(idx, 'dtype', '')} {name} indices, expected int64"
        assert idx.tolist() == sorted(set(idx.tolist())), f"split_by_group: the {name} indices are not ascending"
    assert sorted(first[0].tolist() + first[1].tolist()) == list(range(N)), \
        "split_by_group: every sample must be in exactly one split"
    assert all(torch.equal(a, b) for a, b in zip(first, again)), "split_by_group: the same seed gave another split"
    assert not torch.equal(first[1], other[1]), f"split_by_group: seeds {SEED} and {SEED + 1} gave the same split"


@check("state", weight=0.5)
def test_training_batches_reshuffle(sub):
    x, y, groups, train, val = _run(sub)
    what = f"the training batches of make_loaders over {N} samples (batches of {BATCH})"
    orders = []
    for p in range(2):
        ids, _ = _identify(train[p], val[0], what)
        sizes = [len(bx) for bx, _ in train[p]]
        want = [BATCH] * (len(ids) // BATCH) + ([len(ids) % BATCH] if len(ids) % BATCH else [])
        assert sizes == want, f"{what}: pass {p} had batches of sizes {sizes}, expected {want}"
        orders.append(ids.tolist())
    assert sorted(orders[0]) == sorted(orders[1]), f"{what}: two passes visited different samples"
    assert orders[0] != orders[1] and orders[0] != sorted(orders[0]), (
        f"{what}: the passes came in the same or in ascending order; each pass must draw a fresh order")
    _, _, _, again, _ = _run(sub)
    assert all(torch.equal(a[0], b[0]) for a, b in zip(train[0], again[0])), (
        f"{what}: two pipelines built with the same seed gave different first passes")
    x, y, groups = _data()
    (train, val), lengths = sub.probe(_collect, sub, x, y, groups, None, None, None, 1, True)
    assert lengths == (len(train[0]), len(val[0])), (
        f"with its defaults, len() of the two loaders is {lengths}, but they yielded {len(train[0])} and "
        f"{len(val[0])} batches")
    (same, _), _ = sub.probe(_collect, sub, x, y, groups, 0.2, 32, 0, 1, True)
    assert len(same[0]) == len(train[0]) and all(torch.equal(a[0], b[0]) for a, b in zip(same[0], train[0])), (
        "make_loaders(x, y, groups) must equal make_loaders(x, y, groups, val_fraction=0.2, batch_size=32, seed=0)")
