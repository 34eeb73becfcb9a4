"""Hidden checks for 69_data_parallel_ddp.

The DDP checks start two ranks of the candidate's `ddp_worker` from a probe, with
`torch.multiprocessing.start_processes(..., start_method="fork")`: the model factories are defined
here and shipped to the worker by value, which a spawned interpreter could not import. Each rank
runs inside a small probe-defined wrapper that spies on `DistributedSampler` and
`destroy_process_group` and writes what it saw to a JSON file; the probe returns the ranks' exit
codes and those observations. The rank files the candidate saves are read with `sub.read_file` and
opened only in the verifier (`torch.load(weights_only=True)`), and compared in the judge with plain
full-batch SGD computed here. Without two GPUs the ranks use gloo on the worker's loopback
(`network = "loopback"`); the NCCL and DataParallel checks need CUDA (two GPUs for NCCL) and are
reported as not run elsewhere.
"""
import pytest
import torch
from torch import nn

from grader.testing import check, requires_cuda

requires_two_gpus = pytest.mark.skipif("__import__('torch').cuda.device_count() < 2",
                                       reason="needs two CUDA GPUs (nccl, one rank per GPU)")

WORLD, STEPS, LR = 2, 3, 0.1


def _arch():
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))


def _same_init():
    """The same weights on every rank."""
    torch.manual_seed(7)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))


def _rank_init():
    """Different weights on each rank (seeded by the rank): only a broadcast from rank 0 makes them
    agree. Built after init_process_group, as the contract says; raises before it."""
    import torch.distributed as dist

    torch.manual_seed(100 + dist.get_rank())
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))


def _data(n=8, seed=3):
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(n, 4, generator=gen), torch.randn(n, 2, generator=gen)


def _full_batch_sgd(seed, data, targets, steps=STEPS, lr=LR):
    """What one process training on all the data gives: what DDP's averaged gradients must match."""
    torch.manual_seed(seed)
    model = _arch()
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        nn.functional.mse_loss(model(data), targets).backward()
        opt.step()
    return {k: v.detach() for k, v in model.state_dict().items()}


def _rank_main(rank, mod, world_size, init_file, model_fn, data, targets, steps, lr, out_dir):
    """Runs in each forked rank: the candidate's ddp_worker under spies, what they saw to a file."""
    import json
    import os
    import sys
    import traceback

    import torch.distributed as dist

    from grader import probes

    # Objects ddp_worker leaves behind are kept alive and the rank ends with os._exit: tearing a
    # DDP model down after destroy_process_group hangs now and then in the sandbox (gloo's
    # threads), which says nothing about the answer.
    kept = []

    def keep(frame, event, arg):
        if event == "return" and frame.f_globals is vars(mod):
            kept.append(dict(frame.f_locals))

    seen = {"error": None}
    with probes.spy("torch.utils.data.distributed.DistributedSampler.__init__",
                    "torch.distributed.destroy_process_group",
                    "torch.distributed.distributed_c10d.destroy_process_group",
                    "torch.distributed.init_process_group",
                    "torch.distributed.distributed_c10d.init_process_group", module=mod, profile=keep) as calls:
        try:
            mod.ddp_worker(rank, world_size, init_file, model_fn, data, targets, steps, lr, out_dir)
        except BaseException as exc:  # noqa: BLE001 - reported; the rank then exits with 1
            seen["error"] = f"{type(exc).__name__}: {exc}"[:300] + "".join(traceback.format_exception(exc)[-2:])[:300]
    samplers = [args[0] for name, args, _ in calls.calls if name.endswith("__init__")]
    seen["samplers"] = [[getattr(s, "num_replicas", None), getattr(s, "rank", None)] for s in samplers]
    seen["destroyed"] = any(name.endswith("destroy_process_group") for name, _, _ in calls.calls)
    inits = [(args, kwargs) for name, args, kwargs in calls.calls if name.endswith("init_process_group")]
    seen["backends"] = [str(kwargs.get("backend", args[0] if args else None)) for args, kwargs in inits]
    seen["still_initialized"] = dist.is_initialized()
    with open(os.path.join(out_dir, f"seen{rank}.json"), "w") as f:
        json.dump(seen, f)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(1 if seen["error"] else 0)


def _run_ranks(mod, model_fn, data, targets, steps, lr, world_size):
    """Runs in the worker: start the ranks (fork: the probe's functions need no import), wait for
    them, collect their exit codes and what each rank's spies saw."""
    import json
    import os

    import torch.multiprocessing as mp

    out_dir = os.path.abspath("ranks")
    os.makedirs(out_dir, exist_ok=True)
    init_file = os.path.abspath("ddp_init")
    ctx = mp.start_processes(_rank_main, nprocs=world_size, join=False, start_method="fork",
                             args=(mod, world_size, init_file, model_fn, data, targets, steps, lr, out_dir))
    failure = None
    try:
        while not ctx.join(timeout=120):
            pass
    except Exception as exc:  # noqa: BLE001 - a rank failed: the others are stopped, codes below
        failure = f"{type(exc).__name__}: {str(exc)[:300]}"
    seen = []
    for rank in range(world_size):
        path = os.path.join(out_dir, f"seen{rank}.json")
        seen.append(json.load(open(path)) if os.path.exists(path) else None)
    return {"exit_codes": [p.exitcode for p in ctx.processes], "failure": failure, "seen": seen}


def _load_ranks(raws):
    """Runs in the verifier: each rank file opened as weights only; where its tensors were saved."""
    import io

    import torch

    reports = []
    for raw in raws:
        report = {"error": None, "type": None, "is_dict": False, "tensors": {}, "other": [], "saved_on": []}

        def where(storage, location, report=report):
            report["saved_on"].append(str(location).split(":")[0])
            return storage

        try:
            obj = torch.load(io.BytesIO(raw), weights_only=True, map_location=where)
        except Exception as exc:  # noqa: BLE001 - reported, the check fails on it
            report["error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
            reports.append(report)
            continue
        report["type"] = type(obj).__name__
        report["is_dict"] = isinstance(obj, dict)  # a state_dict: a dict or an OrderedDict (what state_dict() returns)
        if isinstance(obj, dict):
            for key, value in obj.items():
                if type(key) is str and isinstance(value, torch.Tensor):
                    report["tensors"][key] = value.detach().clone().cpu()
                else:
                    report["other"].append(repr(key)[:80])
        reports.append(report)
    return reports


def _train(sub, model_fn, data, targets, world_size=WORLD):
    """Run the ranks, then read their files (in the verifier). Fails with what the ranks said."""
    run = sub.probe(_run_ranks, sub, model_fn, data, targets, STEPS, LR, world_size)
    errors = [s["error"] for s in run["seen"] if s and s["error"]]
    assert not errors and run["failure"] is None, f"a rank failed: {errors[0] if errors else run['failure']}"
    assert run["exit_codes"] == [0] * world_size, f"the ranks exited with codes {run['exit_codes']}, expected 0s"
    raws = [sub.read_file(f"ranks/rank{r}.pt") for r in range(world_size)]
    return run, sub.verify(_load_ranks, raws)


def _tensors(report, rank):
    assert report["error"] is None, f"rank{rank}.pt does not load with torch.load(weights_only=True): {report['error']}"
    assert report["is_dict"] and not report["other"], (
        f"rank{rank}.pt should hold a dict of str -> Tensor (a state_dict), got a {report['type']}"
        + (f" with other entries {report['other']}" if report["other"] else ""))
    return report["tensors"]


def _assert_matches(got, expected, what, atol=1e-6):
    assert sorted(got) == sorted(expected), f"{what} has keys {sorted(got)}, expected {sorted(expected)}"
    for key, value in expected.items():
        assert got[key].shape == value.shape, f"{what}[{key!r}] has shape {tuple(got[key].shape)}"
        err = (got[key].float() - value).abs().max().item()
        assert err <= atol, (
            f"{what}[{key!r}] is {err:.3g} away from single-process full-batch SGD over all the data: "
            "DDP's gradients are the average over ranks of each rank's shard")


# ---------------------------------------------------------------- ddp_worker

@check("value", weight=2, timeout_s=90)
def test_gradients_averaged(sub):
    data, targets = _data()
    _, reports = _train(sub, _same_init, data, targets)
    expected = _full_batch_sgd(7, data, targets)
    for rank, report in enumerate(reports):
        _assert_matches(_tensors(report, rank), expected, f"rank {rank}'s saved weights")


@check("state", timeout_s=90)
def test_ranks_bit_identical(sub):
    data, targets = _data(seed=4)
    _, reports = _train(sub, _rank_init, data, targets)
    first, second = _tensors(reports[0], 0), _tensors(reports[1], 1)
    assert sorted(first) == sorted(second), f"the ranks saved different keys: {sorted(first)} vs {sorted(second)}"
    differ = [k for k in first if not torch.equal(first[k], second[k])]
    assert not differ, (
        f"with a different initialisation on each rank, the ranks end with different {differ}: "
        "the model should start from rank 0's weights on every rank (DDP broadcasts them)")
    _assert_matches(first, _full_batch_sgd(100, data, targets), "the saved weights")  # rank 0's start, trained


@check("state", timeout_s=90)
def test_saved_state_dict(sub):
    data, targets = _data(seed=5)
    _, reports = _train(sub, _same_init, data, targets)
    for rank, report in enumerate(reports):
        tensors = _tensors(report, rank)
        prefixed = [k for k in tensors if k.startswith(("module.", "_orig_mod."))]
        assert not prefixed, f"rank{rank}.pt keeps wrapper prefixes in {prefixed}: save the unwrapped state_dict"
        bare = _arch()
        missing, unexpected = nn.Module.load_state_dict(bare, tensors, strict=False)
        assert not missing and not unexpected, (
            f"rank{rank}.pt does not load strictly into model_fn(): missing {list(missing)}, "
            f"unexpected {list(unexpected)}")
        devices = sorted(set(report["saved_on"]))
        assert devices == ["cpu"], f"rank{rank}.pt holds tensors saved from {devices}: save CPU tensors"
        assert all(t.dtype == torch.float32 for t in tensors.values()), "the saved weights should stay float32"


@check("api", timeout_s=90)
def test_processes_and_api(sub):
    sub.static.require_implemented("ddp_worker")
    # 7 samples over 2 ranks: the sampler pads rank 1's shard with sample 0, so training on the
    # sampler's shards differs from training on all the data, or on an unpadded split of it.
    data, targets = _data(n=7, seed=6)
    run, reports = _train(sub, _same_init, data, targets)
    from torch.utils.data.distributed import DistributedSampler
    shards = [i for r in range(WORLD) for i in DistributedSampler(range(7), num_replicas=WORLD, rank=r, shuffle=False)]
    expected = _full_batch_sgd(7, data[shards], targets[shards])  # equal shards of 4: the mean over their union
    for rank, seen in enumerate(run["seen"]):
        assert seen is not None, f"rank {rank} did not finish"
        assert [WORLD, rank] in seen["samplers"], (
            f"rank {rank} should shard the data with a DistributedSampler(num_replicas={WORLD}, rank={rank}); "
            f"samplers made: {seen['samplers'] or 'none'}")
        assert seen["destroyed"] and not seen["still_initialized"], (
            f"rank {rank} left its process group up: call destroy_process_group before returning")
        _assert_matches(_tensors(reports[rank], rank), expected,
                        f"with 7 samples, rank {rank}'s weights (each rank should train on its DistributedSampler shard, "
                        "padded to 4 samples)")


# ---------------------------------------------------------------- unwrap_state_dict

UNWRAP_CASES = {
    "module.fc.weight": "fc.weight",
    "_orig_mod.fc.bias": "fc.bias",
    "module._orig_mod.encoder.0.weight": "encoder.0.weight",
    "_orig_mod.module.head.weight": "head.weight",
    "module.module.bn.running_mean": "bn.running_mean",
    "submodule.weight": "submodule.weight",
    "encoder.module_list.0.weight": "encoder.module_list.0.weight",
    "encoder.module.weight": "encoder.module.weight",
    "modules.0.bias": "modules.0.bias",
    "_orig_model.scale": "_orig_model.scale",
    "block._orig_mod.weight": "block._orig_mod.weight",
}


@check("value")
def test_unwrap_state_dict(sub):
    state = {key: torch.full((2,), float(i)) for i, key in enumerate(UNWRAP_CASES)}
    got = sub.unwrap_state_dict(state)
    assert isinstance(got, dict), f"unwrap_state_dict should return a dict, got {type(got).__name__}"
    want = {UNWRAP_CASES[key]: value for key, value in state.items()}
    assert sorted(got) == sorted(want), (
        f"keys {sorted(set(got) - set(want))} should not be there, {sorted(set(want) - set(got))} are missing")
    for key, value in want.items():
        assert isinstance(got[key], torch.Tensor) and torch.equal(got[key], value), f"the value of {key!r} changed"


# ---------------------------------------------------------------- CUDA

def _data_parallel(mod, x):
    from grader import probes

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2)).cuda()
    wrapped = nn.DataParallel(model)
    with torch.no_grad():
        same = torch.allclose(wrapped(x.cuda()), model(x.cuda()), atol=1e-6)
    state = nn.Module.state_dict(wrapped)
    keys = sorted(state)
    bare = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2)).cuda()
    unwrapped = mod.unwrap_state_dict(state)
    missing, unexpected = probes.load_state_dict(bare, dict(unwrapped), strict=False)
    loaded = not missing and not unexpected and all(
        torch.equal(a, b) for a, b in zip(probes.state_dict(bare).values(), probes.state_dict(model).values()))
    return {"same": same, "keys": keys, "loaded": loaded, "missing": missing, "unexpected": unexpected}


@requires_cuda
@check("device")
def test_data_parallel_prefix(sub):
    seen = sub.probe(_data_parallel, sub, torch.randn(6, 4))
    assert seen["same"], "nn.DataParallel(model) should compute what model computes"
    assert all(k.startswith("module.") for k in seen["keys"]), f"DataParallel's keys: {seen['keys']}"
    assert seen["loaded"], (
        f"unwrap_state_dict(DataParallel's state_dict) should load strictly into the bare model: missing "
        f"{seen['missing']}, unexpected {seen['unexpected']}")


@requires_two_gpus
@check("device", timeout_s=120)
def test_nccl_two_gpus(sub):
    data, targets = _data(seed=8)
    run, reports = _train(sub, _rank_init, data, targets)
    assert all(s["backends"] == ["nccl"] for s in run["seen"]), (
        f"with two GPUs each rank should use nccl, they used {[s['backends'] for s in run['seen']]}")
    expected = _full_batch_sgd(100, data, targets)
    for rank, report in enumerate(reports):
        assert sorted(set(report["saved_on"])) == ["cpu"], f"rank{rank}.pt should hold CPU tensors"
        _assert_matches(_tensors(report, rank), expected, f"rank {rank}'s saved weights (nccl)", atol=1e-5)
