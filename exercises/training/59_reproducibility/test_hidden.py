"""Hidden checks for 59_reproducibility.

Everything runs inside probes, in the worker, because what is graded is the worker's global state
(its random generators, torch's determinism switches, its environment). Every check runs in a
fresh worker; each probe also starts from a clean state of its own (`_clean_globals`: determinism
switches off, `CUBLAS_WORKSPACE_CONFIG` unset, whatever the grading image or the submission's
import set) and puts back what it found when it ends. Before each call of the submission the
probe moves torch's, numpy's and Python's generators to a state of its own, different every
time, so only what the submission seeds can make two runs agree.

Datasets are classes defined inside the probes: DataLoader workers get them by fork (the
platform's default start method), which is why no dataset has to be importable by a spawned
interpreter. What comes back is plain data (loss curves, parameters, sample ids, noise draws),
compared here.
"""
import pytest
import torch

from grader.testing import check, requires_cuda

DET_ENV = ("CUBLAS_WORKSPACE_CONFIG",)   # the determinism variables a grading image may set


def _clean_globals():
    """Runs in the worker: switch determinism off, unset DET_ENV; return what was there."""
    import os

    saved = {"algorithms": torch.are_deterministic_algorithms_enabled(),
             "warn_only": torch.is_deterministic_algorithms_warn_only_enabled(),
             "cudnn_deterministic": torch._C._get_cudnn_deterministic(),
             "cudnn_benchmark": torch._C._get_cudnn_benchmark(),
             "env": {key: os.environ.get(key) for key in DET_ENV}}
    torch.use_deterministic_algorithms(False)
    torch._C._set_cudnn_deterministic(False)
    torch._C._set_cudnn_benchmark(False)
    for key in DET_ENV:
        os.environ.pop(key, None)
    return saved


def _restore_globals(saved):
    import os

    torch.use_deterministic_algorithms(saved["algorithms"], warn_only=saved["warn_only"])
    torch._C._set_cudnn_deterministic(saved["cudnn_deterministic"])
    torch._C._set_cudnn_benchmark(saved["cudnn_benchmark"])
    for key, value in saved["env"].items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def _scramble(k):
    """Move every global generator to a state of its own (k), so that only seeding agrees."""
    import random

    import numpy as np

    torch.manual_seed(1000 + k)
    np.random.seed(1000 + k)
    random.seed(1000 + k)


def _strict_raises():
    """Runs in the worker: does an operation without a deterministic implementation raise? (CPU's
    `Tensor.put_` without accumulate is one: it raises only in deterministic-algorithms mode, and
    only warns with warn_only=True.)"""
    try:
        torch.zeros(4).put_(torch.tensor([0, 0]), torch.tensor([1.0, 2.0]))
    except RuntimeError as err:
        return "deterministic" in str(err)
    return False


def _flags():
    """What strict mode changed: the behaviour seen on a CPU (`raises`), and the two GPU switches
    a CPU host cannot observe by their effect (cuDNN's autotuner, cuBLAS's workspace)."""
    import os

    return {"raises": _strict_raises(),
            "cudnn_benchmark": torch._C._get_cudnn_benchmark(),
            "cublas": os.environ.get("CUBLAS_WORKSPACE_CONFIG")}


# --- set_seed -------------------------------------------------------------------------------------

@check("value")
def test_rngs_repeat_after_set_seed(sub):
    def draws(mod, seeds):
        import random

        import numpy as np

        from grader import probes

        saved = _clean_globals()
        try:
            out = []
            for k, seed in enumerate(seeds):
                _scramble(k)
                returned = mod.set_seed(seed)
                out.append({"returned": type(returned).__name__, "torch": torch.rand(4),
                            "numpy": [float(v) for v in np.random.rand(4)],
                            "random": [random.random() for _ in range(4)]})
            _scramble(len(seeds))
            with probes.spy("torch.cuda.manual_seed_all", module=mod) as seen:
                mod.set_seed(seeds[0])
            cuda = [args[0] if args else kwargs.get("seed") for _, args, kwargs in seen.calls]
            return out, [int(s) if isinstance(s, int) else repr(s) for s in cuda]
        finally:
            _restore_globals(saved)

    (first, again, other), cuda = sub.probe(draws, sub, [7, 7, 8])
    assert first["returned"] == "NoneType", f"set_seed returned a {first['returned']}: it returns None"
    for rng in ("torch", "numpy", "random"):
        same = torch.equal(first[rng], again[rng]) if rng == "torch" else first[rng] == again[rng]
        assert same, (f"{rng}: the draws after set_seed(7) differ from those after another set_seed(7) "
                      f"(the generators were moved elsewhere in between): set_seed must seed {rng}")
        differ = not torch.equal(first[rng], other[rng]) if rng == "torch" else first[rng] != other[rng]
        assert differ, f"{rng}: set_seed(7) and set_seed(8) give the same draws: seed {rng} with the seed given"
    assert 7 in cuda, ("set_seed(7) never reached torch.cuda.manual_seed_all(7) (torch.manual_seed calls it, "
                       f"saw {cuda}): every CUDA generator must be seeded too")


@check("state")
def test_deterministic_flags(sub):
    def flags(mod):
        saved = _clean_globals()
        try:
            torch._C._set_cudnn_benchmark(True)        # an autotuner left on must be switched off
            _scramble(0)
            returned = mod.set_seed(11, deterministic=True)
            seen = _flags()
            seen["returned"] = type(returned).__name__
            seen["rand"] = torch.rand(4)
            _scramble(1)
            mod.set_seed(11, False)
            seen["rand_plain"] = torch.rand(4)
            return seen
        finally:
            _restore_globals(saved)

    seen = sub.probe(flags, sub)
    assert seen["returned"] == "NoneType", f"set_seed returned a {seen['returned']}: it returns None"
    assert torch.equal(seen["rand"], seen["rand_plain"]), \
        "set_seed(11, deterministic=True) seeds torch differently from set_seed(11, False): it must seed the same way"
    assert seen["raises"], ("after set_seed(11, deterministic=True), an operation without a deterministic "
                            "implementation (CPU Tensor.put_) still runs instead of raising")
    assert not seen["cudnn_benchmark"], \
        "cudnn.benchmark was True before set_seed(11, deterministic=True) and still is: the autotuner must be off"
    assert seen["cublas"] in (":4096:8", ":16:8"), \
        (f"after set_seed(11, deterministic=True), CUBLAS_WORKSPACE_CONFIG is {seen['cublas']!r} "
         "(it was unset before the call): ':4096:8' (or ':16:8') expected, which cuBLAS needs to be deterministic")


@check("state")
def test_not_deterministic_by_default(sub):
    def flags(mod):
        saved = _clean_globals()
        try:
            seen = []
            for k, call in enumerate(({}, {"deterministic": False})):
                _scramble(k)
                mod.set_seed(5, **call)
                seen.append({**_flags(), "rand": torch.rand(4)})
                _clean_globals()
            return seen
        finally:
            _restore_globals(saved)

    default, explicit = sub.probe(flags, sub)
    assert torch.equal(default["rand"], explicit["rand"]), \
        "set_seed(5) and set_seed(5, deterministic=False) seed torch differently (or not at all)"
    for call, seen in (("set_seed(5)", default), ("set_seed(5, deterministic=False)", explicit)):
        assert not seen["raises"], \
            (f"after {call}, an operation without a deterministic implementation (CPU Tensor.put_) raises: "
             "only deterministic=True may switch that on")


# --- seed_worker ----------------------------------------------------------------------------------

@check("value")
def test_seed_worker(sub):
    def worker_draws(mod, bases):
        import random

        import numpy as np

        out = []
        for k, base in enumerate(bases):
            _scramble(k)
            torch.manual_seed(base)          # what a DataLoader worker's torch.initial_seed() says
            mod.seed_worker(k % 2)
            out.append({"numpy": [float(v) for v in np.random.rand(3)], "random": [random.random() for _ in range(3)]})
        return out

    big = 2**40 + 12345                      # a worker's seed is a 64-bit number
    same, again, other, large, large_again = sub.probe(worker_draws, sub, [21, 21, 22, big, big])
    for rng in ("numpy", "random"):
        assert same[rng] == again[rng], \
            (f"{rng}: two seed_worker calls under the same torch.initial_seed() gave different draws: "
             f"seed_worker must seed {rng} from torch.initial_seed()")
        assert same[rng] != other[rng], \
            f"{rng}: torch.initial_seed() 21 and 22 give the same draws after seed_worker: seed {rng} from it"
        assert large[rng] == large_again[rng], f"{rng}: with torch.initial_seed() = 2**40 + 12345 the draws do not repeat"


# --- reproducible_loader --------------------------------------------------------------------------

def _orders(mod, runs, n=12, batch_size=3, epochs=2):
    """Runs in the worker: per run ({"seed", "before", "between"}), build the loader after scrambling
    the global generators with `before`, scramble them again with `between`, read `epochs` epochs
    of sample ids."""
    from torch.utils.data import DataLoader, Dataset

    from grader import probes

    class Ids(Dataset):
        def __len__(self):
            return n

        def __getitem__(self, i):
            return i

    saved = _clean_globals()
    try:
        seen, workers = [], []
        for run in runs:
            ds = Ids()
            _scramble(run["before"])
            loader = mod.reproducible_loader(ds, batch_size, run["seed"])
            if not issubclass(type(loader), DataLoader):
                return None
            attrs = probes.instance_attrs(loader)
            if attrs.get("dataset") is not ds:
                return "dataset"
            workers.append(attrs.get("num_workers"))
            _scramble(run["between"])
            seen.append([[[int(v) for v in batch] for batch in DataLoader.__iter__(loader)] for _ in range(epochs)])
        return seen, workers
    finally:
        _restore_globals(saved)


def _loader_ok(seen):
    assert seen is not None, "reproducible_loader must return a torch.utils.data.DataLoader"
    assert seen != "dataset", "reproducible_loader must return a DataLoader over the dataset given"
    return seen


@check("value")
def test_order_depends_only_on_seed(sub):
    runs = [{"seed": 4, "before": 1, "between": 2}, {"seed": 4, "before": 3, "between": 4},
            {"seed": 9, "before": 1, "between": 2}]
    seen = _loader_ok(sub.probe(_orders, sub, runs))
    (first, again, other), workers = seen
    assert workers == [0, 0, 0], \
        f"reproducible_loader(ds, 3, seed) without num_workers made loaders with num_workers={workers}: the default is 0"
    for k, epoch in enumerate(first):
        assert [len(b) for b in epoch] == [3, 3, 3, 3], \
            f"epoch {k} of 12 samples in batches of 3 yielded batches of sizes {[len(b) for b in epoch]}"
        ids = [i for b in epoch for i in b]
        assert sorted(ids) == list(range(12)), f"epoch {k} yielded the samples {ids}: every sample once expected"
    assert [i for b in first[0] for i in b] != list(range(12)), "the loader yielded the samples in dataset order: it must shuffle"
    assert first[0] != first[1], "two epochs in the same order: the loader must shuffle anew every epoch"
    assert first == again, \
        ("reproducible_loader(seed=4) gave other epochs when torch's global generator was in another state "
         "(before building, or between building and iterating): the order must depend only on seed")
    assert first != other, "seed=4 and seed=9 gave the same epochs: the order must depend on seed"


def _worker_noise(mod, runs, n=8, batch_size=2, epochs=2):
    """Runs in the worker: a dataset whose items are (index, DataLoader worker id, np.random noise,
    random noise), loaded with two workers; per run ({"seed", "before", "between"}) `epochs`
    epochs of items."""
    import random

    import numpy as np
    from torch.utils.data import DataLoader, Dataset, get_worker_info

    class Noisy(Dataset):
        def __len__(self):
            return n

        def __getitem__(self, i):
            info = get_worker_info()
            return torch.tensor([float(i), -1.0 if info is None else float(info.id),
                                 float(np.random.rand()), random.random()], dtype=torch.float64)

    saved = _clean_globals()
    try:
        seen = []
        for run in runs:
            _scramble(run["before"])
            loader = mod.reproducible_loader(Noisy(), batch_size, run["seed"], num_workers=2)
            if not issubclass(type(loader), DataLoader):
                return None
            _scramble(run["between"])
            seen.append([[batch.tolist() for batch in DataLoader.__iter__(loader)] for _ in range(epochs)])
            del loader
        return seen
    finally:
        _restore_globals(saved)


@check("value", weight=2)
def test_worker_noise_distinct_and_reproducible(sub):
    runs = [{"seed": 6, "before": 1, "between": 2}, {"seed": 6, "before": 3, "between": 4}]
    seen = sub.probe(_worker_noise, sub, runs)
    assert seen is not None, "reproducible_loader must return a torch.utils.data.DataLoader"
    first, again = seen
    for k, epoch in enumerate(first):
        items = [item for batch in epoch for item in batch]
        assert sorted(int(item[0]) for item in items) == list(range(8)), \
            f"epoch {k} with num_workers=2 did not yield each of the 8 samples once"
        workers = {int(item[1]) for item in items}
        assert workers == {0, 1}, f"num_workers=2: the items were loaded by the workers {sorted(workers)}, expected 0 and 1"
        per_worker = {w: [item[2] for item in items if int(item[1]) == w] for w in (0, 1)}
        assert set(per_worker[0]).isdisjoint(per_worker[1]), \
            ("the two DataLoader workers drew the same np.random numbers: each worker's numpy must be seeded "
             "differently (from torch.initial_seed(), which differs per worker)")
    noise = [{int(item[0]): item[2] for batch in epoch for item in batch} for epoch in first]
    assert set(noise[0].values()).isdisjoint(noise[1].values()), \
        "the workers drew the same np.random numbers in both epochs: worker seeds must change every epoch"
    assert first == again, \
        ("two runs of reproducible_loader(seed=6, num_workers=2), with torch's, numpy's and random's global state "
         "moved elsewhere before building and before iterating, gave different order or worker-side noise")


def _training(mod, seeds, num_workers, n=16, batch_size=4, epochs=1):
    """Runs in the worker: per seed, set_seed(seed) (after scrambling the generators), then a
    Dropout MLP trained with SGD over reproducible_loader(noisy dataset, seed): the loss curve and
    the final parameters."""
    import numpy as np
    from torch import nn
    from torch.utils.data import DataLoader, Dataset

    from grader import probes

    class Noisy(Dataset):
        def __init__(self):
            self.x = torch.linspace(-1, 1, n * 4).reshape(n, 4)
            self.y = self.x.sum(1, keepdim=True).sin()

        def __len__(self):
            return n

        def __getitem__(self, i):
            noise = torch.from_numpy(np.random.randn(4).astype("float32"))
            return self.x[i] + 0.1 * noise, self.y[i]

    saved = _clean_globals()
    try:
        seen = []
        for k, seed in enumerate(seeds):
            _scramble(k)
            mod.set_seed(seed)
            model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 1))
            opt = torch.optim.SGD(nn.Module.parameters(model), lr=0.05)
            loader = mod.reproducible_loader(Noisy(), batch_size, seed, num_workers=num_workers)
            if not issubclass(type(loader), DataLoader):
                return None
            losses = []
            for _ in range(epochs):
                for x, y in DataLoader.__iter__(loader):
                    opt.zero_grad()
                    loss = torch.nn.functional.mse_loss(model(x), y)
                    loss.backward()
                    opt.step()
                    losses.append(float(loss))
            seen.append({"losses": losses, "params": probes.state_dict(model)})
            del loader
        return seen
    finally:
        _restore_globals(saved)


@check("value", weight=2)
@pytest.mark.parametrize("num_workers", [0, 2], ids=["workers0", "workers2"])
def test_training_reproducible(sub, num_workers):
    seen = sub.probe(_training, sub, [3, 3, 4], num_workers)
    assert seen is not None, "reproducible_loader must return a torch.utils.data.DataLoader"
    first, again, other = seen
    assert len(first["losses"]) == 4, \
        f"an epoch of 16 samples in batches of 4 gave {len(first['losses'])} steps, expected 4"
    assert first["losses"] == again["losses"], \
        (f"num_workers={num_workers}: two runs seeded with 3 (set_seed(3), reproducible_loader(..., seed=3)) of a "
         f"Dropout MLP over a dataset adding np.random noise gave different loss curves")
    assert all(torch.equal(first["params"][k], again["params"][k]) for k in first["params"]), \
        f"num_workers={num_workers}: two runs seeded with 3 ended with different parameters"
    assert first["losses"] != other["losses"], f"num_workers={num_workers}: seeds 3 and 4 gave the same loss curve"


# --- CUDA -----------------------------------------------------------------------------------------

@requires_cuda
@check("device")
def test_cuda_conv_training_deterministic(sub):
    def conv_runs(mod):
        from torch import nn

        from grader import probes

        saved = _clean_globals()
        try:
            seen = []
            for k in range(2):
                _scramble(k)
                mod.set_seed(13, deterministic=True)
                model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3), nn.ReLU(),
                                      nn.Flatten(), nn.Dropout(0.2), nn.Linear(8 * 6 * 6, 4)).cuda()
                opt = torch.optim.SGD(nn.Module.parameters(model), lr=0.05, momentum=0.9)
                losses = []
                for _ in range(5):
                    x = torch.randn(16, 3, 8, 8, device="cuda")
                    y = torch.randn(16, 4, device="cuda")
                    opt.zero_grad()
                    loss = torch.nn.functional.mse_loss(model(x), y)
                    loss.backward()
                    opt.step()
                    losses.append(float(loss))
                seen.append({"losses": losses, "params": {name: p.cpu() for name, p in probes.state_dict(model).items()}})
            return seen
        finally:
            _restore_globals(saved)

    first, again = sub.probe(conv_runs, sub)
    assert first["losses"] == again["losses"], \
        "two CUDA conv-net runs after set_seed(13, deterministic=True) gave different loss curves"
    assert all(torch.equal(first["params"][k], again["params"][k]) for k in first["params"]), \
        "two CUDA conv-net runs after set_seed(13, deterministic=True) ended with different parameters"
