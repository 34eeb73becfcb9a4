"""Remote handles: judge-side stand-ins for objects that live in the worker.

Attribute access, calls, `len`, indexing, iteration and truth forward to the worker. A call's
answer is data when it can be (tensors, numbers, containers...) and another handle otherwise.
Calls made with grad enabled go through the gradient bridge, so `backward()` and `gradcheck` work
on their outputs.
"""

from __future__ import annotations

import builtins
from typing import Any

import torch

from grader.sandbox import codec
from grader.sandbox.protocol import GradLeaf, flatten_tensors, replace_tensors


class RemoteError(Exception):
    """The candidate's code raised in the worker. Subclassed per builtin type, so that
    `pytest.raises(ValueError)` catches a ValueError raised by the candidate."""

    remote_type = "Exception"
    remote_traceback = ""
    remote_where = ""  # the candidate's own frames, innermost last


class NotImplementedInSubmission(RemoteError):
    """A stub left as is. Deliberately *not* a RuntimeError: no `pytest.raises` can catch it."""


_error_classes: dict[str, type[RemoteError]] = {}


def remote_exception(error: dict, what: str) -> RemoteError:
    type_name = str(error.get("type", "Exception"))[:100]
    message = str(error.get("message", ""))
    tb = str(error.get("traceback", ""))
    if type_name == "NotImplementedError":
        cls: type[RemoteError] = NotImplementedInSubmission
    else:
        cls = _error_classes.get(type_name)
        if cls is None:
            base = getattr(builtins, type_name, None)
            bases: tuple[type, ...] = (RemoteError,)
            if isinstance(base, type) and issubclass(base, Exception) and not issubclass(base, NotImplementedError):
                bases = (RemoteError, base)
            cls = type(type_name, bases, {"__module__": "submission"})
            _error_classes[type_name] = cls
    text = f"{what} raised {type_name}: {message}" if message else f"{what} raised {type_name}"
    try:
        exc = cls(text)
    except TypeError:  # a builtin whose constructor wants other arguments (UnicodeDecodeError...)
        cls = type(type_name, (RemoteError,), {"__module__": "submission"})
        _error_classes[type_name] = cls
        exc = cls(text)
    exc.remote_type = type_name
    exc.remote_traceback = tb
    exc.remote_where = str(error.get("where", ""))
    return exc


class _RemoteCall(torch.autograd.Function):
    """Gradient bridge: outputs of a remote call whose backward runs in the worker."""

    @staticmethod
    def forward(ctx, info: dict, *inputs: torch.Tensor):  # type: ignore[override]
        ctx.info = info
        ctx.n_inputs = len(inputs)
        return tuple(t.detach() for t in info["outputs"])

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, *grads: torch.Tensor):  # type: ignore[override]
        info = ctx.info
        answer = info["worker"].request(
            {"op": "backward", "call_id": info["call_id"], "grads": [g.detach() if g is not None else None for g in grads]},
            what=f"the backward pass of {info['what']}",
        )
        if "error" in answer:
            raise remote_exception(answer["error"], f"the backward pass of {info['what']}")
        input_grads = list(answer["ok"]) if info["has_inputs"] else []
        input_grads += [None] * (ctx.n_inputs - len(input_grads))
        return (None, *input_grads[: ctx.n_inputs])


def call_remote(worker: Any, request: dict, args: tuple, kwargs: dict, what: str) -> Any:
    """Run a call in the worker; route it through the gradient bridge when grad mode is on."""
    grad_on = torch.is_grad_enabled()
    grad_inputs: list[torch.Tensor] = []
    if request.get("op") == "call":
        try:  # the judge's own inputs, for the message of a failing public check (judge.explain)
            worker.last_call = (what, args, kwargs)
        except AttributeError:
            pass

    def mark(t: torch.Tensor) -> Any:
        if grad_on and t.requires_grad:
            grad_inputs.append(t)
            return GradLeaf(len(grad_inputs) - 1, t.detach())
        return t.detach() if t.requires_grad else t

    answer = worker.request({**request, "args": replace_tensors(args, mark), "kwargs": replace_tensors(kwargs, mark),
                             "bridge": grad_on}, what=what)
    if "error" in answer:
        raise remote_exception(answer["error"], what)
    result = answer["ok"]
    if answer.get("call_id") is None:
        return result
    outputs = [t for t in flatten_tensors(result) if t.requires_grad]
    if not outputs:
        return result
    inputs = grad_inputs or [torch.zeros((), requires_grad=True)]  # anchor: parameters live in the worker
    info = {"worker": worker, "call_id": answer["call_id"], "outputs": outputs, "what": what,
            "has_inputs": bool(grad_inputs)}
    bridged = iter(_RemoteCall.apply(info, *inputs))
    return replace_tensors(result, lambda t: next(bridged) if t.requires_grad else t)


class RemoteHandle:
    """An object that lives in the worker."""

    __slots__ = ("_worker", "_ref", "_type", "_repr", "_what", "_module")

    def __init__(self, worker: Any, ref: codec.Ref, what: str):
        object.__setattr__(self, "_worker", worker)
        object.__setattr__(self, "_ref", ref.id)
        object.__setattr__(self, "_type", ref.type_name)
        object.__setattr__(self, "_repr", ref.repr)
        object.__setattr__(self, "_what", what)
        object.__setattr__(self, "_module", ref.module)

    @staticmethod
    def _grader_handle_ref(handle: RemoteHandle) -> int:
        return handle._ref

    def _ask(self, op: str, what: str, **fields: Any) -> Any:
        answer = self._worker.request({"op": op, "ref": self._ref, **fields}, what=what)
        if "error" in answer:
            raise remote_exception(answer["error"], what)
        return answer["ok"]

    @property
    def remote_type(self) -> str:
        """The module-qualified class name of the object in the worker, as `type(obj)` says:
        `torch.nn.modules.linear.Linear` (a candidate's own class `Linear` is `submission.Linear`,
        or whatever its module is called). The bare class name is `remote_class`."""
        return f"{self._module}.{self._type}" if self._module else self._type

    @property
    def remote_class(self) -> str:
        """The class's `__qualname__` alone (`Linear`)."""
        return self._type

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        value = self._ask("getattr", f"{self._what}.{name}", name=name)
        if isinstance(value, RemoteHandle) and value._what == value._type:
            object.__setattr__(value, "_what", f"{self._what}.{name}")  # name functions as written
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        self._ask("setattr", f"setting {self._what}.{name}", name=name, value=value)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return call_remote(self._worker, {"op": "call", "ref": self._ref}, args, kwargs, what=f"{self._what}()")

    def __len__(self) -> int:
        return self._ask("len", f"len({self._what})")

    def __getitem__(self, key: Any) -> Any:
        return self._ask("getitem", f"{self._what}[{key!r}]", key=key)

    def __iter__(self) -> Any:
        iterator = self._ask("iter", f"iter({self._what})")
        return _RemoteIterator(iterator) if isinstance(iterator, RemoteHandle) else iter(iterator)

    def __bool__(self) -> bool:
        return bool(self._ask("bool", f"bool({self._what})"))

    def __repr__(self) -> str:
        return f"<remote {self._type}: {self._repr}>"


class _RemoteIterator:
    def __init__(self, handle: RemoteHandle):
        self.handle = handle

    def __iter__(self) -> _RemoteIterator:
        return self

    def __next__(self) -> Any:
        try:
            return self.handle._ask("next", f"next({self.handle._what})")
        except RemoteError as exc:
            if exc.remote_type == "StopIteration":
                raise StopIteration from None
            raise
