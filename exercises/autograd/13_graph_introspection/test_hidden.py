"""Hidden checks for 13_graph_introspection.

Autograd graphs exist only in the process that built them (a tensor sent to the worker arrives as a
fresh leaf), so every graph is built inside a probe, next to the candidate's code.
"""
import pytest
import torch

from grader.testing import assert_close, assert_dtype, check


def _assert_name_set(seen, expected, what):
    assert seen["type"] in ("set", "frozenset"), f"backward_node_names({what}) returned a {seen['type']}, not a set"
    got = set(seen["names"])
    assert got == set(expected), (
        f"backward_node_names({what}) returned {sorted(got)}, expected {sorted(expected)}"
        + (" (None is not a node: skip a None grad_fn and None entries of next_functions)" if "NoneType" in got else ""))


@check("value", weight=2)
def test_node_names(sub):
    def names(mod):
        def describe(result):
            try:
                names = sorted(str(n) for n in result)
            except TypeError:
                names = None
            return {"type": type(result).__name__, "names": names}

        a = torch.randn(3, requires_grad=True)
        b = torch.randn(3, requires_grad=True)
        c = torch.randn(3)                      # does not require grad: a None entry in next_functions
        return {"relu": describe(mod.backward_node_names(((a * b) + a).relu().sum())),
                "exp": describe(mod.backward_node_names((a * c + 1).exp().sum()))}

    seen = sub.probe(names, sub)
    _assert_name_set(seen["relu"], {"MulBackward0", "AddBackward0", "ReluBackward0", "SumBackward0", "AccumulateGrad"},
                     "((a*b) + a).relu().sum()")
    _assert_name_set(seen["exp"], {"MulBackward0", "AddBackward0", "ExpBackward0", "SumBackward0", "AccumulateGrad"},
                     "(a*c + 1).exp().sum() with c not requiring grad")


@check("value")
def test_no_graph_empty(sub):
    def names(mod):
        def describe(result):
            try:
                names = sorted(str(n) for n in result)
            except TypeError:
                names = None
            return {"type": type(result).__name__, "names": names}

        a = torch.randn(3, requires_grad=True)
        with torch.no_grad():
            made_under_no_grad = a * 2
        return {"a leaf that requires grad": describe(mod.backward_node_names(a)),
                "(a * 2).detach()": describe(mod.backward_node_names((a * 2).detach())),
                "a * 2 computed under no_grad": describe(mod.backward_node_names(made_under_no_grad)),
                "torch.randn(3)": describe(mod.backward_node_names(torch.randn(3)))}

    for what, seen in sub.probe(names, sub).items():
        _assert_name_set(seen, set(), what)


@check("value", weight=2)
def test_count_leaves_shared(sub):
    def counts(mod):
        from torch import nn

        a = torch.randn(3, requires_grad=True)
        b = torch.randn(3, requires_grad=True)
        c = torch.randn(3)
        lin = nn.Linear(3, 2)
        x = torch.randn(4, 3, requires_grad=True)
        cases = {
            "((a*b) + a).relu().sum()": ((a * b) + a).relu().sum(),
            "a[0] * a[1] * b.sum()": a[0] * a[1] * b.sum(),
            "(a * c).sum() with c not requiring grad": (a * c).sum(),
            "lin(x) + lin(2 * x) (weight, bias and x)": lin(x) + lin(2 * x),
            "(a * 2).detach()": (a * 2).detach(),
        }
        out = {}
        for name, t in cases.items():
            n = mod.count_leaves(t)
            out[name] = n if isinstance(n, int) else repr(type(n).__name__)
        return out

    expected = {"((a*b) + a).relu().sum()": 2, "a[0] * a[1] * b.sum()": 2,
                "(a * c).sum() with c not requiring grad": 1,
                "lin(x) + lin(2 * x) (weight, bias and x)": 3, "(a * 2).detach()": 0}
    got = sub.probe(counts, sub)
    for name, want in expected.items():
        assert isinstance(got[name], int) and not isinstance(got[name], bool), \
            f"count_leaves({name}) must return an int, got {got[name]}"
        assert got[name] == want, (f"count_leaves({name}) returned {got[name]}, expected {want}: count each "
                                   f"leaf once, however many paths lead to it")


@check("grad", weight=2)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
def test_two_backwards(sub, dtype):
    x = torch.randn(2, 3, dtype=dtype)
    grad = sub.grad_after_two_backwards(x)
    assert_dtype(grad, dtype, what="the accumulated grad")
    assert_close(grad, 4 * x, what="the grad after two backward passes of (x**2).sum()")


@check("grad", weight=2)
def test_one_graph_two_backwards(sub):
    # "build y ONCE, call backward twice on that same graph": every tensor the graph saved for
    # backward is unpacked by each backward pass, so with one graph some saved tensor is unpacked
    # twice; a graph rebuilt for the second pass unpacks each of its saved tensors once.
    def observe(mod, x):
        unpacked = []

        def pack(t):
            unpacked.append(0)
            return len(unpacked) - 1, t

        def unpack(packed):
            index, t = packed
            unpacked[index] += 1
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            grad = mod.grad_after_two_backwards(x)
        history = isinstance(grad, torch.Tensor) and (grad.requires_grad or grad.grad_fn is not None)
        return grad, unpacked, history

    x = torch.randn(2, 3, dtype=torch.float64)
    grad, unpacked, history = sub.probe(observe, sub, x)
    assert isinstance(grad, torch.Tensor), f"grad_after_two_backwards returned {type(grad).__name__}, not a tensor"
    assert not history, ("the accumulated grad carries autograd history (requires_grad): a plain backward "
                         "accumulates a plain gradient; create_graph=True is for higher-order derivatives")
    assert_close(grad, 4 * x, what="the grad after two backward passes of (x**2).sum()")
    assert unpacked, "no tensor was saved for backward: build y = (x**2).sum() from a leaf that requires grad"
    assert max(unpacked) >= 2, ("the graph was rebuilt for the second backward: build y once and call "
                                "y.backward(retain_graph=True), then y.backward() on that same graph")


@check("state")
def test_caller_x_untouched(sub):
    def observe(mod):
        plain = torch.randn(4)
        before = plain.clone()
        out_plain = mod.grad_after_two_backwards(plain)
        trainable = torch.randn(4, requires_grad=True)
        out_trainable = mod.grad_after_two_backwards(trainable)
        return {"outputs": [(out_plain, before), (out_trainable, trainable.detach().clone())],"plain_requires_grad": plain.requires_grad, "plain_grad_is_none": plain.grad is None,
                "plain_same": bool(torch.equal(plain.detach(), before)),
                "trainable_requires_grad": trainable.requires_grad,
                "trainable_grad_is_none": trainable.grad is None}

    seen = sub.probe(observe, sub)
    for got, x in seen["outputs"]:  # the answer first: returning nothing leaves x untouched trivially
        assert isinstance(got, torch.Tensor), f"grad_after_two_backwards returned {type(got).__name__}, not a tensor"
        assert_close(got.detach(), 4 * x, what="grad_after_two_backwards(x)")
    assert seen["plain_requires_grad"] is False, \
        "the caller's x now requires grad: work on a detached clone (x.detach().clone())"
    assert seen["plain_grad_is_none"], "the caller's x got a .grad: work on a detached clone"
    assert seen["plain_same"], "the caller's x changed value"
    assert seen["trainable_requires_grad"] is True, "requires_grad of the caller's x was changed"
    assert seen["trainable_grad_is_none"], \
        "an x that requires grad received .grad: the clone must be a new leaf, cut from x's graph"


@check("perf", timeout_s=5)
def test_shared_dag_perf(sub):
    # Timed by the judge from outside the worker (`sub.cpu_timed`: CPU time), never by a clock in it:
    # building the 300-op graph there takes milliseconds, the walk is what the second counts.
    def walk(mod):
        a = torch.randn(4, dtype=torch.float64, requires_grad=True)
        b = torch.randn(4, dtype=torch.float64, requires_grad=True)
        older, newer = a, b
        for _ in range(300):                     # every op reuses the previous two outputs:
            older, newer = newer, newer + older  # about fib(300) paths from the output to a
        names = mod.backward_node_names(newer)
        count = mod.count_leaves(newer)
        return {"names": sorted(str(n) for n in names), "count": count}

    seen, elapsed = sub.cpu_timed(walk, sub)  # CPU time from outside the worker: load does not move it
    assert elapsed < 1.0, (f"walking a 300-node graph took {elapsed:.2f} s of CPU: visit each node once "
                           f"(remember the nodes you have seen)")
    assert set(seen["names"]) == {"AddBackward0", "AccumulateGrad"}, f"unexpected node names {seen['names']}"
    assert seen["count"] == 2, f"count_leaves returned {seen['count']} for a graph over 2 leaves"
