"""Hidden checks for 65_cuda_memory_accounting.

Most of the contract is about CUDA's caching allocator, so a CPU host grades it two ways:

- the CPU fallback as it is, and with `torch.cuda.is_available` faked False (what a GPU host
  would see): zeros, `fn` never called, every call into `torch.cuda` that would initialise CUDA
  or read its allocator forbidden (on a CPU-only build `memory_allocated()` and `empty_cache()`
  quietly return 0 / do nothing, so only a spy can see them), the keys still deleted;
- a faked CUDA machine: `is_available` True and torch.cuda's allocator API (`memory_allocated`,
  `max_memory_allocated`, `memory_reserved`, `memory_stats`, `reset_peak_memory_stats`,
  `empty_cache`, `synchronize`) replaced by a small simulated allocator whose live bytes are the
  CPU tensors it tracks (through weak references, so deleting and collecting them frees them),
  with a baseline already held, a stale peak from earlier, and an ordered log of the calls.

The `@requires_cuda` checks repeat the catalogue's checks on a real GPU.
"""
import pytest
import torch

from grader.testing import check, requires_cuda

MiB = 1 << 20
GiB = 1 << 30
# calls that initialise CUDA or read/change its allocator: none may run without CUDA
CUDA_CALLS = ("torch.cuda._lazy_init", "torch.cuda.init", "torch.cuda.synchronize", "torch.cuda.empty_cache",
              "torch.cuda.memory_allocated", "torch.cuda.memory_reserved", "torch.cuda.max_memory_allocated",
              "torch.cuda.max_memory_reserved", "torch.cuda.reset_peak_memory_stats", "torch.cuda.memory_stats",
              "torch.cuda.reset_max_memory_allocated", "torch.cuda.current_device", "torch.cuda.set_device",
              "torch.cuda.mem_get_info", "torch.cuda.memory.memory_allocated", "torch.cuda.memory.memory_reserved",
              "torch.cuda.memory.max_memory_allocated", "torch.cuda.memory.memory_stats",
              "torch.cuda.memory.reset_peak_memory_stats", "torch.cuda.memory.empty_cache",
              "torch.accelerator.synchronize")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


# --- without CUDA -----------------------------------------------------------------------------------

def _without_cuda(mod, patch, calls):
    """Both functions with CUDA absent (as it is here, or `is_available` faked False), every CUDA
    call forbidden; plain data back."""
    import contextlib

    from grader import probes

    called = []
    container = {"a": torch.ones(3), "b": torch.zeros(2), "c": torch.arange(4.0)}
    fake = probes.replace("torch.cuda.is_available", returns=False, module=mod) if patch else contextlib.nullcontext()
    peak = report = "<not returned>"
    with fake, probes.forbid(*calls, module=mod) as touched:
        try:
            peak = mod.peak_memory_bytes(lambda: called.append(1), "cuda")
            report = mod.free_and_report(container, ["a", "c"])
        except probes.ForbiddenAPIError:
            pass

    def plain(v):
        if isinstance(v, tuple):
            return ("tuple", [plain(i) for i in v])
        return v if isinstance(v, (bool, int, float, str)) else f"<{type(v).__name__}>"

    return {"peak": plain(peak), "report": plain(report), "fn_calls": len(called), "keys": sorted(container),
            "touched": touched.names(), "initialised": torch.cuda.is_initialized()}


@check("device", weight=2)
@pytest.mark.parametrize("patch", [False, True], ids=["as-is", "is_available-false"])
def test_zeros_without_cuda(sub, patch):
    if not patch and torch.cuda.is_available():
        pytest.skip("this host has CUDA: the faked variant covers it")
    seen = sub.probe(_without_cuda, sub, patch, CUDA_CALLS)
    where = "with torch.cuda.is_available() faked False" if patch else "on a host without CUDA"
    assert not seen["touched"], f"{where} the code called {sorted(set(seen['touched']))}: check is_available() first"
    assert not seen["initialised"], f"{where} CUDA was initialised"
    assert seen["fn_calls"] == 0, f"{where} peak_memory_bytes called fn {seen['fn_calls']} time(s); it must not"
    assert seen["peak"] == 0 and _is_int(seen["peak"]), f"{where} peak_memory_bytes returned {seen['peak']!r}, expected 0"
    assert seen["report"] == ("tuple", [0, 0]), f"{where} free_and_report returned {seen['report']!r}, expected (0, 0)"
    assert seen["keys"] == ["b"], f"{where} after free_and_report(container, ['a', 'c']) the keys are {seen['keys']}"


# --- a faked CUDA machine ---------------------------------------------------------------------------

def _fake_cuda(mod, task, calls):
    """Run `task` ("peak", "free") against a simulated two-GPU CUDA allocator on a CPU host. Per
    device: live bytes are a baseline plus what fn allocated plus the sizes of the tracked tensors
    still alive; reserved bytes only grow, until empty_cache drops them to the live level; the peak
    is kept until reset. The current device is 0. Every allocator call is logged with the device
    it resolved to. What valid code may call besides the allocator API is modelled too (the
    current device (`set_device`, `torch.cuda.device` / `device_of` / `stream` contexts), events and
    streams, `init`, the `torch.accelerator` twins); a call that still reaches real CUDA leaves the
    check not run (`unmodelled`), never failed."""
    import contextlib

    from grader import probes

    MiB, GiB = 1 << 20, 1 << 30  # locals: the nested functions below read them from this scope
    log = []
    # device 0: 1 GiB held, a stale 3 GiB peak; device 1: 512 MiB held, a stale 6 GiB peak
    sim = {0: {"base": GiB, "extra": 0, "peak": 3 * GiB, "reserved": 4 * GiB},
           1: {"base": 512 * MiB, "extra": 0, "peak": 6 * GiB, "reserved": 7 * GiB}}
    tracked = []  # (weakref, nbytes) on device 0
    current = [0]

    def index(device=None):
        if device is None:
            return current[0]
        if isinstance(device, int):
            return device
        device = torch.device(device)
        if device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        return current[0] if device.index is None else device.index

    def live(i):
        return sim[i]["base"] + sim[i]["extra"] + (sum(n for ref, n in tracked if ref() is not None) if i == 0 else 0)

    def touch(i):
        sim[i]["peak"] = max(sim[i]["peak"], live(i))
        sim[i]["reserved"] = max(sim[i]["reserved"], live(i))

    def alloc(i, n):
        sim[i]["extra"] += n
        touch(i)

    def free(i, n):
        sim[i]["extra"] -= n

    def entry(name, value):
        def call(device=None, *args, **kwargs):
            i = index(device)
            log.append((name, i))
            return value(i)
        return call

    def reset(device=None):
        i = index(device)
        log.append(("reset", i))
        sim[i]["peak"] = live(i)

    def empty():
        log.append(("empty_cache", current[0]))
        for i in sim:
            sim[i]["reserved"] = live(i)

    def stats(device=None):
        i = index(device)
        log.append(("memory_stats", i))
        cur, res = live(i), sim[i]["reserved"]
        return {"allocated_bytes.all.current": cur, "allocated_bytes.all.peak": sim[i]["peak"],
                "reserved_bytes.all.current": res, "reserved_bytes.all.peak": res,
                "active_bytes.all.current": cur, "active_bytes.all.peak": sim[i]["peak"]}

    class FakeStream:
        def __init__(self, i):
            self.i = i

        def synchronize(self):
            log.append(("synchronize", self.i))

        def query(self):
            return True

        def wait_stream(self, other):
            pass

        def record_event(self, event=None):
            event = event or FakeEvent()
            event.record(self)
            return event

        def __enter__(self):  # `with stream:` makes its device current, as torch's does
            self.prev, current[0] = current[0], self.i
            return self

        def __exit__(self, *exc):
            current[0] = self.prev
            return False

    class FakeEvent:  # records on a stream (the current device's by default); synchronize waits for it
        def __init__(self, enable_timing=False, blocking=False, interprocess=False, external=False):
            self.i = None

        def record(self, stream=None):
            self.i = stream.i if isinstance(stream, FakeStream) else current[0]

        def synchronize(self):
            log.append(("synchronize", current[0] if self.i is None else self.i))

        def query(self):
            return True

        def wait(self, stream=None):
            pass

    class FakeDevice:  # torch.cuda.device(...) / device_of / stream(s) as a context manager
        def __init__(self, device):
            self.i, self.prev = (None if device is None or (isinstance(device, int) and device < 0)
                                 else index(device)), None

        def __enter__(self):
            self.prev = current[0]
            if self.i is not None:
                current[0] = self.i
            return self

        def __exit__(self, *exc):
            current[0] = self.prev
            return False

    def set_device(device):
        i = index(device)
        log.append(("set_device", i))
        current[0] = i

    def device_of(obj):
        return FakeDevice(obj.get_device() if getattr(obj, "is_cuda", False) else None)

    def stream_context(stream):
        return FakeDevice(None if stream is None else stream.i)

    fakes = {
        "torch.cuda.memory_allocated": entry("memory_allocated", live),
        "torch.cuda.max_memory_allocated": entry("max_memory_allocated", lambda i: sim[i]["peak"]),
        "torch.cuda.memory_reserved": entry("memory_reserved", lambda i: sim[i]["reserved"]),
        "torch.cuda.max_memory_reserved": entry("max_memory_reserved", lambda i: sim[i]["reserved"]),
        "torch.cuda.reset_peak_memory_stats": reset,
        "torch.cuda.empty_cache": empty,
        "torch.cuda.memory_stats": stats,
        "torch.cuda.synchronize": entry("synchronize", lambda i: None),
        "torch.accelerator.synchronize": entry("synchronize", lambda i: None),
        "torch.cuda.current_stream": entry("current_stream", FakeStream),
        "torch.cuda.current_device": lambda: current[0],
        "torch.cuda.device_count": lambda: 2,
        "torch.cuda.device": FakeDevice,
        # what else valid code may call here, modelled (issue 42: a simulation never fails valid code
        # for a call it does not model; one it still does not model leaves the check not run)
        "torch.cuda.init": lambda: None,
        "torch.cuda.set_device": set_device,
        "torch.cuda.device_of": device_of,
        "torch.cuda.Event": FakeEvent,
        "torch.cuda.Stream": lambda device=None, priority=0, **kwargs: FakeStream(index(device)),
        "torch.cuda.default_stream": entry("default_stream", FakeStream),
        "torch.cuda.stream": stream_context,
        "torch.cuda.StreamContext": stream_context,
        "torch.accelerator.current_stream": entry("current_stream", FakeStream),
        "torch.accelerator.current_device_index": lambda: current[0],
        "torch.accelerator.current_device_idx": lambda: current[0],
        "torch.accelerator.set_device_index": set_device,
        "torch.accelerator.set_device_idx": set_device,
        "torch.accelerator.device_index": FakeDevice,
        "torch.accelerator.device_count": lambda: 2,
    }
    for name in ("memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
                 "reset_peak_memory_stats", "empty_cache", "memory_stats"):
        fakes[f"torch.cuda.memory.{name}"] = fakes[f"torch.cuda.{name}"]
        fakes[f"torch.accelerator.{name}"] = fakes[f"torch.cuda.{name}"]
    fakes["torch.cuda.reset_max_memory_allocated"] = reset

    def plain(result):
        if isinstance(result, tuple):
            return ("tuple", [r if isinstance(r, (bool, int, float)) else f"<{type(r).__name__}>" for r in result])
        return result if isinstance(result, (bool, int, float)) else f"<{type(result).__name__}>"

    out, extra, unmodelled = None, {}, None
    no_cuda_here = ("compiled without cuda", "not compiled with cuda", "not linked with support for cuda",
                    "dummy base class", "requires cuda support", "has no attribute '_cuda",
                    "cannot access accelerator device", "no cuda gpus")
    with contextlib.ExitStack() as stack:
        stack.enter_context(probes.replace("torch.cuda.is_available", "torch.accelerator.is_available",
                                           returns=True, module=mod))
        for target, fake in fakes.items():
            try:
                owner, name = probes._resolve(target)
                present = hasattr(owner, name)
            except (ValueError, AttributeError):
                present = False                 # not in this torch: nothing to model
            if present:
                stack.enter_context(probes.substitute(target, fake, module=mod))
        touched = stack.enter_context(probes.forbid(*calls, module=mod))
        try:
            out, extra = _fake_cuda_task(mod, task, log, alloc, free, touch, tracked, live, plain, current, MiB)
        except Exception as exc:  # noqa: BLE001 - a call the fake does not model, or the candidate's own error
            if isinstance(exc, NotImplementedError) or not (
                    touched.names() or any(p in str(exc).lower() for p in no_cuda_here)):
                raise
            unmodelled = f"{type(exc).__name__}: {str(exc)[:200]}"
        if touched.names():
            unmodelled = "one that initialises real CUDA (torch.cuda._lazy_init)"
    return {"result": out, "log": [list(e) for e in log], "touched": touched.names(), "unmodelled": unmodelled,
            "current_after": current[0], **extra}


def _fake_cuda_task(mod, task, log, alloc, free, touch, tracked, live, plain, current, MiB):
    """The calls of `_fake_cuda`, run inside its faked machine; returns (result, extra data)."""
    import gc
    import weakref

    if task == "peak":
        def fn0():
            log.append(("fn", 0))
            alloc(0, 256 * MiB)   # a transient 256 MiB buffer, freed before fn returns
            free(0, 256 * MiB)
            alloc(0, 16 * MiB)    # and 16 MiB still held when fn returns

        def fn1():
            log.append(("fn", 1))
            alloc(1, 64 * MiB)
            free(1, 64 * MiB)

        def nothing():
            log.append(("fn", 0))

        out, currents = [], []
        for fn, args in ((fn0, ()), (fn1, ("cuda:1",)), (nothing, (torch.device("cuda", 0),))):
            log.append(("run", len(out)))
            out.append(plain(mod.peak_memory_bytes(fn, *args)))
            currents.append(current[0])  # the current device after the call: unchanged (0)
        return out, {"currents": currents}
    held = torch.zeros(8)
    container = {"a": torch.zeros(4), "b": torch.zeros(2), "c": held, "d": torch.zeros(1)}
    container["a"].cycle = container["a"]  # freed only by a garbage collection
    sizes = {"a": 512 * MiB, "b": 64 * MiB, "c": 128 * MiB, "d": 32 * MiB}
    tracked.extend((weakref.ref(container[k]), sizes[k]) for k in "abcd")
    touch(0)
    was_enabled = gc.isenabled()
    gc.disable()       # only an explicit gc.collect() may collect the cycle
    try:
        out = plain(mod.free_and_report(container, ["a", "c", "d"]))
    finally:
        if was_enabled:
            gc.enable()
    return out, {"keys": sorted(container), "after": live(0), "c_alive": held.numel() == 8}


# reaching real CUDA (its lazy init) is what the fake does not model: the check is then not run
FAKE_FORBIDDEN = ("torch.cuda._lazy_init",)
PEAK_RUNS = ("peak_memory_bytes(fn) (device 0: 1 GiB held, a stale 3 GiB peak; fn: +256 MiB, -256 MiB, +16 MiB)",
             "peak_memory_bytes(fn, 'cuda:1') (device 1: 512 MiB held, a stale 6 GiB peak; fn: +64 MiB, -64 MiB)",
             "peak_memory_bytes(fn, torch.device('cuda', 0)) (fn allocates nothing)")


def _runs(log):
    """The log split per peak_memory_bytes call: [[(name, device), ...], ...]."""
    runs = []
    for name, device in log:
        if name == "run":
            runs.append([])
        elif runs:
            runs[-1].append((name, device))
    return runs


def _simulated(seen):
    """Skip (not run, with the reason) when the code made a call the faked machine does not model."""
    if seen["unmodelled"] is not None:
        pytest.skip(f"the simulated CUDA machine on this CPU host does not model a call the code makes: "
                    f"{seen['unmodelled']}; the CUDA checks grade it on a GPU host")
    return seen


@check("perf", weight=2)
def test_peak_fake_cuda(sub):
    seen = _simulated(sub.probe(_fake_cuda, sub, "peak", FAKE_FORBIDDEN))
    runs = _runs(seen["log"])
    want = [256 * MiB, 64 * MiB, 0]
    for what, result, expected, calls in zip(PEAK_RUNS, seen["result"], want, runs):
        assert [n for n, _ in calls].count("fn") == 1, f"{what}: fn was called {[n for n, _ in calls].count('fn')} times"
        assert _is_int(result), f"{what} returned {result!r}, expected an int"
        assert result == expected, (
            f"{what} returned {result} bytes, expected {expected}: the peak during fn above the level just before "
            f"the call, on the device asked for")


@check("api")
def test_peak_calls_fake_cuda(sub):
    seen = _simulated(sub.probe(_fake_cuda, sub, "peak", FAKE_FORBIDDEN))
    for what, current in zip(PEAK_RUNS, seen["currents"]):
        assert current == 0, f"after {what} the current device is {current}, expected 0: the current device is not changed"
    for what, calls, device in zip(PEAK_RUNS, _runs(seen["log"]), (0, 1, 0)):
        names = [n for n, _ in calls]
        assert "fn" in names, f"{what}: fn never ran (calls {calls})"
        at = names.index("fn")
        before, after = calls[:at], calls[at + 1:]
        assert ("reset", device) in before, f"{what}: the peak statistics of device {device} were not reset before fn ran (calls {calls})"
        reads = [i for i, c in enumerate(after) if c in (("max_memory_allocated", device), ("memory_stats", device))]
        assert reads, f"{what}: the peak of device {device} was never read after fn (calls {calls})"
        assert ("synchronize", device) in after[:reads[-1]], (
            f"{what}: no synchronize of device {device} between fn and reading the peak: kernels fn queued may still "
            f"be running (calls {calls})")


@check("value", weight=2)
def test_free_fake_cuda(sub):
    # baseline 1 GiB; a (512 MiB, in a reference cycle), b (64), c (128, also held elsewhere),
    # d (32); free a, c, d: a and d go, c stays allocated
    seen = _simulated(sub.probe(_fake_cuda, sub, "free", FAKE_FORBIDDEN))
    assert seen["keys"] == ["b"], f"after free_and_report(container, ['a', 'c', 'd']) the keys are {seen['keys']}"
    result = seen["result"]
    assert isinstance(result, tuple) and result[0] == "tuple" and len(result[1]) == 2 and all(map(_is_int, result[1])), \
        f"free_and_report returned {result!r}, expected a tuple (memory_allocated, memory_reserved) of ints"
    allocated, reserved = result[1]
    want = GiB + 64 * MiB + 128 * MiB
    assert allocated == want, (
        f"free_and_report reported {allocated} bytes allocated; after freeing a, c and d, expected {want} "
        f"(the 128 MiB of c stay: another variable holds it; a is only freed by gc.collect())")
    assert seen["after"] == want, "the deleted tensors were not all released"
    assert reserved == want, (
        f"free_and_report reported {reserved} bytes reserved; after empty_cache the cache holds only live blocks "
        f"({want}): read memory_reserved after empty_cache")
    assert ["empty_cache", 0] in seen["log"], f"torch.cuda.empty_cache was not called (calls {seen['log']})"


# --- real CUDA --------------------------------------------------------------------------------------------

def _warm():
    torch.empty(1, device="cuda")
    torch.cuda.synchronize()


@requires_cuda
@check("perf", weight=2)
def test_peak_cuda(sub):
    def run(mod):
        _warm()
        ballast = torch.empty(GiB, dtype=torch.uint8, device="cuda")
        held = mod.peak_memory_bytes(lambda: torch.empty(256 * MiB, dtype=torch.uint8, device="cuda"), "cuda")

        def transient():
            tmp = torch.empty(256 * MiB, dtype=torch.uint8, device="cuda")
            del tmp
            return torch.empty(MiB, dtype=torch.uint8, device="cuda")

        peak = mod.peak_memory_bytes(transient, torch.device("cuda"))
        del ballast
        return held, peak

    held, peak = sub.probe(run, sub)
    assert _is_int(held) and 256 * MiB <= held <= 258 * MiB, \
        f"with 1 GiB held, peak_memory_bytes(torch.empty(256 MiB)) returned {held}, expected 256-258 MiB"
    assert _is_int(peak) and 256 * MiB <= peak <= 258 * MiB, \
        f"a 256 MiB buffer freed inside fn should still count (a peak): got {peak}"


@requires_cuda
@check("value", weight=2)
def test_free_cuda(sub):
    def run(mod):
        _warm()
        container = {k: torch.empty(64 * MiB, dtype=torch.uint8, device="cuda") for k in "abc"}
        shared = container["c"]
        torch.cuda.synchronize()
        alloc0, reserved0 = torch.cuda.memory_allocated(), torch.cuda.memory_reserved()
        out = mod.free_and_report(container, ["a", "b", "c"])
        truth = (torch.cuda.memory_allocated(), torch.cuda.memory_reserved())
        del shared
        return alloc0, reserved0, out, truth, sorted(container)

    alloc0, reserved0, out, truth, keys = sub.probe(run, sub)
    assert keys == [], f"keys left: {keys}"
    assert isinstance(out, tuple) and len(out) == 2 and all(map(_is_int, out)), f"free_and_report returned {out!r}"
    allocated, reserved = out
    assert allocated == alloc0 - 128 * MiB, \
        f"allocated went {alloc0} -> {allocated}: a and b (128 MiB) are freed, c (64 MiB, still referenced) is not"
    assert reserved < reserved0 and reserved == truth[1], f"reserved went {reserved0} -> {reserved} (now {truth[1]})"


@requires_cuda
@check("api")
def test_calls_cuda(sub):
    def run(mod):
        from grader import probes

        _warm()
        with probes.spy("torch.cuda.reset_peak_memory_stats", "torch.cuda.max_memory_allocated", "torch.cuda.memory_stats",
                        "torch.cuda.synchronize", "torch.cuda.Stream.synchronize", "torch.accelerator.synchronize",
                        "torch.cuda.Event.synchronize", "torch.accelerator.reset_peak_memory_stats",
                        "torch.accelerator.max_memory_allocated", "torch.accelerator.memory_stats",
                        module=mod) as seen:
            peak = mod.peak_memory_bytes(lambda: torch.empty(MiB, dtype=torch.uint8, device="cuda"))
        return peak, seen.names()

    peak, names = sub.probe(run, sub)
    assert _is_int(peak) and peak >= MiB, f"peak_memory_bytes returned {peak!r}"
    resets = {"torch.cuda.reset_peak_memory_stats", "torch.accelerator.reset_peak_memory_stats"}
    assert resets & set(names), f"reset_peak_memory_stats was not called (calls {names})"
    syncs = {"torch.cuda.synchronize", "torch.cuda.Stream.synchronize", "torch.accelerator.synchronize",
             "torch.cuda.Event.synchronize"}
    assert syncs & set(names), f"nothing synchronised CUDA (calls {names})"
    reads = {"torch.cuda.max_memory_allocated", "torch.cuda.memory_stats", "torch.accelerator.max_memory_allocated",
             "torch.accelerator.memory_stats"}
    assert reads & set(names), f"no peak read (calls {names})"


@requires_cuda
@check("device")
def test_not_initialised_when_patched_cuda(sub):
    def run(mod):
        from grader import probes

        before = torch.cuda.is_initialized()
        with probes.replace("torch.cuda.is_available", returns=False, module=mod):
            out = mod.peak_memory_bytes(lambda: None), mod.free_and_report({"a": torch.ones(2)}, ["a"])
        return before, torch.cuda.is_initialized(), out

    before, after, out = sub.probe(run, sub)
    assert not before and not after, f"CUDA was initialised with is_available() False (before {before}, after {after})"
    assert out == (0, (0, 0)), f"got {out!r}"
