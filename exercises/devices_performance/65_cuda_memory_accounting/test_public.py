"""Public checks for 65_cuda_memory_accounting: run them with `grader check 65` (on any machine)."""
import torch

from grader.testing import check


@check("device")
def test_free_and_report_deletes_keys(sub):
    def run(mod):
        container = {"a": torch.ones(3), "b": torch.zeros(2), "c": torch.arange(4.0)}
        out = mod.free_and_report(container, ["a", "c"])
        return out, sorted(container), torch.cuda.is_available()

    out, keys, cuda = sub.probe(run, sub)
    assert keys == ["b"], f"after free_and_report(container, ['a', 'c']) the keys are {keys}, expected ['b']"
    assert isinstance(out, tuple) and len(out) == 2 and all(type(v) is int for v in out), \
        f"free_and_report should return a tuple of two ints, got {out!r}"
    if not cuda:
        assert out == (0, 0), f"without CUDA free_and_report should return (0, 0), got {out!r}"


@check("device")
def test_peak_without_cuda(sub):
    def run(mod):
        calls = []
        out = mod.peak_memory_bytes(lambda: calls.append(1))
        report = mod.free_and_report({"x": torch.ones(2)}, ["x"])
        return out, len(calls), report, torch.cuda.is_available()

    out, calls, report, cuda = sub.probe(run, sub)
    assert type(out) is int and out >= 0, f"peak_memory_bytes should return an int, got {out!r}"
    assert isinstance(report, tuple) and len(report) == 2, f"free_and_report should return a tuple, got {report!r}"
    if not cuda:
        assert out == 0 and calls == 0, f"without CUDA: expected 0 and fn never called, got {out} and {calls} call(s)"
        assert report == (0, 0), f"without CUDA free_and_report should return (0, 0), got {report!r}"
