"""Hidden checks for 70_gpu_benchmarking.

What the candidate's benchmark reports is its own measurement, so every figure is held against
what the judge knows: the sleep each call really takes (`time.sleep` never returns early, and the
worker's guard watches `time`) and, from above, the judge's own clock around the whole call
(`sub.timed`): a benchmark cannot report more time than it took. The CUDA path is graded on a CPU
host by faking CUDA (`probes.replace` / `probes.substitute`: `synchronize`, `Event` and
`current_stream` write into one log with the calls of `fn` and of the clocks), and the order of
that log is checked; on a GPU host `@requires_cuda` checks time `torch.cuda._sleep` kernels.
"""
import pytest
import torch

from grader.testing import check, requires_cuda

KEYS = {"mean_ms", "median_ms", "min_ms"}
CUDA_CALLS = ("torch.cuda._lazy_init", "torch.cuda.init", "torch.cuda.synchronize", "torch.cuda.Event",
              "torch.cuda.current_stream", "torch.cuda.current_device", "torch.cuda.set_device",
              "torch.cuda.empty_cache", "torch.cuda.reset_peak_memory_stats", "torch.cuda.max_memory_allocated",
              "torch.cuda.memory_allocated", "torch.cuda.Stream", "torch.accelerator.synchronize")


def _stats(result, what):
    """The answer's three figures, after checking its type: a dict of exactly KEYS, real numbers."""
    assert isinstance(result, dict), f"{what} returned {type(result).__name__}, not a dict"
    assert set(result) == KEYS, f"{what} returned the keys {sorted(result)}, expected {sorted(KEYS)}"
    for key, value in result.items():
        assert isinstance(value, (int, float)) and not isinstance(value, bool), \
            f"{what}[{key!r}] is {type(value).__name__}, expected a Python float"
        assert value == value and value >= 0, f"{what}[{key!r}] = {value}"
    return result["mean_ms"], result["median_ms"], result["min_ms"]


def _sleeper(mod, schedule_ms, warmup, iters, device="cpu"):
    """benchmark over fn = the k-th call sleeps schedule_ms[k] (the last entry repeats)."""
    import time

    calls = []

    def fn():
        calls.append(len(calls))
        time.sleep(schedule_ms[min(len(calls) - 1, len(schedule_ms) - 1)] / 1000.0)

    result = mod.benchmark(fn, warmup=warmup, iters=iters, device=device)
    return result, len(calls)


def _measure(sub, schedule_ms, warmup, iters, what, fits):
    """Up to three timed runs of benchmark over `_sleeper`: a loaded machine stretches sleeps, so
    an upper bound may fail a correct answer once; a wrong timing (warmup timed, a bad median)
    fails every run. Returns the first run whose (mean, median, min) `fits` accepts, else the last."""
    for _ in range(3):
        (result, calls), elapsed = sub.timed(_sleeper, sub, schedule_ms, warmup, iters)
        figures = _stats(result, what)
        if fits(*figures):
            break
    return figures, calls, elapsed


def _within_judge_clock(mean, iters, elapsed, what):
    # the judge's clock ran around the whole call: iters timed calls cannot add up to more
    assert mean * iters <= elapsed * 1000.0 + 0.5, (
        f"{what} reports mean_ms={mean:.3f} over {iters} calls = {mean * iters:.1f} ms, but the whole "
        f"call took {elapsed * 1000:.1f} ms on the judge's clock")


@check("api")
@pytest.mark.parametrize("warmup, iters", [(3, 7), (0, 4), (5, 1), (None, None)], ids=["3+7", "0+4", "5+1", "defaults"])
def test_call_count(sub, warmup, iters):
    def count(mod, warmup, iters):
        calls = []
        fn = lambda: calls.append(1)  # noqa: E731
        result = mod.benchmark(fn) if warmup is None else mod.benchmark(fn, warmup=warmup, iters=iters)
        return result, len(calls)

    result, calls = sub.probe(count, sub, warmup, iters)
    asked = "the defaults" if warmup is None else f"warmup={warmup}, iters={iters}"
    want = 5 + 50 if warmup is None else warmup + iters
    _stats(result, f"benchmark(fn) with {asked}")
    assert calls == want, f"fn was called {calls} times with {asked}; expected {want}"


@check("value")
def test_keys_and_order(sub):
    result, calls = sub.probe(_sleeper, sub, [0.0], 1, 6)
    mean, median, low = _stats(result, "benchmark(fn, warmup=1, iters=6)")
    assert calls == 7, f"fn was called {calls} times, expected 7"
    assert low <= median and low <= mean, f"min_ms={low} is above median_ms={median} or mean_ms={mean}"


@check("value", weight=2)
def test_sleep_statistics(sub):
    # fn = time.sleep(0.002): each call takes at least 2 ms. The median's upper bound (5x) is far
    # above what a loaded machine adds to a sleep (scheduler latency: a few ms, seen in CI) and far
    # below what a wrong unit or a total gives (20x and more); the mean is bounded by the judge's clock
    (mean, median, low), calls, elapsed = _measure(sub, [2.0], 2, 20, "benchmark(lambda: time.sleep(0.002), warmup=2, iters=20)",
                                                   lambda mean, median, low: median <= 10.0)
    assert calls == 22, f"fn was called {calls} times, expected 22"
    assert 1.9 <= low <= median <= 10.0, f"per call in ms: min {low:.3f}, median {median:.3f}; expected 2 ms per call (up to 10 on a loaded machine)"
    assert mean >= 1.9, f"mean_ms={mean:.3f} for calls that each sleep 2 ms"
    _within_judge_clock(mean, 20, elapsed, "benchmark(sleep 2 ms)")


@check("value", weight=2)
def test_per_call_statistics(sub):
    # the timed calls sleep 10, 10, 40, 10, 10 ms: median ~10, mean ~16, min ~10. Durations of tens
    # of ms keep the bounds clear of the few ms a loaded machine adds to a sleep; the unsorted
    # median (the 40 ms call in the middle) stays above them
    (mean, median, low), calls, elapsed = _measure(sub, [0.0, 10.0, 10.0, 40.0, 10.0, 10.0], 1, 5, "benchmark(fn, warmup=1, iters=5)",
                                                   lambda mean, median, low: low <= 25.0 and median <= 25.0)
    assert calls == 6, f"fn was called {calls} times, expected 6"
    assert 9.5 <= low <= 25.0, f"min_ms={low:.3f} for timed calls of 10, 10, 40, 10, 10 ms"
    assert 9.5 <= median <= 25.0, f"median_ms={median:.3f} for timed calls of 10, 10, 40, 10, 10 ms (the middle of the sorted times)"
    assert 15.5 <= mean, f"mean_ms={mean:.3f} for timed calls of 10, 10, 40, 10, 10 ms (expected about 16)"
    _within_judge_clock(mean, 5, elapsed, "benchmark(10, 10, 40, 10, 10 ms)")


@check("value")
def test_warmup_not_timed(sub):
    # the two warmup calls sleep 150 ms each, the timed ones 2 ms: none of the 300 ms may show
    # (timed warmup gives a mean of 39 ms or more; a loaded machine adds a few ms to a sleep)
    (mean, median, low), calls, elapsed = _measure(sub, [150.0, 150.0, 2.0], 2, 6, "benchmark(fn, warmup=2, iters=6)",
                                                   lambda mean, median, low: median <= 20.0 and mean <= 20.0)
    assert calls == 8, f"fn was called {calls} times, expected 8"
    assert 1.9 <= low and median <= 20.0 and mean <= 20.0, (
        f"mean_ms={mean:.3f}, median_ms={median:.3f} for timed calls of 2 ms after two 150 ms warmup "
        f"calls: the warmup calls were timed")
    _within_judge_clock(mean, 6, elapsed, "benchmark(warmup 150 ms, 2 ms)")


def _clocks(mod):
    """Which clocks benchmark reads (spied, any import style) and which it must not."""
    import time

    from grader import probes

    bad = ("time.time", "time.time_ns", "time.process_time", "time.process_time_ns")
    with probes.spy("time.perf_counter", "time.perf_counter_ns", "timeit.default_timer", module=mod) as good, \
            probes.spy(*bad, module=mod) as wrong:
        result = mod.benchmark(lambda: time.sleep(0.001), warmup=1, iters=3)
    return result, good.names(), wrong.names()


JUMP_S = 0.25  # how far perf_counter moves on during each call of fn in `_virtual_clock`


def _virtual_clock(mod, jump_s):
    """benchmark on the CPU with perf_counter (perf_counter_ns, timeit.default_timer) made to move on
    by `jump_s` during each call of fn, which really sleeps 1 ms: times computed from perf_counter
    show the jump, times from any other clock do not, whatever reference read it (a builtin kept
    from import and called from C code, `functools.partial(getattr(time, "ti" + "me"))`, is out of
    the call watch's sight, never out of this one's)."""
    import time

    from grader import probes

    real, real_ns = time.perf_counter, time.perf_counter_ns
    offset = [0.0]

    def perf_counter():
        return real() + offset[0]

    def perf_counter_ns():
        return real_ns() + round(offset[0] * 1e9)

    def fn():
        time.sleep(0.001)
        offset[0] += jump_s

    with probes.substitute("time.perf_counter", perf_counter, module=mod), \
            probes.substitute("time.perf_counter_ns", perf_counter_ns, module=mod), \
            probes.substitute("timeit.default_timer", perf_counter, module=mod):
        return mod.benchmark(fn, warmup=1, iters=3)


def _static_bad_clocks(static):
    found = []
    for name in ("time.time", "time.time_ns", "time.process_time", "time.process_time_ns"):
        found += [f"{name} (line {line})" for line in static.uses(name)]
    return found


@check("api", weight=2)
def test_uses_perf_counter(sub):
    sub.static.require_implemented("benchmark")
    result, good, wrong = sub.probe(_clocks, sub)
    mean, median, low = _stats(result, "benchmark(lambda: time.sleep(0.001), warmup=1, iters=3)")
    assert low >= 0.95, f"min_ms={low:.3f} for calls that sleep 1 ms"
    assert not wrong, f"benchmark read {sorted(set(wrong))}: time with time.perf_counter (or perf_counter_ns)"
    # the effect (authoritative: no reference to another clock, however it was built or called,
    # shows perf_counter's jumps)
    mean, median, low = _stats(sub.probe(_virtual_clock, sub, JUMP_S), "benchmark(fn, warmup=1, iters=3)")
    assert low >= 0.9 * JUMP_S * 1000.0, (
        f"with time.perf_counter moving on {JUMP_S * 1000:.0f} ms during each call of fn (which sleeps 1 ms), "
        f"benchmark reported min_ms={low:.3f}: its times come from another clock; time with time.perf_counter "
        "(or perf_counter_ns)")
    # and in the source (a secondary reason: a branch the run did not take)
    assert not _static_bad_clocks(sub.static), \
        f"the code refers to {_static_bad_clocks(sub.static)}: time with time.perf_counter (or perf_counter_ns)"
    assert len(good) >= 2, f"on the CPU benchmark read time.perf_counter/perf_counter_ns {len(good)} times"


@check("device")
def test_cpu_path_leaves_cuda_alone(sub):
    # On a CPU-only build CUDA is never initialised, so CUDA is made to look available and every
    # torch.cuda call (but is_available/device_count) is forbidden and recorded.
    def cpu_path(mod, calls):
        import time

        from grader import probes

        results = []
        with probes.replace("torch.cuda.is_available", returns=True, module=mod), \
                probes.forbid(*calls, module=mod) as touched:
            for device in ("cpu", torch.device("cpu")):
                try:
                    results.append(mod.benchmark(lambda: time.sleep(0.0005), warmup=1, iters=3, device=device))
                except probes.ForbiddenAPIError:
                    results.append(None)
        return results, touched.names(), torch.cuda.is_initialized()

    results, touched, initialised = sub.probe(cpu_path, sub, CUDA_CALLS)
    for result in results:
        if result is not None:
            _stats(result, "benchmark(fn, device='cpu')")
    assert not touched, f"with device='cpu' benchmark called {sorted(set(touched))} (CUDA looked available)"
    assert None not in results and not initialised, "the CPU path used CUDA"


def _fake_cuda(mod, warmup, iters, device):
    """benchmark(fn, device='cuda') on a CPU host with CUDA faked: returns the log of what ran,
    in order: F (fn), S (a synchronisation), C (a clock read), R (Event.record), E (elapsed_time).

    What a valid CUDA benchmark may call is modelled: `torch.cuda.device(...)` / `device_of`
    contexts, `current_device`, `set_device`, `device_count`, `init`, `synchronize(device)`,
    `Event(enable_timing=..., blocking=..., interprocess=..., external=...)`, `Stream(...)`,
    `current_stream` / `default_stream(device)`, `stream(s)` / `set_stream`, a stream's own
    `synchronize` / `wait_stream` / `record_event` and `with stream:`, `get_device_name`, nvtx
    ranges, `reset_peak_memory_stats`, and the `torch.accelerator` twins. A call that would still
    reach real CUDA (its lazy init, or a CUDA-only binding of this build) is not modelled: the
    probe reports it (the third value) and the check is not run, never failed."""
    import contextlib
    import time
    import timeit

    import torch

    from grader import probes

    log = []
    clock = time.perf_counter

    def sync(*args, **kwargs):
        log.append("S")

    def nothing(*args, **kwargs):
        return None

    class FakeEvent:
        def __init__(self, enable_timing=False, blocking=False, interprocess=False, external=False):
            self.at, self.timing = None, bool(enable_timing)

        def record(self, stream=None):
            log.append("R")
            self.at = clock()

        def synchronize(self):
            log.append("S")

        def query(self):
            return True

        def wait(self, stream=None):
            pass

        def elapsed_time(self, end):
            log.append("E")
            if not (self.timing and end.timing):  # as torch.cuda.Event does
                raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
            if self.at is None or end.at is None:
                raise RuntimeError("elapsed_time of an event that was never recorded")
            return (end.at - self.at) * 1000.0

    class FakeStream:
        device, device_index, device_type, cuda_stream, priority = torch.device("cuda", 0), 0, 1, 0, 0

        def __init__(self, device=None, priority=0, **kwargs):
            pass

        synchronize = staticmethod(sync)

        def query(self):
            return True

        def wait_stream(self, other):
            pass

        def wait_event(self, event):
            pass

        def record_event(self, event=None):
            event = event or FakeEvent(enable_timing=True)
            event.record()
            return event

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    class FakeContext:                      # torch.cuda.device / device_of / stream / StreamContext
        def __init__(self, *args, **kwargs):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    def timer(original):
        def read():
            log.append("C")
            return original()
        return read

    def fn():
        log.append("F")

    stream = FakeStream()
    modelled = {
        "torch.cuda.synchronize": sync, "torch.accelerator.synchronize": sync,
        "torch.cuda.Event": FakeEvent, "torch.cuda.Stream": FakeStream,
        "torch.cuda.current_stream": lambda *a, **k: stream, "torch.cuda.default_stream": lambda *a, **k: stream,
        "torch.accelerator.current_stream": lambda *a, **k: stream,
        "torch.cuda.stream": FakeContext, "torch.cuda.StreamContext": FakeContext, "torch.cuda.set_stream": nothing,
        "torch.accelerator.set_stream": nothing,
        "torch.cuda.device": FakeContext, "torch.cuda.device_of": FakeContext, "torch.accelerator.device_index": FakeContext,
        "torch.cuda.current_device": lambda: 0, "torch.accelerator.current_device_index": lambda: 0,
        "torch.accelerator.current_device_idx": lambda: 0,
        "torch.cuda.set_device": nothing, "torch.accelerator.set_device_index": nothing,
        "torch.accelerator.set_device_idx": nothing,
        "torch.cuda.device_count": lambda: 1, "torch.accelerator.device_count": lambda: 1,
        "torch.cuda.init": nothing, "torch.cuda.get_device_name": lambda *a, **k: "simulated GPU",
        "torch.cuda.reset_peak_memory_stats": nothing, "torch.accelerator.reset_peak_memory_stats": nothing,
        "torch.cuda.nvtx.range_push": nothing, "torch.cuda.nvtx.range_pop": nothing,
        "torch.cuda.nvtx.mark": nothing, "torch.cuda.nvtx.range": FakeContext,
        "time.perf_counter": timer(time.perf_counter), "time.perf_counter_ns": timer(time.perf_counter_ns),
        "timeit.default_timer": timer(timeit.default_timer),
    }
    no_cuda_here = ("compiled without cuda", "not compiled with cuda", "not linked with support for cuda",
                    "dummy base class", "requires cuda support", "nvtx functions not installed",
                    "has no attribute '_cuda", "cannot access accelerator device", "no cuda gpus")
    result = unmodelled = None
    with contextlib.ExitStack() as stack:
        stack.enter_context(probes.replace("torch.cuda.is_available", "torch.accelerator.is_available",
                                           returns=True, module=mod))
        for target, fake in modelled.items():
            try:
                owner, name = probes._resolve(target)
                present = hasattr(owner, name)
            except (ValueError, AttributeError):
                present = False                 # not in this torch: nothing to model
            if present:
                stack.enter_context(probes.substitute(target, fake, module=mod))
        initialised = stack.enter_context(probes.forbid("torch.cuda._lazy_init", module=mod))
        try:
            result = mod.benchmark(fn, warmup=warmup, iters=iters, device=device)
        except Exception as exc:  # noqa: BLE001 - a call the fake does not model, or the candidate's own error
            if isinstance(exc, NotImplementedError) or not (
                    initialised.names() or any(p in str(exc).lower() for p in no_cuda_here)):
                raise
            unmodelled = f"{type(exc).__name__}: {str(exc)[:200]}"
        if initialised.names():
            unmodelled = "one that initialises real CUDA (torch.cuda._lazy_init)"
    return result, "".join(log), unmodelled


def _unsynchronised(log):
    """The reads of time that a kernel launched by fn may still be running into: a clock read (C)
    or an elapsed_time (E) with an fn call (F) before it and no synchronisation (S) since."""
    bad, pending = [], False
    for i, token in enumerate(log):
        if token == "F":
            pending = True
        elif token == "S":
            pending = False
        elif token in "CE" and pending:
            bad.append(i)
    return bad


@check("api", weight=2)
@pytest.mark.parametrize("target", ["cuda", "cuda:0"])
def test_cuda_path_synchronises(sub, target):
    # CPU stand-in for the CUDA checks: the order of fn calls, synchronisations and clock reads
    result, log, unmodelled = sub.probe(_fake_cuda, sub, 2, 4, target)
    if unmodelled is not None:  # a call the simulation does not model: not graded here, never failed
        pytest.skip(f"the simulated CUDA path on this CPU host does not model a call the code makes: "
                    f"{unmodelled}; the CUDA checks grade it on a GPU host")
    _stats(result, f"benchmark(fn, warmup=2, iters=4, device={target!r})")
    assert log.count("F") == 6, f"fn was called {log.count('F')} times, expected 6 (log {log})"
    timed = log.count("C") >= 2 or (log.count("R") >= 2 and "E" in log)
    assert timed, f"no timing seen on the CUDA path: read time.perf_counter around the calls or use torch.cuda.Event (log {log})"
    bad = _unsynchronised(log)
    assert not bad, (
        "on CUDA, fn only launches kernels: time was read while fn's work could still be running "
        f"(no torch.cuda.synchronize / Event.synchronize between the call and the reading). Log: {log} "
        "(F fn, S synchronise, C clock, R Event.record, E elapsed_time)")


def _kernel_ms(mod, cycles):
    """Duration of one torch.cuda._sleep(cycles) kernel, measured with CUDA events (judge's probe)."""
    torch.cuda._sleep(1000)
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(10):
        torch.cuda._sleep(cycles)
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / 10


@requires_cuda
@check("perf", weight=2)
def test_cuda_sleep_kernel(sub):
    cycles = 1_000_000
    per = sub.probe(_kernel_ms, sub, cycles)
    cycles = int(cycles * 2.0 / max(per, 1e-3))           # aim at about 2 ms per kernel
    kernel = sub.probe(_kernel_ms, sub, cycles)

    def run(mod, cycles):
        return mod.benchmark(lambda: torch.cuda._sleep(cycles), warmup=3, iters=20, device="cuda")

    result, elapsed = sub.timed(run, sub, cycles)
    mean, median, low = _stats(result, "benchmark(lambda: torch.cuda._sleep(cycles), device='cuda')")
    assert abs(mean - kernel) <= 0.2 * kernel, (
        f"mean_ms={mean:.3f} for a kernel that runs {kernel:.3f} ms: timing without synchronising "
        f"measures only the launch")
    assert low <= median <= 1.5 * kernel
    _within_judge_clock(mean, 20, elapsed, "benchmark(torch.cuda._sleep)")


@requires_cuda
@check("api")
def test_cuda_sync_spy(sub):
    def spied(mod):
        from grader import probes

        with probes.spy("torch.cuda.synchronize", "torch.cuda.Event.synchronize", "torch.cuda.Event.elapsed_time",
                        "torch.cuda.Stream.synchronize", module=mod) as seen:
            def fn():
                seen.calls.append(("fn", (), {}))
                torch.cuda._sleep(100_000)
            result = mod.benchmark(fn, warmup=2, iters=5, device="cuda")
        names = seen.names()
        last_fn = max(i for i, n in enumerate(names) if n == "fn")
        return result, names, [n for n in names[last_fn + 1:] if n != "fn"]

    result, names, after = sub.probe(spied, sub)
    _stats(result, "benchmark(fn, device='cuda')")
    assert names.count("fn") == 7, f"fn was called {names.count('fn')} times, expected 7"
    assert after, \
        f"nothing synchronised CUDA after the timed region (calls after the last fn: {after})"
