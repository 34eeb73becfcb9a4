"""The spies' call watch (grader.sandbox.callwatch): calls through references the attribute patch
never sees, no call counted twice, and a profile function switched off is tampering.

In-process: the watch is a profile function and an audit hook, which behave the same in this
process as in a worker (the attack suite runs the same routes through both runtimes:
hessian_kept, moved_kept, clock_kept, profile_off).
"""
from __future__ import annotations

import _thread
import functools
import sys
import threading
import time

import pytest
import torch
import torch.autograd.functional as autograd_functional
from torch import nn

from grader import probes
from grader.sandbox import registries
from grader.sandbox.tamper import TamperingDetected

registries.install()  # as in the fork server: nn.Module._apply is then the registry guard's wrapper

HESSIAN = "torch.autograd.functional.hessian"
# references taken before any block, as a submission takes them at import
KEPT_HESSIAN = [getattr(autograd_functional, "hes" + "sian")]
KEPT_APPLY = [getattr(nn.Module, "_ap" + "ply")]
KEPT_CLOCK = [getattr(time, "ti" + "me")]
KEPT_CPU = [getattr(torch.Tensor, "c" + "pu")]
KEPT_SETPROFILE = [getattr(sys, "set" + "profile")]


def cube(t: torch.Tensor) -> torch.Tensor:
    return (t ** 3).sum()


X = torch.randn(3)


def _net() -> nn.Module:
    return nn.Sequential(nn.Linear(2, 3), nn.ReLU())


@pytest.mark.parametrize("route", ["attribute", "kept", "partial", "map", "thread"])
def test_a_python_function_is_seen_on_every_route(route):
    calls = {
        "attribute": lambda: autograd_functional.hessian(cube, X),
        "kept": lambda: KEPT_HESSIAN[0](cube, X),
        "partial": lambda: functools.partial(KEPT_HESSIAN[0], cube)(X),
        "map": lambda: list(map(KEPT_HESSIAN[0], [cube], [X])),
    }

    def in_thread():
        worker = threading.Thread(target=KEPT_HESSIAN[0], args=(cube, X))
        worker.start()
        worker.join()

    with probes.spy(HESSIAN) as seen:
        calls.get(route, in_thread)()
    assert seen.names() == [HESSIAN]  # once: the wrapper's call is not counted again
    ((_, args, _),) = seen.calls
    assert args[0] is cube and torch.equal(args[1], X)  # the arguments, read from the new frame


def test_a_method_under_decorators_is_counted_once():
    # nn.Module._apply is wrapped by the registry guard (functools.wraps), SGD.step by torch's own
    # decorators: the watch looks for the function underneath, reached through them
    net = _net()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    with probes.spy("torch.nn.Module._apply", "torch.optim.SGD.step") as seen:
        net.cpu()
        opt.step()
    assert seen.names() == ["torch.nn.Module._apply"] * 3 + ["torch.optim.SGD.step"]


def test_a_kept_method_called_on_leaves_is_seen_with_its_module():
    net = _net()
    with probes.spy("torch.nn.Module.to", "torch.nn.Module.cpu", "torch.nn.Module._apply") as seen:
        for leaf in (net[0], net[1]):
            KEPT_APPLY[0](leaf, lambda t: t.cpu())
    assert [(name, args[0]) for name, args, _ in seen.calls] == [("torch.nn.Module._apply", net[0]),
                                                                  ("torch.nn.Module._apply", net[1])]


def test_builtins_called_by_python_code_are_seen():
    with probes.spy("time.time", "torch.Tensor.cpu") as seen:
        KEPT_CLOCK[0]()
        KEPT_CPU[0](X)
        X.cpu()
        torch.Tensor.cpu(X)
    assert seen.names() == ["time.time"] + ["torch.Tensor.cpu"] * 3
    assert [args for _, args, _ in seen.calls][1:] == [(X,)] * 3  # a method reports the object it is bound to


def test_builtins_called_by_c_code_are_not_seen():
    # the stated limit (callwatch's docstring): no profile event for a builtin that C code calls
    with probes.spy("time.time") as seen:
        functools.partial(KEPT_CLOCK[0])()
    assert seen.names() == []


def test_torch_calling_its_own_builtins_is_not_the_candidates_call():
    # F.dropout calls torch's builtin through a reference of its own (_VF.dropout)
    with probes.spy("torch.nn.functional.dropout", "torch.dropout") as seen:
        nn.functional.dropout(torch.ones(4), 0.5, training=True)
    assert seen.names() == ["torch.nn.functional.dropout"]


def test_blocks_nest_and_the_profile_function_is_restored():
    before = sys.getprofile()
    with probes.spy(HESSIAN) as outer:
        with probes.spy("time.time") as inner:
            KEPT_HESSIAN[0](cube, X)
            KEPT_CLOCK[0]()
        KEPT_CLOCK[0]()  # after the inner block: nobody watches time.time
    assert outer.names() == [HESSIAN] and inner.names() == ["time.time"]
    assert sys.getprofile() is before


def test_a_probes_own_profile_function_sees_events():
    events = []
    with probes.spy(HESSIAN, profile=lambda frame, event, arg: events.append(event)) as seen:
        KEPT_HESSIAN[0](cube, X)
    assert seen.names() == [HESSIAN] and "call" in events and "return" in events


def _off_and_on_from_c():
    mine = sys.getprofile()
    list(map(KEPT_SETPROFILE[0], [None]))
    KEPT_HESSIAN[0](cube, X)
    list(map(KEPT_SETPROFILE[0], [mine]))


def _raw_thread():
    done = threading.Event()
    _thread.start_new_thread(lambda: (KEPT_HESSIAN[0](cube, X), done.set()), ())
    done.wait(10)


@pytest.mark.parametrize(("attack", "why"), [
    (lambda: KEPT_SETPROFILE[0](None), "the profile function was replaced"),
    (lambda: KEPT_SETPROFILE[0](lambda *a: None), "the profile function was replaced"),
    (_off_and_on_from_c, r"sys\.setprofile was called"),
    (_raw_thread, r"started a thread with _thread directly"),
], ids=["off", "replaced", "off_and_on_from_c", "raw_thread"])
def test_switching_the_watch_off_is_tampering(attack, why):
    before = sys.getprofile()
    with pytest.raises(TamperingDetected, match=why):
        with probes.spy(HESSIAN):
            attack()
    assert sys.getprofile() is before
    with probes.spy(HESSIAN) as seen:  # the next block works again
        KEPT_HESSIAN[0](cube, X)
    assert seen.names() == [HESSIAN]


def test_forbid_records_a_kept_reference_it_cannot_refuse():
    with probes.forbid(HESSIAN) as seen:
        with pytest.raises(probes.ForbiddenAPIError):
            autograd_functional.hessian(cube, X)
        KEPT_HESSIAN[0](cube, X)  # runs: the wrapper is not on this route, but the call is recorded
    assert seen.names() == [HESSIAN, HESSIAN]


def test_forbid_ops_sees_torchs_python_reimplementations():
    # torch._refs.logsumexp computes it from amax, exp, sum and log: the refused aten.logsumexp
    # kernel is never reached, but its code running is seen
    kept = [getattr(torch._refs, "log" + "sumexp"), getattr(torch._refs, "soft" + "max")]
    x = torch.randn(4, 5)
    result, reached = probes.forbid_ops(lambda: kept[0](x, 1), ("logsumexp",))
    assert torch.allclose(result, torch.logsumexp(x, 1))
    assert reached == ["torch._refs.logsumexp (torch's Python decomposition of aten.logsumexp)"]
    assert probes.at_dispatcher(reached) == reached
    # the private aten name is looked up under its public one too
    _, reached = probes.forbid_ops(lambda: kept[1](x, 1), ("_softmax",))
    assert reached == ["torch._refs.softmax (torch's Python reference of aten.softmax)"]
    # computed by hand: nothing
    result, reached = probes.forbid_ops(lambda: x.exp().sum(1).log(), ("logsumexp",))
    assert reached == [] and torch.allclose(result, torch.logsumexp(x, 1))
