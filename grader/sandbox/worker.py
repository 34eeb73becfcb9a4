"""The untrusted side: a forked process that imports the candidate's module and serves requests.

Every request comes from the judge (trusted, cloudpickled). Every answer goes back through the
safe `codec`. Objects that are not data stay here in `objects` and travel as handle references.
Its set-up (limits, seeds, sandbox) is in `worker_setup`, the guard run around every probe in
`tamper`, the requests' unpickler and the answer for an error in `serving` (shared with the verifier).
"""

from __future__ import annotations

import collections
import os
import socket
import sys
from typing import Any

import torch

from grader.sandbox import codec
from grader.sandbox.protocol import ChannelClosed, GradLeaf, flatten_tensors, recv_msg, send_msg
from grader.sandbox.serving import RequestUnpickler, error_answer, keep_frames_under
from grader.sandbox.tamper import TamperGuard
from grader.sandbox.worker_setup import apply_limits, compile_caches, ensure_seeded, enter_sandbox

MAX_GRAPHS = 256  # remembered bridged calls whose backward the judge may still ask for

# Taken by the fork server once it has warmed up (workers inherit it: no cost per check), or by a
# worker started some other way.
PRISTINE: TamperGuard | None = None


class WorkerState:
    def __init__(self, module: Any, guard: TamperGuard | None = None):
        self.guard = guard
        self.objects: dict[int, Any] = {0: module}
        self.ids: dict[int, int] = {id(module): 0}
        self.graphs: collections.OrderedDict[int, tuple[list, list]] = collections.OrderedDict()
        self.next_call = 1

    def register(self, obj: Any) -> codec.Ref:
        ref = self.ids.get(id(obj))
        if ref is None or self.objects.get(ref) is not obj:
            ref = len(self.objects)
            while ref in self.objects:
                ref += 1
            self.objects[ref] = obj
            self.ids[id(obj)] = ref
        try:
            text = repr(obj)
        except Exception:  # noqa: BLE001 - a broken __repr__ must not break the channel
            text = f"<{type(obj).__name__}>"
        return codec.Ref(ref, type(obj).__qualname__, text[:300], str(type(obj).__module__))

    def resolve(self, obj: Any, leaves: list) -> Any:
        """Swap GradLeaf markers for fresh leaves that require grad, inside containers."""
        if isinstance(obj, GradLeaf):
            leaf = obj.tensor.detach().requires_grad_(True)
            while len(leaves) <= obj.index:
                leaves.append(None)
            leaves[obj.index] = leaf
            return leaf
        if type(obj) in (list, tuple):
            return type(obj)(self.resolve(v, leaves) for v in obj)
        if type(obj) is dict:
            return {k: self.resolve(v, leaves) for k, v in obj.items()}
        return obj


def _run_call(state: WorkerState, fn: Any, req: dict) -> dict:
    leaves: list = []
    args = state.resolve(req.get("args", ()), leaves)
    kwargs = state.resolve(req.get("kwargs", {}), leaves)
    if not req.get("bridge"):
        return {"ok": fn(*args, **kwargs)}
    with torch.enable_grad():
        result = fn(*args, **kwargs)
    outputs = [t for t in flatten_tensors(result) if t.requires_grad]
    answer: dict[str, Any] = {"ok": result}
    if outputs:
        call_id = state.next_call
        state.next_call += 1
        state.graphs[call_id] = (outputs, leaves)
        while len(state.graphs) > MAX_GRAPHS:
            state.graphs.popitem(last=False)
        answer["call_id"] = call_id
    return answer


def _backward(state: WorkerState, req: dict) -> dict:
    try:
        outputs, leaves = state.graphs[req["call_id"]]
    except KeyError:
        raise RuntimeError("the graph of this remote call is no longer kept in the worker") from None
    grads = req["grads"]
    pairs = [(o, g) for o, g in zip(outputs, grads) if g is not None]
    for leaf in leaves:
        if leaf is not None:
            leaf.grad = None
    if pairs:
        torch.autograd.backward([o for o, _ in pairs], [g.to(o.device) for o, g in pairs], retain_graph=True)
    return {"ok": [None if leaf is None or leaf.grad is None else leaf.grad.detach() for leaf in leaves]}


def handle(state: WorkerState, req: dict) -> dict:
    op = req["op"]
    objects = state.objects
    target = objects.get(req.get("ref", 0)) if "ref" in req else None
    if "ref" in req and req["ref"] not in objects:
        raise LookupError(f"stale handle {req['ref']}")
    if op == "getattr":
        return {"ok": getattr(target, req["name"])}
    if op == "setattr":
        setattr(target, req["name"], state.resolve(req["value"], []))
        return {"ok": None}
    if op == "call":
        return _run_call(state, target, req)
    if op == "method":
        return _run_call(state, getattr(target, req["name"]), req)
    if op == "probe":
        if state.guard is not None:
            state.guard.check()
        answer = _run_call(state, req["fn"], req)
        if state.guard is not None:
            state.guard.check()
        return answer
    if op == "len":
        return {"ok": len(target)}
    if op == "getitem":
        return {"ok": target[state.resolve(req["key"], [])]}
    if op == "iter":
        return {"ok": iter(target)}
    if op == "next":
        return {"ok": next(target)}
    if op == "bool":
        return {"ok": bool(target)}
    if op == "repr":
        return {"ok": repr(target)[:2000]}
    if op == "backward":
        return _backward(state, req)
    if op == "read_file":
        from grader.sandbox import verifier

        return {"ok": verifier.read_file(os.getcwd(), req["path"], req["max_bytes"])}
    if op == "write_file":
        from grader.sandbox import verifier

        verifier.write_file(os.getcwd(), req["path"], req["data"])
        return {"ok": None}
    raise ValueError(f"unknown op {op!r}")


def import_candidate(path: str, module_name: str) -> Any:
    """The candidate's module, run from its source (never a bytecode cache), with imports from
    outside the Python installation refused from now on (`grader.sandbox.imports`). Its folder is
    on sys.path only so that importing a file beside it gets that refusal, not "no module named"."""
    from grader.sandbox import imports

    sys.path.insert(0, os.path.dirname(path))
    imports.install()
    return imports.run_candidate(path, module_name)


def _send(sock: socket.socket, state: WorkerState | None, answer: dict) -> None:
    register = state.register if state else (lambda obj: codec.Ref(-1, type(obj).__name__, ""))
    try:
        payload = codec.encode(answer, register)
    except BaseException as exc:  # noqa: BLE001 - an unencodable answer is the candidate's problem
        payload = codec.encode(error_answer(exc), register)
    send_msg(sock, payload)


def serve(sock: socket.socket, config: dict) -> None:
    """Run in the forked child: limits, seed, sandbox, import the candidate, then answer requests."""
    keep_frames_under(os.path.dirname(os.path.abspath(config["candidate"])))
    os.chdir(config["scratch"])
    os.environ.update({"HOME": config["scratch"], "TMPDIR": config["scratch"], **compile_caches(config["scratch"])})
    import tempfile

    tempfile.tempdir = config["scratch"]
    apply_limits(config.get("rlimits", {}))
    sandbox = enter_sandbox(config)
    ensure_seeded(config)
    sys.dont_write_bytecode = True
    from grader.sandbox import callwatch, registries

    registries.install()  # a no-op in a worker of the fork server, which installed it
    callwatch.install()
    guard = PRISTINE or TamperGuard()
    try:
        module = import_candidate(config["candidate"], config["module_name"])
    except BaseException as exc:  # noqa: BLE001 - SystemExit at import is a failure too
        _send(sock, None, {"import_error": error_answer(exc)["error"], "sandbox": sandbox})
        return
    state = WorkerState(module, guard)
    _send(sock, state, {"ready": True, "scratch": config["scratch"], "sandbox": sandbox})
    while True:
        try:
            raw = recv_msg(sock)
        except ChannelClosed:
            return
        try:
            req = RequestUnpickler(bytes(raw), state.objects).load()
            answer = handle(state, req)
        except BaseException as exc:  # noqa: BLE001 - everything the candidate raises is reported
            answer = error_answer(exc)
        _send(sock, state, answer)
