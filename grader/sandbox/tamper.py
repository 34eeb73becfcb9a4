"""The tamper guard: what probes rely on in the worker, compared before and after every probe.

A probe runs in the candidate's process, so a submission that replaces a function the probe uses
(`torch.equal`, `time.perf_counter`, `Tensor.__eq__`) could make it report anything. `TamperGuard`
takes the identities of the watched attributes (the fork server takes one before any candidate
code runs: `grader.sandbox.worker.PRISTINE`); `check` raises `TamperingDetected` when one differs.
"""

from __future__ import annotations

import gc
import importlib
import operator
import os
import sys
import types
from typing import Any

import torch

from grader.sandbox.dictversion import version_reader


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
# grader.probes and its modules: a probe that imports them inside its body (`from grader import
# probes` in a function the worker runs) gets the worker's copy, not the one shipped by value, and a
# submission that replaced `probes.train_steps` there would have it record torch's own optimizer.
PROBES = ("grader.probes", "grader.probes.dispatcher", "grader.probes.hooks", "grader.probes.memory",
          "grader.probes.objects", "grader.probes.optimizers", "grader.probes.registry", "grader.probes.spies",
          "grader.probes.warning_log")
_WATCHED = ("torch", "torch.Tensor", "torch.nn.Module", "torch.nn.functional", "torch.autograd", "torch.sparse",
            "torch.testing", "torch.cuda", "numpy", "numpy.testing", "builtins", "time", "resource", "math",
            "warnings", "gc", "torch.jit._script.OrderedDictWrapper", "torch.jit._script.OrderedModuleDict",
            "torch._C", "torch._C._autograd", "torch.backends.cudnn", "torch.backends.cuda", "torch.backends.mkldnn",
            "torch.utils.data", "torch.utils.data.DataLoader", "torch.autograd.graph", "torch.nn.modules.module",
            *PROBES)


_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
# Names for which a metaclass's (or ModuleType's) data descriptor wins over the object's own entry
# in getattr_static.
_MRO = type.__dict__["__mro__"]
_DICT = type.__dict__["__dict__"]
_META_DATA = frozenset(name for meta in (type, type(torch.Tensor), type(torch.nn.Module), types.ModuleType)
                       for name, attr in vars(meta).items() if hasattr(type(attr), "__set__"))


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
