"""aten operators refused at torch's dispatcher for one call (`forbid_ops`, `forbid_forward_ops`),
whatever route reaches them, with torch's Python re-implementations of them watched."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from grader.probes.spies import ForbiddenAPIError


def forbid_ops(fn: Callable, ops: tuple[str, ...], *args: Any, **kwargs: Any) -> tuple[Any, list[str]]:
    """Call `fn` with the aten operators `ops` forbidden at torch's dispatcher, and return (its
    result, or None when it raised; the forbidden operators it reached, in order). Their CPU (and
    CUDA) kernels are replaced for the call by ones that record the call and raise
    `ForbiddenAPIError`, then put back. Every route to a kernel meets there: a name built at run
    time (`getattr(torch, "cd" + "ist")`), a reference taken at import, `torch.ops.aten`, with
    Python dispatch modes disabled; an attribute spy or the AST sees none of these. `torch.cdist`
    runs `_euclidean_dist` or `_cdist_forward`. Decide from the list, never from the exception (the
    candidate may catch it).

    The guard is itself in the candidate's process: a submission that finds it (gc.get_objects)
    and removes it, resets it, or puts a kernel of its own over it, leaves torch's dispatcher
    otherwise than the guard left it. That is compared after the call (`torch._C._dispatch_dump`
    of each operator, which names every kernel and where it was registered) and raises
    `TamperingDetected`: the probe's observation is void.

    torch also ships Python re-implementations of many operators (`torch._refs.softmax`,
    `torch._decomp`'s `native_layer_norm`), which compute the result from other operators and
    never reach the forbidden kernel: their code running is seen by the call watch
    (`grader.sandbox.callwatch`, whatever reference reached them) and listed by their own names."""

    reached: list[str] = []

    def refuse(name: str) -> Callable:
        def kernel(*a: Any, **k: Any) -> Any:
            reached.append(name)
            raise ForbiddenAPIError(f"aten.{name} is not allowed in this exercise")
        return kernel

    # torch's Python re-implementations of the operators (torch._refs, torch._decomp) compute the
    # same thing from other operators, out of the dispatcher guard's sight: the call watch sees
    # their code run, whatever reference reached them (`_dispatch_guarded`)
    keys = ("CPU", "CUDA") if torch.cuda.is_available() else ("CPU",)
    return _dispatch_guarded(fn, args, kwargs, ops, refuse, keys, ops, reached)


def forbid_forward_ops(fn: Callable, ops: tuple[str, ...], *args: Any, **kwargs: Any) -> tuple[Any, list[str]]:
    """`forbid_ops` for a call that also runs backward passes: the aten operators `ops` ("sigmoid",
    "sigmoid_", an overload as "sigmoid.out") are refused when the candidate's code reaches them,
    and run as usual inside a backward pass (torch's own backward formulas reach them: the
    gradient of `binary_cross_entropy_with_logits` computes `sigmoid`). The refusing kernel sits
    at the autograd keys (AutogradCPU, AutogradCUDA), where every route from Python meets it (a
    name built at run time, a reference kept from import, `torch.ops.aten`, dispatch modes
    disabled); inside a backward pass (`torch._C._current_autograd_node()` is set) it hands the
    call to the kernel below. Returns (fn's result, or None when it raised ForbiddenAPIError; the
    operators refused, in order, with torch's Python re-implementations that ran). What it does
    not see: a call below the autograd keys (`torch.inference_mode()`, whose results carry no
    gradient; `torch._C._AutoDispatchBelowAutograd`). The dispatcher is compared after the call
    as in `forbid_ops` (TamperingDetected when the candidate changed it)."""


    reached: list[str] = []

    def refuse(name: str) -> Callable:
        base, _, overload = name.partition(".")
        below = getattr(getattr(torch.ops.aten, base), overload or "default")

        def kernel(*a: Any, **k: Any) -> Any:
            if torch._C._current_autograd_node() is not None:  # torch's backward formula
                with torch._C._AutoDispatchBelowAutograd():
                    return below(*a, **k)
            reached.append(name)
            raise ForbiddenAPIError(f"aten.{name} is not allowed in this exercise")
        return kernel

    keys = ("AutogradCPU", "AutogradCUDA") if torch.cuda.is_available() else ("AutogradCPU",)
    return _dispatch_guarded(fn, args, kwargs, ops, refuse, keys, [name.partition(".")[0] for name in ops], reached)


def _dispatch_guarded(fn: Callable, args: tuple, kwargs: dict, ops: tuple[str, ...], refuse: Callable,
                      keys: tuple[str, ...], python_ops: list | tuple, reached: list[str]) -> tuple[Any, list[str]]:
    """What `forbid_ops` and `forbid_forward_ops` share: `refuse(name)`'s kernel registered for
    each of `ops` at the dispatch `keys` for the call, torch's Python re-implementations of
    `python_ops` watched, the dispatcher compared after the call (TamperingDetected when the
    candidate changed it), and `reached` (which the kernels fill) returned with what ran."""
    import warnings

    from grader.sandbox import callwatch

    python: list = []
    block = callwatch.Block(python)
    for name in python_ops:
        for target, label in _python_versions(name):
            block.watch(label, target)
    problems: list[str] = []
    library = torch.library.Library("aten", "IMPL")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Overriding a previously registered kernel"
            for name in ops:
                for key in keys:
                    library.impl(name, refuse(name), key)
        guarded = {name: torch._C._dispatch_dump(f"aten::{name}") for name in ops}
        callwatch.open_block(block)
        try:
            result = fn(*args, **kwargs)
        except ForbiddenAPIError:
            result = None
        finally:
            problems = callwatch.close_block(block)
        changed = [name for name in ops if torch._C._dispatch_dump(f"aten::{name}") != guarded[name]]
    finally:
        library._destroy()
    if changed:
        from grader.sandbox.tamper import TamperingDetected

        raise TamperingDetected(f"the submission changed torch's dispatcher for aten.{changed[0]} while its code ran "
                                "(the grader's guard there was removed or overridden): this check cannot be trusted")
    callwatch.refuse(problems)
    reached += [label for label, _, _ in python]
    return result, reached


def _python_versions(op: str) -> list[tuple[Any, str]]:
    """torch's Python implementations of aten `op`: its decompositions (`torch._decomp`) and the
    references of the same name (`torch._refs`), also under the public name (`_softmax` ->
    `softmax`, `native_layer_norm` -> `layer_norm`, `nll_loss_forward` -> `nll_loss`)."""
    import torch._decomp
    import torch._refs
    import torch._refs.nn.functional
    import torch._refs.special

    names = {op, op.removeprefix("_").removeprefix("native_").removesuffix("_forward")}
    found: list[tuple[Any, str]] = []
    for name in sorted(names):
        try:
            packet = getattr(torch.ops.aten, name)
        except (AttributeError, RuntimeError):
            packet = None
        for key, function in torch._decomp.decomposition_table.items():
            if packet is not None and getattr(key, "overloadpacket", None) is packet:
                found.append((function, f"{function.__module__}.{function.__qualname__} (torch's Python "
                                        f"decomposition of aten.{name})"))
        for module in (torch._refs, torch._refs.nn.functional, torch._refs.special):
            function = vars(module).get(name)
            if callable(function):
                found.append((function, f"{module.__name__}.{name} (torch's Python reference of aten.{name})"))
    return found


def at_dispatcher(reached: list[str]) -> list[str]:
    """How a check names the operators `forbid_ops` saw reached, beside a spy's names:
    `aten.<op> (reached at torch's dispatcher)`, and torch's Python re-implementations by their
    own names (`torch._refs.softmax (torch's Python reference of aten.softmax)`)."""
    return [op if " " in op else f"aten.{op} (reached at torch's dispatcher)" for op in reached]
