"""Hidden checks for 15_loss_bookkeeping."""
import torch

from grader.testing import assert_close, check, requires_cuda


def _expect_value_error(call, when):
    try:
        call()
    except ValueError:
        return
    except Exception as exc:  # noqa: BLE001 - report what was raised instead
        raise AssertionError(f"compute() {when} must raise ValueError, it raised {type(exc).__name__}: {exc}") from None
    raise AssertionError(f"compute() {when} must raise ValueError, it returned normally")


@check("value", weight=2)
def test_weighted_mean(sub):
    # Two full batches and a ragged last one: the mean of batch means (0.5+1.5+4)/3 is wrong.
    w = torch.randn(5, requires_grad=True)
    sizes = [32, 32, 7]
    scales = [0.5, 1.5, 4.0]
    meter = sub.RunningMean()
    expected_sum = 0.0
    for n, scale in zip(sizes, scales):
        loss = scale * (w ** 2).mean()
        meter.update(loss, n)
        expected_sum += float(loss.detach().double()) * n
    assert_close(meter.compute(), expected_sum / sum(sizes), atol=0, rtol=1e-6, what="weighted mean")


@check("dtype")
def test_compute_returns_python_float(sub):
    meter = sub.RunningMean()
    meter.update(torch.tensor(1.25), 4)
    meter.update(torch.tensor(0.25, dtype=torch.float64), 4)
    result = meter.compute()
    assert type(result) is float, (
        f"compute() returned {type(result).__name__}, expected a Python float (e.g. via .item())")
    assert abs(result - 0.75) < 1e-6, f"expected 0.75, got {result}"


@check("grad", weight=2)
def test_no_graph_retained(sub):
    # Autograd graph reachability, not an attribute walk: every tensor the batch losses' graphs
    # saved for backward is packed into a box we hold only weakly, so a box still alive after
    # update() means some graph is still reachable, wherever it is kept (an attribute, a module
    # global, a closure, a list of losses...).
    def graphs_alive(mod):
        import gc
        import weakref

        class Box:
            def __init__(self, t):
                self.t = t

        boxes = []

        def pack(t):
            box = Box(t)
            boxes.append(weakref.ref(box))
            return box

        w = torch.randn(4, requires_grad=True)
        meter = mod.RunningMean()
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda box: box.t):
            for n in (8, 8, 3):
                meter.update(((w * n) ** 2).mean(), n)
        gc.collect()
        alive = sum(ref() is not None for ref in boxes)
        return alive, len(boxes), meter.compute(), w.detach()

    alive, saved, result, w = sub.probe(graphs_alive, sub)
    assert saved > 0, "no graph was built (internal error of the check)"
    expected = sum(n * float(((w * n) ** 2).mean()) for n in (8, 8, 3)) / 19
    assert isinstance(result, float) and abs(result - expected) < 1e-4 * max(1.0, abs(expected)), \
        f"compute() after three updates gave {result!r}, expected {expected:.6g}"
    assert alive == 0, ("after update() the batch losses' autograd graphs are still alive (kept in an attribute, "
                        "a global or a container): detach() the loss before accumulating")


@check("api", weight=2)
def test_no_host_reads_in_update(sub):
    def count_host_reads(mod):
        import collections

        names = ["item", "tolist", "numpy", "__float__", "__int__", "__index__", "__bool__"]
        saved = {name: torch.Tensor.__dict__[name] for name in names if name in torch.Tensor.__dict__}
        calls = collections.defaultdict(list)
        phase = [None]

        def spy(name):
            original = getattr(torch.Tensor, name)

            def wrapper(self, *args, **kwargs):
                if phase[0] is not None:
                    calls[phase[0]].append(name)
                return original(self, *args, **kwargs)
            return wrapper

        losses = list(torch.rand(100).unbind())
        meter = mod.RunningMean()
        for name in names:
            setattr(torch.Tensor, name, spy(name))
        try:
            phase[0] = "update"
            for loss in losses:
                meter.update(loss, 16)
            phase[0] = "compute"
            result = meter.compute()
        finally:
            phase[0] = None
            for name in names:
                if name in saved:
                    setattr(torch.Tensor, name, saved[name])
                else:
                    delattr(torch.Tensor, name)
        return dict(calls), result, torch.stack(losses).detach()

    calls, result, losses = sub.probe(count_host_reads, sub)
    # the answer first: a meter that does nothing reads nothing back trivially
    expected = float(losses.double().mean())
    assert isinstance(result, float) and abs(result - expected) < 1e-5, \
        f"compute() after 100 updates gave {result!r}, expected {expected:.6g}"
    during_update = calls.get("update", [])
    during_compute = calls.get("compute", [])
    assert not during_update, (
        f"100 update() calls read {len(during_update)} tensor values back to Python "
        f"({', '.join(sorted(set(during_update)))}): each is a host sync on GPU; keep the sum as a tensor")
    assert len(during_compute) <= 1, (
        f"compute() read tensor values back {len(during_compute)} times ({', '.join(during_compute)}): one is enough")


@check("device")
def test_update_on_meta_device(sub):
    # CPU stand-in for the CUDA no-sync check: meta tensors have no values, so any read back to the
    # host (.item(), float(), .cpu(), .tolist()) raises, and the sum must stay on the loss's device.
    def update_meta(mod):
        meter = mod.RunningMean()
        try:
            for _ in range(3):
                meter.update(torch.rand((), device="meta"), 8)
        except Exception as exc:  # noqa: BLE001 - report it as data
            return f"{type(exc).__name__}: {exc}", None
        cpu = mod.RunningMean()  # the same class must still compute the right mean
        cpu.update(torch.tensor(1.0), 2)
        cpu.update(torch.tensor(4.0), 1)
        return None, cpu.compute()

    problem, cpu_result = sub.probe(update_meta, sub)
    assert isinstance(cpu_result, float) and abs(cpu_result - 2.0) < 1e-6 if problem is None else True, \
        f"after update(1.0, n=2) and update(4.0, n=1) compute() gave {cpu_result!r}, expected 2.0"
    assert problem is None, (f"update() with a loss on the meta device raised {problem}: update() must not read the "
                             "loss's value or move it to the CPU")


@requires_cuda
@check("device", weight=2)
def test_cuda_update_no_sync(sub):
    losses = torch.rand(20, device="cuda")

    def update_without_sync(mod, losses):
        batch_losses = list(losses.unbind())
        meter = mod.RunningMean()
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")
        try:
            for loss in batch_losses:
                meter.update(loss, 16)
        except RuntimeError as exc:
            return f"{type(exc).__name__}: {exc}", None
        finally:
            torch.cuda.set_sync_debug_mode("default")
        return None, meter.compute()

    problem, result = sub.probe(update_without_sync, sub, losses)
    assert problem is None, f"update() synchronised with the GPU: {problem}"
    assert_close(result, losses.double().mean().item(), atol=0, rtol=1e-6, what="mean of CUDA losses")


@check("dtype", weight=2)
def test_fp16_accumulation_finite(sub):
    def many_fp16_updates(mod):
        loss = torch.tensor(60000.0, dtype=torch.float16)
        meter = mod.RunningMean()
        for _ in range(10_000):
            meter.update(loss, 32)
        return meter.compute()

    result = sub.probe(many_fp16_updates, sub)
    if isinstance(result, torch.Tensor) and result.numel() == 1:
        result = result.item()  # the return type is graded by test_compute_returns_python_float
    assert isinstance(result, (int, float)), f"compute() returned {type(result).__name__}, expected a float"
    assert result == result and abs(result) != float("inf"), (
        f"10 000 updates of a float16 loss of 60000 gave {result}: a float16 accumulator overflows at 65504; "
        "accumulate in float64 (or float32)")
    # 1e-4 relative: a float32 accumulator (allowed) ends about 6e-5 off after 10 000 additions.
    assert abs(result - 60000.0) <= 1e-4 * 60000.0, f"expected a mean of 60000, got {result}"


@check("dtype")
def test_float64_accumulation_on_cpu(sub):
    # The CPU has float64, so the sum is kept in float64: a float32 sum loses what float32 cannot
    # hold (2**-31 next to 1), and drifts over many float32 additions of 0.1.
    def observe(mod):
        fine = mod.RunningMean()
        fine.update(torch.tensor(1.0 + 2.0 ** -30, dtype=torch.float64), 1)
        fine.update(torch.tensor(1.0, dtype=torch.float64), 1)
        many = mod.RunningMean()
        tenth = torch.tensor(0.1, dtype=torch.float32)
        for _ in range(20_000):
            many.update(tenth, 1)
        return fine.compute(), many.compute(), float(tenth.double())

    fine, many, tenth = sub.probe(observe, sub)
    assert float(fine) == 1.0 + 2.0 ** -31, (
        f"the mean of float64 losses 1 + 2**-30 and 1 is {float(fine)!r}, not 1 + 2**-31: on the CPU accumulate "
        "in float64 (a float32 sum rounds the difference away)")
    assert abs(float(many) - tenth) <= 1e-12, (
        f"20 000 updates of the float32 loss 0.1 give a mean of {float(many)!r}, expected {tenth!r}: the float32 "
        "sum drifts; on the CPU accumulate in float64")


@check("value")
def test_reset_and_empty(sub):
    meter = sub.RunningMean()
    _expect_value_error(meter.compute, "on a new RunningMean")
    meter.update(torch.tensor(10.0), 4)
    meter.reset()
    _expect_value_error(meter.compute, "after reset()")
    meter.update(torch.tensor(2.0), 3)
    assert_close(meter.compute(), 2.0, atol=1e-6, rtol=1e-6, what="mean after reset() and one update")
