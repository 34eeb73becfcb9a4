"""Hidden checks for 52_out_of_core_data.

Files are written by probes into the worker's scratch folder (the 400 MB one sparse, so it costs
no disk and no time); what the datasets yield comes back as plain data and is compared here with
the values written. Memory growth is measured from outside the worker (sub.measure_memory), time
with the judge reading the worker's CPU time from outside (sub.cpu_timed).
"""
import numpy as np
import torch

from grader.testing import assert_dtype, assert_shape, check

BIG_ROWS, BIG_F = 100_000, 1_000          # 400 MB of float32
ROWS, F = 64, 8                           # the small file: 2 KB


def _write_rows(mod, name, rows, feats, sparse=False):
    import os

    path = os.path.abspath(name)
    with open(path, "wb") as f:
        if sparse:
            f.truncate(rows * feats * 4)
        else:
            data = np.arange(rows * feats, dtype=np.float32).reshape(rows, feats) * 0.5 - 3.0
            f.write(data.tobytes())
    os.chmod(path, 0o444)                 # data files are often read-only: open them for reading
    return path


def _small_rows():
    return np.arange(ROWS * F, dtype=np.float32).reshape(ROWS, F) * 0.5 - 3.0


def _write_lines(mod, contents):
    import os

    paths = []
    for i, values in enumerate(contents):
        path = os.path.abspath(f"shard{i}.txt")
        with open(path, "w") as f:
            f.write("".join(f"{v}\n" for v in values))
        paths.append(path)
    return paths


LINES = [list(range(0, 7)), [100 + 3 * i for i in range(5)] + [-4, 7], list(range(1000, 1009))]


@check("perf", weight=2)
def test_construct_is_lazy(sub):
    path = sub.probe(_write_rows, sub, "big.f32", BIG_ROWS, BIG_F, sparse=True)

    def construct(mod, path, rows, feats):
        from grader import probes

        with probes.spy("numpy.fromfile", "numpy.load", "numpy.loadtxt", "numpy.genfromtxt",
                        "numpy.frombuffer", "torch.from_file", module=mod) as seen:
            ds = mod.MemmapDataset(path, rows, feats)
        row = ds[rows - 1]
        return seen.names(), (len(ds), row.clone() if isinstance(row, torch.Tensor) else repr(row))

    def nothing(mod, path, rows, feats):
        return [], (rows, torch.zeros(feats))

    sub.cpu_timed(nothing, sub, path, BIG_ROWS, BIG_F)
    _, base = sub.cpu_timed(nothing, sub, path, BIG_ROWS, BIG_F)
    (calls, (n, row)), seconds = sub.cpu_timed(construct, sub, path, BIG_ROWS, BIG_F)
    assert n == BIG_ROWS, f"len(ds) is {n}, expected {BIG_ROWS}"
    assert_dtype(row, torch.float32, what="the last row of the 400 MB file")
    assert_shape(row, (BIG_F,), what="the last row of the 400 MB file")
    assert not row.any(), "the last row of the (all-zero) 400 MB file is not zeros"
    assert not calls, f"MemmapDataset.__init__ read the file ({sorted(set(calls))}): open it lazily, on first access"
    _, growth = sub.measure_memory(sub.MemmapDataset, path, BIG_ROWS, BIG_F)
    assert growth < 20 * 2**20, (f"constructing MemmapDataset over a 400 MB file raised resident memory by "
                                 f"{growth / 2**20:.0f} MiB (limit 20 MiB): do not read the file in __init__")
    assert seconds - base < 0.5, (f"constructing MemmapDataset over a 400 MB file took {seconds - base:.3f} s of CPU "
                                   "more than an empty request (limit 0.5 s; np.fromfile of it takes seconds)")


@check("value", weight=2)
def test_item_row_writable_owned(sub):
    def items(mod, rows, feats):
        from grader import probes

        path = _write_rows(mod, "rows.f32", rows, feats)
        ds = mod.MemmapDataset(path, rows, feats)
        with probes.capture_warnings() as log:
            got = [ds[i] for i in (0, 5, rows - 1)]
        seen = {"len": len(ds), "warnings": log.count("UserWarning", match="not writable"), "tampered": log.tampered,
                "items": [g.clone() if isinstance(g, torch.Tensor) else repr(g) for g in got]}
        if seen["warnings"] or not all(isinstance(g, torch.Tensor) for g in got):
            return seen                            # writing into a read-only mapping may crash
        t = got[1]
        t.add_(1000.0)
        seen["again"] = ds[5].clone()
        with open(path, "rb") as f:
            seen["file_row"] = np.frombuffer(f.read(), dtype=np.float32).reshape(rows, feats)[5].copy()
        seen["owned"] = t.untyped_storage().nbytes() == feats * 4
        return seen

    want = _small_rows()
    seen = sub.probe(items, sub, ROWS, F)
    assert seen["len"] == ROWS, f"len(ds) is {seen['len']}, expected {ROWS}"
    assert not seen["tampered"], f"ds[i] changed the warnings machinery ({seen['tampered']}): a warning may have been hidden"
    assert seen["warnings"] == 0, ("ds[i] raised torch's 'non-writable NumPy array' UserWarning: the tensor "
                                   "shares a read-only memmap; copy the row")
    for i, got in zip((0, 5, ROWS - 1), seen["items"]):
        assert_dtype(got, torch.float32, what=f"ds[{i}]")
        assert_shape(got, (F,), what=f"ds[{i}]")
        assert torch.equal(got, torch.from_numpy(want[i])), f"ds[{i}] is {got.tolist()}, expected row {i}"
    assert torch.equal(seen["again"], torch.from_numpy(want[5])), "writing into ds[5] changed what ds[5] returns next time"
    assert np.array_equal(seen["file_row"], want[5]), "writing into ds[5] changed the file"
    assert seen["owned"], "ds[i] is a view into a larger buffer: return a tensor that owns its (F,) row"


@check("state")
def test_pickle_small_and_loader_once(sub):
    def pickled(mod, rows, feats):
        import pickle

        from torch.utils.data import DataLoader

        path = _write_rows(mod, "rows.f32", rows, feats)
        ds = mod.MemmapDataset(path, rows, feats)
        size = len(pickle.dumps(ds))
        first = ds[0]
        size_after = len(pickle.dumps(ds)) if isinstance(first, torch.Tensor) else None
        copied = pickle.loads(pickle.dumps(ds))[3]          # what a spawned worker would read
        copied = copied.clone() if isinstance(copied, torch.Tensor) else repr(copied)
        loader = DataLoader(ds, batch_size=5, num_workers=2, multiprocessing_context="fork")
        batches = [b.clone() for b in loader]
        return size, size_after, copied, batches

    size, size_after, copied, batches = sub.probe(pickled, sub, ROWS, F)
    assert isinstance(copied, torch.Tensor) and torch.equal(copied, torch.from_numpy(_small_rows()[3])), (
        f"a pickled-and-loaded dataset (as a spawned worker gets it) returned {copied} for row 3")
    assert size < 1024, f"pickle.dumps(ds) before any access is {size} bytes (limit 1 KB): do not keep the memmap (or the data) in the pickled state"
    assert size_after is not None and size_after < 1024, (
        f"pickle.dumps(ds) after ds[0] is {size_after} bytes (limit 1 KB): the map this process opened travels "
        "to every spawned worker as a copy of the data; leave it out of the pickled state (__getstate__)")
    got = torch.cat(batches)
    assert_dtype(got, torch.float32, what="the loader's rows")
    assert_shape(got, (ROWS, F), what="all rows from DataLoader(num_workers=2)")
    assert torch.equal(got, torch.from_numpy(_small_rows())), "DataLoader(num_workers=2) did not yield every row exactly once, in order"


def _stream(mod, contents, workers_list):
    from torch.utils.data import DataLoader

    paths = _write_lines(mod, contents)
    ds = mod.ShardedLineStream(paths)
    out = {}
    for workers in workers_list:
        kw = {"multiprocessing_context": "fork"} if workers else {}
        items = list(DataLoader(ds, batch_size=None, num_workers=workers, **kw))
        out[workers] = [(t.dtype, tuple(t.shape), t.tolist()) if isinstance(t, torch.Tensor) else (repr(type(t)), None, t)
                        for t in items]
    out["direct"] = [(t.dtype, tuple(t.shape)) if isinstance(t, torch.Tensor) else (repr(type(t)), None) for t in ds]
    return out


@check("value", weight=2)
def test_stream_each_line_once(sub):
    out = sub.probe(_stream, sub, LINES, [0, 1, 2, 3])
    want = sorted(v for values in LINES for v in values)
    for workers in (0, 1, 2, 3):
        got = sorted(v for _, _, v in out[workers] if isinstance(v, int))
        assert len(out[workers]) == len(want) and got == want, (
            f"ShardedLineStream with num_workers={workers} yielded {len(out[workers])} items {sorted(v for _, _, v in out[workers])}, "
            f"expected each of the {len(want)} lines exactly once")


@check("dtype")
def test_stream_int64_scalars(sub):
    out = sub.probe(_stream, sub, LINES, [0, 2])
    for key in (0, 2, "direct"):
        for item in out[key]:
            dtype, shape = item[0], item[1]
            assert dtype == torch.int64 and shape == (), (
                f"ShardedLineStream yielded an item of dtype {dtype}, shape {shape} ({key} workers): expected int64 0-dim tensors")
    assert len(out["direct"]) == sum(len(v) for v in LINES), "iterating the dataset directly missed lines"


@check("api")
def test_stream_uses_worker_info(sub):
    def per_worker(mod, contents):
        import os
        import sys

        from torch.utils.data import DataLoader

        from grader import probes

        paths = _write_lines(mod, contents)
        log = os.path.abspath("worker_info_calls.txt")
        own = os.path.abspath(mod.__file__)

        def make(target, original, key):
            def wrapper(*args, **kwargs):
                caller = sys._getframe(1).f_code.co_filename
                if os.path.abspath(caller) == own:
                    with open(log, "a") as f:
                        f.write(f"{os.getpid()}\n")
                return original(*args, **kwargs)
            return wrapper

        with probes._Patch(("torch.utils.data.get_worker_info", "torch.utils.data._utils.worker.get_worker_info"), mod, make,
                            watch=False):
            items = list(DataLoader(mod.ShardedLineStream(paths), batch_size=None, num_workers=2,
                                    multiprocessing_context="fork"))
        pids = set()
        if os.path.exists(log):
            with open(log) as f:
                pids = {line.strip() for line in f if line.strip()}
        return len(pids), str(os.getpid()) in pids, len(items)

    workers, in_main, n = sub.probe(per_worker, sub, LINES)
    assert workers >= 2 and not (in_main and workers < 3), (
        f"torch.utils.data.get_worker_info() was called from the submission in {workers} process(es): each of "
        "the 2 workers must ask which shard is its own")
    assert n == sum(len(v) for v in LINES), f"the two-worker stream yielded {n} items"
