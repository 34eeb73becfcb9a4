"""The untrusted side: a forked process that imports the candidate's module and serves requests.

Every request comes from the judge (trusted, cloudpickled). Every answer goes back through the
safe `codec`. Objects that are not data stay here in `objects` and travel as handle references.
"""

from __future__ import annotations

import collections
import gc
import importlib.util
import io
import operator
import os
import pickle
import random
import resource
import socket
import sys
import traceback
import types
from typing import Any

import numpy as np
import torch

from grader.sandbox import codec
from grader.sandbox.dictversion import version_reader
from grader.sandbox.protocol import ChannelClosed, GradLeaf, flatten_tensors, recv_msg, send_msg

MAX_TRACEBACK = 4000
MAX_GRAPHS = 256  # remembered bridged calls whose backward the judge may still ask for


class _Unpickler(pickle.Unpickler):
    """Judge requests: ordinary pickles in which remote handles stand as persistent ids."""

    def __init__(self, data: bytes, objects: dict[int, Any]):
        super().__init__(io.BytesIO(data))
        self.objects = objects

    def persistent_load(self, pid: Any) -> Any:
        kind, ref = pid
        if kind != "handle" or ref not in self.objects:
            raise LookupError(f"stale handle {ref}")
        return self.objects[ref]


class TamperingDetected(Exception):
    """The candidate replaced something a probe relies on: the probe's observations are void."""


# What probes use to observe the candidate's code from inside the worker. A submission that
# replaces one of these (`torch.equal = lambda *a: True`, `time.perf_counter = fake_clock`,
# `Tensor.__eq__ = ...`) could make a probe report whatever it likes, so probes refuse to run
# (and fail their check) once one of them differs from what it was before the import. A patch
# that undoes itself before the probe ends is not seen: the static flags are the other net.
# `warnings` is watched because checks observe warnings through `probes.capture_warnings`: a
# submission that replaces `warnings.warn` or `warnings.showwarning` would hide what it raised.
# torch._C, torch.backends' flags' modules, torch.utils.data, autograd's graph module and nn's module
# module (the global hook dicts) are watched too: checks read state through them (59 reads
# cudnn's flags through torch._C's getters, 29 the global hooks, 66 the saved-tensor hooks).
_WATCHED = ("torch", "torch.Tensor", "torch.nn.Module", "torch.nn.functional", "torch.autograd", "torch.sparse",
            "torch.testing", "torch.cuda", "numpy", "numpy.testing", "builtins", "time", "resource", "math",
            "warnings", "gc", "torch.jit._script.OrderedDictWrapper", "torch.jit._script.OrderedModuleDict",
            "torch._C", "torch._C._autograd", "torch.backends.cudnn", "torch.backends.cuda", "torch.backends.mkldnn",
            "torch.utils.data", "torch.utils.data.DataLoader", "torch.autograd.graph", "torch.nn.modules.module")


_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
# Names for which a metaclass's (or ModuleType's) data descriptor wins over the object's own entry
# in getattr_static.
_MRO = type.__dict__["__mro__"]
_DICT = type.__dict__["__dict__"]
_META_DATA = frozenset(name for meta in (type, type(torch.Tensor), type(torch.nn.Module), types.ModuleType)
                       for name, attr in vars(meta).items() if hasattr(type(attr), "__set__"))
# Taken by the fork server once it has warmed up (workers inherit it: no cost per check), or by a
# worker started some other way.
PRISTINE: TamperGuard | None = None


class TamperGuard:
    """Identities of the watched attributes (and modules in sys.modules) at a point in time."""

    def __init__(self) -> None:
        import inspect

        self._static = inspect.getattr_static
        self.snapshot: list[tuple[str, Any, str, Any]] = []
        self.modules: dict[str, Any] = {}
        import torch.jit._script as script
        import torch.utils.data

        classes = {"torch.Tensor": torch.Tensor, "torch.nn.Module": torch.nn.Module,
                   "torch.utils.data.DataLoader": torch.utils.data.DataLoader,
                   "torch.jit._script.OrderedDictWrapper": script.OrderedDictWrapper,
                   "torch.jit._script.OrderedModuleDict": script.OrderedModuleDict}
        for label in _WATCHED:
            owner = classes.get(label)
            if owner is None:
                owner = self.modules[label] = importlib.import_module(label)
            names = dir(owner) if isinstance(owner, type) else list(vars(owner))
            for name in names:
                try:
                    self.snapshot.append((label, owner, name, self._static(owner, name)))
                except AttributeError:
                    continue
        self._groups = self._grouped()
        self._read = version_reader()
        self._stamps = [self._stamp(group[0]) for group in self._groups]

    def _stamp(self, owner: Any) -> tuple | None:
        """What `_unchanged` compares for `owner`: the dicts `_table` reads its entries from (a
        class's along its MRO, a plain module's own) with their version tags, and the MRO itself;
        None where the tags cannot be read (`grader.sandbox.dictversion`)."""
        if self._read is None:
            return None
        if isinstance(owner, type):
            mro = _MRO.__get__(owner)
            proxies = [_DICT.__get__(klass) for klass in mro]
            dicts = [gc.get_referents(proxy) for proxy in proxies]
            if not all(len(d) == 1 and type(d[0]) is dict and len(d[0]) == len(p) for d, p in zip(dicts, proxies)):
                return None
            dicts = [d[0] for d in dicts]
        elif type(owner) is types.ModuleType:
            mro = None
            dicts = [object.__getattribute__(owner, "__dict__")]
        else:
            return None
        addresses = tuple(id(d) for d in dicts)
        return mro, addresses, tuple(self._read(a) for a in addresses), dicts  # the dicts kept alive

    def _unchanged(self, owner: Any, stamp: tuple | None) -> bool:
        """No entry of any dict `owner`'s attributes are read from was added, removed or rebound
        since the snapshot (and a class's MRO is the same tuple, a module still a plain module).
        Nothing of those dicts' contents is touched: a worker copies no page for it."""
        if stamp is None:
            return False
        mro, addresses, tags, _ = stamp
        if mro is not None:
            if _MRO.__get__(owner) is not mro:
                return False
        elif type(owner) is not types.ModuleType:
            return False
        read = self._read
        return all(read(address) == tag for address, tag in zip(addresses, tags))

    def _grouped(self) -> list[tuple[Any, list, tuple[str, ...], tuple[Any, ...], list]]:
        """The snapshot by owner: (owner, its entries, the names whose value `_now` reads straight
        from the owner's table and their values, the other entries). The first kind is compared
        all at once (3956 entries, 0.6 ms a probe one by one)."""
        groups: dict[int, tuple[Any, list, list, list, list]] = {}
        seen: dict[int, dict[str, Any]] = {}
        for entry in self.snapshot:
            label, owner, name, value = entry
            group = groups.setdefault(id(owner), (owner, [], [], [], []))
            group[1].append(entry)
            table = self._table(owner, seen)
            if name in table and name not in _META_DATA and table[name] is value:
                group[2].append(name)
                group[3].append(value)
            else:
                group[4].append(entry)
        return [(owner, entries, tuple(names), tuple(values), rest)
                for owner, entries, names, values, rest in groups.values()]

    def changed(self) -> list[str]:
        from grader.sandbox import imports

        found = [f"sys.modules[{name!r}]" for name, module in self.modules.items() if sys.modules.get(name) is not module]
        found += imports.tampered
        seen: dict[int, dict[str, Any]] = {}
        for (owner, entries, names, values, rest), stamp in zip(self._groups, self._stamps):
            if self._unchanged(owner, stamp):
                # the dicts are as they were: only the entries not read from them can differ
                for label, owner_, name, value in rest:
                    now = self._now_direct(owner_, name)
                    if now is not value and not self._by_torch(label, name, now, value):
                        found.append(f"{label}.{name}")
                continue
            table = self._table(owner, seen)
            # every value read straight from the table still the same object: only the others can
            # have changed; else each entry is looked at as before, in the snapshot's order
            same = all(map(operator.is_, map(table.get, names), values))
            for label, owner_, name, value in (rest if same else entries):
                now = self._now(owner_, name, seen)
                if now is not value and not self._by_torch(label, name, now, value):
                    found.append(f"{label}.{name}")
        return found

    def _now_direct(self, owner: Any, name: str) -> Any:
        """`_now`, without building the merged table of a class (which takes a reference to every
        attribute along its MRO): the first of its MRO's dicts that has `name`."""
        if name not in _META_DATA:
            if isinstance(owner, type):
                for klass in _MRO.__get__(owner):
                    table = _DICT.__get__(klass)
                    if name in table:
                        return table[name]
            elif type(owner) is types.ModuleType:
                table = object.__getattribute__(owner, "__dict__")
                if name in table:
                    return table[name]
        try:
            return self._static(owner, name)
        except AttributeError:
            return None

    def _table(self, owner: Any, seen: dict[int, dict[str, Any]]) -> dict[str, Any]:
        """The entries `_now` reads `owner`'s attributes from without getattr_static: a class's
        along its MRO (through `type`'s own descriptors, which no class can override), a plain
        module's __dict__; empty for anything else."""
        table = seen.get(id(owner))
        if table is None:
            table = {}
            if isinstance(owner, type):
                for klass in reversed(type.__dict__["__mro__"].__get__(owner)):
                    table.update(type.__dict__["__dict__"].__get__(klass))
            elif isinstance(owner, types.ModuleType) and type(owner) is types.ModuleType:
                table = object.__getattribute__(owner, "__dict__")
            seen[id(owner)] = table
        return table

    def _now(self, owner: Any, name: str, seen: dict[int, dict[str, Any]]) -> Any:
        """`inspect.getattr_static(owner, name)` (None where missing), in a fraction of its time:
        a module's attribute is its __dict__ entry; a class's is the first entry along its MRO
        (read through `type`'s own descriptor, which no class can override). Whatever this fast
        path does not settle goes to getattr_static itself."""
        table = self._table(owner, seen)
        if name in table and name not in _META_DATA:
            return table[name]
        try:
            return self._static(owner, name)
        except AttributeError:
            return None

    def _by_torch(self, label: str, name: str, value: Any, original: Any) -> bool:
        """Changes torch makes itself: CUDA's lazy initialisation (on first use in the worker)
        sets torch.cuda's private state (`_initialized`, the cached device count...) and its
        `default_generators`: plain data and generators, never a function a probe calls; and
        set_default_dtype rebinds torch.Storage to one of the typed storages. Functions torch
        puts in place of its own (`_TORCH_REWRAPS`: importing torch._dynamo wraps
        torch.manual_seed, torch.compile patches nn.Module's __init__ and __setstate__) are
        forgiven only when they are that very wrapper around the original: the wrapper's code
        equal to the one compiled from torch's source, its globals torch's module, the original in
        its closure. A function's file, name or `__wrapped__` proves nothing: any wrapper made
        with torch's decorators (`torch.no_grad()(liar)`) lies in torch's folder and can claim to
        wrap anything."""
        if getattr(original, "__grader_registry_guard__", False):
            return False  # the registry guard (grader.sandbox.registries): only the candidate removes it
        if label == "torch.cuda" and name == "default_generators":
            return isinstance(value, tuple) and all(isinstance(g, torch.Generator) for g in value)
        if label == "torch.cuda" and name.startswith("_"):
            return _plain_data(value)
        if label == "torch" and name == "Storage":
            return isinstance(value, type) and value.__name__.endswith("Storage") and getattr(torch, value.__name__, None) is value
        return _torch_rewrap(label, name, value, original)

    def check(self) -> None:
        changed = self.changed()
        if changed:
            shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
            raise TamperingDetected(f"the submission replaced {shown}: a probe observing it in the worker cannot "
                                    f"be trusted, so this check fails")


# (label, name) -> (torch's module that makes the wrapper, the function that makes it, the wrapper's
# name in it): the only functions torch puts in place of watched ones (tests/attacks'
# test_torch_changing_itself_is_not_tampering finds them)
_TORCH_REWRAPS = {("torch", "manual_seed"): ("torch._compile", "_disable_dynamo", "inner"),
                  ("torch.nn.Module", "__init__"): ("torch._dynamo.mutation_guard", "install_generation_tagging_init",
                                                    "patched_init"),
                  ("torch.nn.Module", "__setstate__"): ("torch._dynamo.mutation_guard",
                                                        "install_generation_tagging_init", "patched_setstate")}
_rewrap_code: dict[tuple[str, str, str], types.CodeType | None] = {}


def _nested_code(module: str, outer: str, inner: str) -> types.CodeType | None:
    """The code object of function `inner` defined inside `outer` in torch's module `module`,
    compiled here from torch's source file (read-only to the worker), once per process."""
    key = (module, outer, inner)
    if key not in _rewrap_code:
        import importlib.util

        code = None
        try:
            spec = importlib.util.find_spec(module)
            origin = spec.origin if spec is not None else None
            if origin and os.path.abspath(origin).startswith(_TORCH_DIR):
                with open(origin, "rb") as f:
                    top = compile(f.read(), origin, "exec", dont_inherit=True)
                code = _find_code(top, outer, inner)
        except (OSError, SyntaxError, ImportError, ValueError):
            code = None
        _rewrap_code[key] = code
    return _rewrap_code[key]


def _find_code(code: types.CodeType, outer: str, inner: str, inside: bool = False) -> types.CodeType | None:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if inside and const.co_name == inner:
                return const
            found = _find_code(const, outer, inner, inside or const.co_name == outer)
            if found is not None:
                return found
    return None


def _torch_rewrap(label: str, name: str, value: Any, original: Any) -> bool:
    """Is `value` torch's own wrapper around `original` for this attribute (`_TORCH_REWRAPS`)?"""
    where = _TORCH_REWRAPS.get((label, name))
    if where is None or type(value) is not types.FunctionType:
        return False
    expected = _nested_code(*where)
    home = sys.modules.get(where[0])
    if expected is None or value.__code__ != expected or home is None or value.__globals__ is not vars(home):
        return False
    if not os.path.abspath(getattr(home, "__file__", "") or "").startswith(_TORCH_DIR):
        return False
    return any(_cell(cell) is original for cell in value.__closure__ or ())


def _cell(cell: types.CellType) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def _plain_data(value: Any) -> bool:
    """None, a number, a string, or a list/tuple/set/dict of these (no callable hides in it)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if type(value) in (list, tuple, set, frozenset):
        return all(_plain_data(v) for v in value)
    if type(value) is dict:
        return all(_plain_data(k) and _plain_data(v) for k, v in value.items())
    return False


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


_CANDIDATE_DIR: str | None = None


def _error(exc: BaseException) -> dict:
    """The exception as data. Only frames of the candidate's own files are kept: a probe is the
    judge's code, shipped from a hidden test, and its lines must not reach a report."""
    frames = traceback.extract_tb(exc.__traceback__)
    if _CANDIDATE_DIR is not None:
        frames = traceback.StackSummary.from_list(
            [f for f in frames if os.path.abspath(f.filename).startswith(_CANDIDATE_DIR + os.sep)])
    where = "".join(frames.format())
    tb = where + "".join(traceback.format_exception_only(type(exc), exc))
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001
        message = "<unprintable>"
    return {"error": {"type": type(exc).__name__, "message": message[:MAX_TRACEBACK],
                      "traceback": tb[-MAX_TRACEBACK:], "where": where[-MAX_TRACEBACK:]}}


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


def apply_limits(limits: dict) -> None:
    for name, value in limits.items():
        res = getattr(resource, name, None)
        if res is None or value is None:
            continue
        try:
            resource.setrlimit(res, (value, value))
        except (ValueError, OSError):
            pass


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False


def ensure_seeded(config: dict) -> None:
    """Seed the worker's generators with the check's seed, unless its fork server did so right
    before forking it (`config["preseeded"]`, see `grader.sandbox.zygote`): the generators' state
    is then inherited as it is right after seeding (numpy's and torch's), the same as seeding here, without the 2 ms
    a fresh child spends on it (torch.manual_seed formats a stack trace for CUDA's lazy seeding,
    reading source files the child's empty line cache does not hold)."""
    seed = config.get("seed", 0)
    if config.get("preseeded") != seed:
        seed_everything(seed)
    else:
        random.seed(seed)  # Python reseeds its own generator from the OS in every forked child


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
        payload = codec.encode(_error(exc), register)
    send_msg(sock, payload)


def compile_caches(scratch: str) -> dict[str, str]:
    """Environment for torch.compile's caches, in the worker's own scratch: the fork server's
    import of dynamo may have pointed them at a folder the worker cannot write (and a cache
    shared between workers would carry one candidate's compiled code into another's check)."""
    return {"TORCHINDUCTOR_CACHE_DIR": os.path.join(scratch, ".cache", "inductor"),
            "TRITON_CACHE_DIR": os.path.join(scratch, ".cache", "triton"),
            "XDG_CACHE_HOME": os.path.join(scratch, ".cache"),
            "CUDA_CACHE_PATH": os.path.join(scratch, ".cache", "nv")}


def cuda_paths(proc: str = "/proc", dev: str = "/dev") -> tuple[list[str], list[str]]:
    """What the CUDA driver reads and writes beyond the Python installation, where it exists:
    /proc/driver/nvidia and /proc/devices (read), the /dev/nvidia* device nodes (read and write)."""
    read = [p for p in (os.path.join(proc, "driver", "nvidia"), os.path.join(proc, "devices")) if os.path.exists(p)]
    write = []
    if os.path.isdir(dev):
        write = sorted(os.path.join(dev, n) for n in os.listdir(dev) if n.startswith("nvidia"))
    return read, write


def sandbox_paths(config: dict) -> tuple[list[str], list[str]]:
    """What the worker may read and write under Landlock: its submission, the Python installation
    and site-packages, the grader's package (not its checkout: exercises and solutions stay out),
    system libraries, CUDA's files (`cuda_paths`), and its scratch folder. /proc/self is writable
    (the CUDA driver writes there); /dev/shm only where it is private to the worker (its own
    namespaces or its container: `config["profile"]` other than "restricted")."""
    import grader

    candidate_dir = os.path.dirname(os.path.abspath(config["candidate"]))
    root = config.get("submission_root")
    # A submission that is a single file gets that file only: its folder may hold other
    # candidates' files (`grader grade -e 05 alice.py bob.py`).
    own = [root] if root and os.path.isfile(root) else [root or candidate_dir, candidate_dir]
    read = [*own, sys.prefix, sys.base_prefix,
            sys.exec_prefix, os.path.dirname(os.path.abspath(grader.__file__)),
            # /proc/self only: /proc/<pid>/environ of the judge or the CLI would show their
            # environment (Landlock does not stop that read), and /proc/<pid>/stat their ancestry.
            "/usr", "/lib", "/lib64", "/bin", "/proc/cpuinfo", "/proc/meminfo", "/sys",
            "/etc/ld.so.cache", "/etc/localtime",
            "/etc/nsswitch.conf", "/etc/passwd", "/etc/group", "/etc/hosts", "/etc/ssl"]
    read += [p for p in sys.path
             if os.path.isabs(p) and ("site-packages" in p or "dist-packages" in p or p.endswith(".zip"))]
    write = [config["scratch"], "/proc/self", "/dev/null", "/dev/zero", "/dev/urandom", "/dev/random", "/dev/tty"]
    if config.get("profile", "restricted") != "restricted":
        write.append("/dev/shm")
    cuda_read, cuda_write = cuda_paths()
    return read + cuda_read, write + cuda_write


def _checkout() -> list[str]:
    """The grader's checkout, when it runs from one (its package not installed in site-packages):
    the folder that holds its hidden checks and solutions, covered in the worker's mount namespace.
    Never a folder just below / (nor / itself)."""
    import grader

    package = os.path.dirname(os.path.realpath(grader.__file__))
    root = os.path.dirname(package)
    if os.path.basename(root) in ("site-packages", "dist-packages") or root.count(os.sep) < 2:
        return []
    return [root]


def _sandbox(config: dict) -> int | str:
    """Enter the worker's namespaces (profile "namespaces"), drop capabilities, install the seccomp
    filter (see `privileges`: sockets only where namespaces or the container hide the host), and
    apply Landlock when the judge asks for it. Returns the Landlock ABI applied (0: unavailable) or
    what failed (the judge reports it; the check still runs under the other protections)."""
    from grader.sandbox import landlock, namespaces, privileges

    failed = []
    profile = config.get("profile", "restricted")
    report_fd = config.get("report_fd")  # the fork server learns the worker's pid from it (see namespaces._split)
    try:
        if profile == "namespaces":
            read, write = sandbox_paths(config)
            try:
                namespaces.enter([p for p in read + write if not p.startswith(("/proc", "/sys", "/dev"))],
                                 int(config.get("shm_bytes", 1 << 30)), report_fd, hide=_checkout(),
                                 writable=[config["scratch"]])
                report_fd = None  # closed by enter
            except OSError as exc:
                failed.append(f"entering private namespaces failed: {exc}")
                profile = "restricted"  # the host is not hidden: no sockets
            os.chdir(config["scratch"])  # the bound-back scratch folder
    finally:
        # closed before any of the candidate's code runs: what the fork server reads there is ours
        # (nothing written: the worker is this process)
        if report_fd is not None:
            try:
                os.close(report_fd)
            except OSError:
                pass
    families = () if profile == "restricted" else \
        privileges.PRIVATE_NETWORK_FAMILIES if config.get("network", "loopback") == "loopback" else (privileges.AF_UNIX,)
    steps = [("dropping capabilities", privileges.drop_capabilities)]
    if privileges.seccomp_supported():
        steps.append(("the seccomp filter", lambda: privileges.install_filter(families)))
    for what, step in steps:
        try:
            step()
        except OSError as exc:
            failed.append(f"{what} failed: {exc}")
    applied: int | str = 0
    if config.get("landlock"):
        try:
            # TCP stays closed only where the worker shares the host's network
            applied = landlock.restrict(*sandbox_paths({**config, "profile": profile}), tcp=profile == "restricted")
        except OSError as exc:
            failed.append(f"Landlock failed: {exc}")
    return "; ".join(failed) if failed else applied


def serve(sock: socket.socket, config: dict) -> None:
    """Run in the forked child: limits, seed, sandbox, import the candidate, then answer requests."""
    global _CANDIDATE_DIR
    _CANDIDATE_DIR = os.path.dirname(os.path.abspath(config["candidate"]))
    os.chdir(config["scratch"])
    os.environ.update({"HOME": config["scratch"], "TMPDIR": config["scratch"], **compile_caches(config["scratch"])})
    import tempfile

    tempfile.tempdir = config["scratch"]
    apply_limits(config.get("rlimits", {}))
    sandbox = _sandbox(config)
    ensure_seeded(config)
    sys.dont_write_bytecode = True
    from grader.sandbox import callwatch, registries

    registries.install()  # a no-op in a worker of the fork server, which installed it
    callwatch.install()
    guard = PRISTINE or TamperGuard()
    try:
        module = import_candidate(config["candidate"], config["module_name"])
    except BaseException as exc:  # noqa: BLE001 - SystemExit at import is a failure too
        _send(sock, None, {"import_error": _error(exc)["error"], "sandbox": sandbox})
        return
    state = WorkerState(module, guard)
    _send(sock, state, {"ready": True, "scratch": config["scratch"], "sandbox": sandbox})
    while True:
        try:
            raw = recv_msg(sock)
        except ChannelClosed:
            return
        try:
            req = _Unpickler(bytes(raw), state.objects).load()
            answer = handle(state, req)
        except BaseException as exc:  # noqa: BLE001 - everything the candidate raises is reported
            answer = _error(exc)
        _send(sock, state, answer)
