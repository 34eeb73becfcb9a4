"""Static checks on the candidate's source, run in the judge (authoritative: no code is executed).

- `uses(name)`: does the source refer to a dotted API such as `torch.cdist`, through any import
  alias (`import torch as T; T.cdist`, `from torch import cdist`, `from torch import cdist as cd`)?
- `loops_in(function)`: for/while loops and comprehensions inside a function and the module-level
  helpers it calls.
- `tampering()`: flags for the interviewer: assignments to attributes of imported modules and
  classes (torch, numpy, builtins, time...), `sys.modules` edits, code built at run time (exec,
  eval, compile, __import__, importlib, runpy, marshal, zipimport, pkgutil), the import machinery
  reached (sys.meta_path, sys.path_hooks, sys.path changed), code objects reached or built
  (`__code__`, types.CodeType), and use of ctypes, gc, inspect or frame introspection.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from grader.judge.source import parse as parse_source

_TAMPER_ROOTS = {"torch", "numpy", "builtins", "pytest", "grader"}
_SUSPECT_IMPORTS = {"ctypes": "uses ctypes", "gc": "uses gc (garbage-collector introspection)",
                    "inspect": "uses inspect (frame and source introspection)",
                    "grader": "imports the grader", "pytest": "imports pytest",
                    "_pytest": "imports pytest internals", "cffi": "uses cffi",
                    "importlib": "uses importlib (imports by computed name)",
                    "runpy": "runs code from a path (runpy)", "marshal": "loads code objects (marshal)",
                    "zipimport": "imports from an archive (zipimport)", "pkgutil": "loads modules by path (pkgutil)",
                    "imp": "uses imp (loads modules by path)", "code": "runs code built at run time (code)",
                    "codeop": "compiles code at run time (codeop)"}
# the import machinery: who changes it can import what the judge never read
_IMPORT_MACHINERY = {"sys.meta_path", "sys.path_hooks", "sys.path_importer_cache", "sys.path"}
_DYNAMIC_CALLS = {"exec": "runs code built at run time (exec)", "eval": "runs code built at run time (eval)",
                  "compile": "compiles code at run time (compile)", "__import__": "imports by computed name (__import__)",
                  "vars": None, "globals": None}
_SUSPECT_CALLS = {"sys._getframe": "reads interpreter frames (sys._getframe)",
                  "sys.settrace": "installs a trace function (sys.settrace)",
                  "sys.setprofile": "installs a profile function (sys.setprofile)",
                  "builtins.__import__": "replaces the import machinery",
                  "os.kill": "sends signals (os.kill)", "os.killpg": "sends signals (os.killpg)",
                  "os._exit": "exits the process (os._exit)", "os.fork": "forks processes (os.fork)",
                  "gc.get_objects": "walks every live object (gc.get_objects)",
                  "gc.get_referrers": "walks object referrers (gc.get_referrers)"}


MAX_FLAGS = 200
_REACHING_ATTRS = {"__class__", "__mro__", "__bases__", "__base__", "__globals__", "__dict__", "__module__",
                   "__builtins__", "__self__", "__func__", "__closure__", "__subclasses__"}
_IMPORTING_CALLS = {"importlib.import_module", "importlib.__import__", "builtins.__import__", "sys.modules.get",
                    "importlib.reload"}


def _is_module_or_class(dotted: str) -> bool:
    """Does `dotted` (e.g. "torch.nn", "torch.Tensor", "time") name a module or a class? Resolved
    in the judge against the real, trusted modules; unknown roots count (they were imported)."""
    import importlib
    import sys
    import types

    parts = dotted.split(".")
    obj = sys.modules.get(parts[0])
    if obj is None:
        try:
            obj = importlib.import_module(parts[0]) if parts[0] in ("torch", "numpy", "time", "math", "os", "sys",
                                                                     "builtins", "random", "resource") else None
        except ImportError:
            obj = None
    if obj is None:
        return len(parts) == 1  # an imported module we do not have: a module all the same
    for part in parts[1:]:
        try:
            obj = getattr(obj, part)
        except Exception:  # noqa: BLE001 - anything unresolvable is not a known module or class
            return False
    return isinstance(obj, (types.ModuleType, type))


def _is_call_to(node: ast.AST, names: tuple[str, ...]) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names


def _bindings(tree: ast.AST):
    """(target, value) for every way a name gets a value in the file."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if (isinstance(target, (ast.Tuple, ast.List)) and isinstance(node.value, (ast.Tuple, ast.List))
                        and len(target.elts) == len(node.value.elts)):
                    yield from zip(target.elts, node.value.elts)  # a, b = torch, np: pairwise
                else:
                    yield target, node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
            yield node.target, node.value
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            yield node.target, node.iter
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    yield item.optional_vars, item.context_expr
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            positional = [*args.posonlyargs, *args.args]
            for arg, default in zip(positional[len(positional) - len(args.defaults):], args.defaults):
                yield ast.Name(arg.arg), default
            for arg, default in zip(args.kwonlyargs, args.kw_defaults):
                if default is not None:
                    yield ast.Name(arg.arg), default


def _target_names(target: ast.AST) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _target_names(e)]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return []


@dataclass(frozen=True)
class Flag:
    line: int
    message: str

    def to_dict(self) -> dict:
        return {"line": self.line, "message": self.message}


class StaticView:
    """The parsed source of one candidate file."""

    def __init__(self, path: Path, source: str):
        self.path = path
        self.source = source

    @cached_property
    def tree(self) -> ast.Module:
        return parse_source(self.path, self.source)

    @cached_property
    def aliases(self) -> dict[str, str]:
        """Local name -> the dotted name it stands for, from every import in the file."""
        names: dict[str, str] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    names[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        return names

    def _dotted(self, node: ast.AST) -> str | None:
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        head = self.aliases.get(node.id, node.id)
        return ".".join([head, *reversed(parts)])

    def _imported(self, node: ast.AST) -> bool:
        """Is `node` (a name or attribute chain) rooted at a name bound by an import?"""
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and node.id in self.aliases

    def references(self) -> list[tuple[str, int]]:
        """Every dotted name the file refers to (resolved through imports), with its line."""
        refs = []
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.Attribute, ast.Name)):
                dotted = self._dotted(node)
                if dotted:
                    refs.append((dotted, node.lineno))
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    refs.append((f"{node.module}.{alias.name}", node.lineno))
        return refs

    def uses(self, api: str) -> list[int]:
        """Lines where `api` (e.g. "torch.cdist") or an attribute below it is referred to."""
        canonical = {api, api.replace("torch.nn.functional.", "F.")}
        lines = []
        for dotted, line in self.references():
            full = dotted.replace("F.", "torch.nn.functional.", 1) if dotted.startswith("F.") else dotted
            if any(full == a or full.startswith(a + ".") or dotted == a for a in canonical):
                lines.append(line)
        return sorted(set(lines))

    def function(self, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The definition of `name` ("f" or "Class.method"), following module-level aliases
        such as `f = g`."""
        if "." in name:
            cls_name, method = name.split(".", 1)
            for node in self.tree.body:
                if isinstance(node, ast.ClassDef) and node.name == cls_name:
                    for item in node.body:
                        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == method:
                            return item
            return None
        for _ in range(10):
            for node in ast.walk(self.tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                    return node
            alias = next((node.value.id for node in self.tree.body if isinstance(node, ast.Assign)
                          and isinstance(node.value, ast.Name)
                          and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)), None)
            if alias is None:
                return None
            name = alias
        return None

    def is_implemented(self, name: str) -> bool:
        """False when `name` is missing or its body is still the stub's (docstring, raise
        NotImplementedError, pass or ...)."""
        fn = self.function(name)
        if fn is None:
            return False
        body = [n for n in fn.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
        for node in body:
            if isinstance(node, ast.Pass):
                continue
            if isinstance(node, ast.Raise) and node.exc is not None:
                exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if isinstance(exc, ast.Name) and exc.id == "NotImplementedError":
                    continue
            return True
        return False

    def require_implemented(self, *names: str) -> None:
        """Fail the check unless every function named is defined and no longer a stub. Use it in
        static (api) checks, so that an untouched stub earns nothing from them."""
        for name in names:
            if self.function(name) is None:
                raise AssertionError(f"{self.path.name} defines no `{name}`: keep the stub's names")
            if not self.is_implemented(name):
                raise AssertionError(f"`{name}` is not implemented yet (its body still raises NotImplementedError)")

    def loops_in(self, name: str) -> list[tuple[int, str]]:
        """(line, kind) of every loop or comprehension reachable from function `name` in this file."""
        top = {n.name: n for n in self.tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for cls in (n for n in self.tree.body if isinstance(n, ast.ClassDef)):
            for item in cls.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    top.setdefault(f"{cls.name}.{item.name}", item)
        start = top.get(name) or self.function(name)
        if start is None:
            return []
        seen, todo, found = set(), [start], []
        kinds = {ast.For: "for loop", ast.AsyncFor: "for loop", ast.While: "while loop",
                 ast.ListComp: "list comprehension", ast.SetComp: "set comprehension",
                 ast.DictComp: "dict comprehension", ast.GeneratorExp: "generator expression"}
        while todo:
            fn = todo.pop()
            if id(fn) in seen:
                continue
            seen.add(id(fn))
            for node in ast.walk(fn):
                for kind, label in kinds.items():
                    if isinstance(node, kind):
                        found.append((node.lineno, label))
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in top:
                    todo.append(top[node.func.id])
        return sorted(set(found))

    @cached_property
    def module_names(self) -> dict[str, str]:
        """Every name bound, anywhere in the file, to a module or a class of one: import aliases,
        and names assigned from them (`T = torch`, `Tensor = torch.Tensor`, `a, b = torch, np`,
        `for m in (torch,)`, `m = sys.modules["torch"]`, `m = importlib.import_module(...)`,
        `def f(m=torch)`, `with ... as m`). Values are what they stand for ("torch", "?" unknown)."""
        names = {k: v for k, v in self.aliases.items() if _is_module_or_class(v)}
        pairs = list(_bindings(self.tree))
        changed = True
        while changed:
            changed = False
            for target, value in pairs:
                stands = self._module_value(value, names)
                if stands is None:
                    continue
                for name in _target_names(target):
                    if name not in names:
                        names[name] = stands
                        changed = True
        return names

    def _module_value(self, node: ast.AST | None, names: dict[str, str]) -> str | None:
        """What module or class `node` evaluates to, if it does (statically), else None."""
        if node is None:
            return None
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            found = [self._module_value(e, names) for e in node.elts]
            return next((f for f in found if f), None)
        if isinstance(node, ast.Starred):
            return self._module_value(node.value, names)
        if isinstance(node, ast.NamedExpr):
            return self._module_value(node.value, names)
        if isinstance(node, (ast.Name, ast.Attribute)):
            root = node
            while isinstance(root, ast.Attribute):
                if root.attr in _REACHING_ATTRS:
                    return "?"
                root = root.value
            if isinstance(root, ast.Name) and root.id in names:
                if names[root.id] == "?":
                    return "?"
                dotted = self._dotted(node) or "?"
                if root.id not in self.aliases:
                    dotted = names[root.id] + dotted[len(root.id):]
                return dotted if _is_module_or_class(dotted) else None
            return None
        if isinstance(node, ast.Subscript):  # sys.modules["torch"], globals()["torch"], vars(m)[...]
            base = self._dotted(node.value)
            if base == "sys.modules" or _is_call_to(node.value, ("globals", "vars", "locals")):
                return "?"
            return None
        if isinstance(node, ast.Call):
            func = self._dotted(node.func) or ""
            if func in _IMPORTING_CALLS or _is_call_to(node, ("__import__", "type")):
                return "?"
            if func in ("getattr", "builtins.getattr") and node.args and self._module_value(node.args[0], names):
                return "?"
            if func == "sys.modules.get":
                return "?"
        return None

    @cached_property
    def _patchers(self) -> dict[str, set[int]]:
        """Functions of this file that assign attributes of (or setattr on) their own parameters:
        name -> positions of those parameters."""
        found: dict[str, set[int]] = {}
        for fn in ast.walk(self.tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) or not hasattr(fn, "name"):
                continue
            params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]
            hit: set[int] = set()
            for node in ast.walk(fn):
                targets = node.targets if isinstance(node, ast.Assign) else (
                    [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
                bases = [t.value for t in targets if isinstance(t, (ast.Attribute, ast.Subscript))]
                if isinstance(node, ast.Call) and _is_call_to(node, ("setattr", "delattr")) and node.args:
                    bases.append(node.args[0])
                for base in bases:
                    while isinstance(base, (ast.Attribute, ast.Subscript)):
                        base = base.value
                    if isinstance(base, ast.Name) and base.id in params:
                        hit.add(params.index(base.id))
            if hit:
                found[fn.name] = hit
        return found

    def _passes_module_to_patcher(self, call: ast.Call, bound: dict[str, str]) -> list[Flag]:
        name = call.func.id if isinstance(call.func, ast.Name) else None
        positions = self._patchers.get(name or "", set())
        hits = [i for i, arg in enumerate(call.args) if self._module_value(arg, bound)]
        hits += [-1 for kw in call.keywords if self._module_value(kw.value, bound)]
        if positions and any(i in positions or i == -1 for i in hits):
            return [Flag(call.lineno, f"passes a module to {name}(), which assigns attributes of its parameters")]
        return []

    def tampering(self) -> list[Flag]:
        flags: list[Flag] = []
        bound = self.module_names
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                for module in modules:
                    root = module.split(".")[0]
                    if root in _SUSPECT_IMPORTS:
                        flags.append(Flag(node.lineno, _SUSPECT_IMPORTS[root]))
            targets: list[ast.AST] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            elif isinstance(node, ast.Delete):
                targets = list(node.targets)
            for target in targets:
                base = target.value if isinstance(target, (ast.Attribute, ast.Subscript)) else None
                dotted = self._dotted(base) if base is not None else None
                if dotted == "sys.modules":
                    flags.append(Flag(node.lineno, "edits sys.modules"))
                elif isinstance(target, ast.Attribute) and self._module_value(base, bound):
                    shown = self._module_value(base, bound)
                    shown = (dotted or ast.unparse(base)[:80]) if shown == "?" else shown
                    flags.append(Flag(node.lineno, f"assigns to {shown}.{target.attr}"))
                elif isinstance(target, ast.Attribute) and dotted and self._imported(base):
                    # any imported module or class: `time.perf_counter = fake` fools a timing probe
                    # as surely as `torch.equal = ...` fools a comparison
                    flags.append(Flag(node.lineno, f"assigns to {dotted}.{target.attr}"))
                elif dotted and (dotted.split(".")[0] in _TAMPER_ROOTS or dotted.endswith(".__dict__")):
                    flags.append(Flag(node.lineno, f"assigns to {dotted}[...]"))
                elif isinstance(base, ast.Call) and isinstance(base.func, ast.Name) and base.func.id in ("vars", "globals"):
                    flags.append(Flag(node.lineno, f"assigns through {base.func.id}()"))
            if isinstance(node, ast.Call):
                dotted = self._dotted(node.func)
                if dotted in _SUSPECT_CALLS:
                    flags.append(Flag(node.lineno, _SUSPECT_CALLS[dotted]))
                if isinstance(node.func, ast.Name) and _DYNAMIC_CALLS.get(node.func.id):
                    flags.append(Flag(node.lineno, _DYNAMIC_CALLS[node.func.id]))
                if dotted in {"setattr", "delattr", "builtins.setattr", "builtins.delattr"} and node.args:
                    target = self._dotted(node.args[0])
                    stands = self._module_value(node.args[0], bound)
                    if stands or (target and (self._imported(node.args[0]) or target.split(".")[0] in _TAMPER_ROOTS)):
                        shown = stands if stands and stands != "?" else (target or ast.unparse(node.args[0])[:80])
                        flags.append(Flag(node.lineno, f"{dotted.removeprefix('builtins.')} on {shown}"))
                if isinstance(node.func, ast.Attribute) and node.func.attr in ("__setattr__", "__delattr__"):
                    flags.append(Flag(node.lineno, f"calls {node.func.attr} directly"))
                flags += self._passes_module_to_patcher(node, bound)
            if isinstance(node, ast.Name) and node.id == "__builtins__":
                flags.append(Flag(node.lineno, "reaches into __builtins__"))
            if isinstance(node, ast.Attribute) and self._dotted(node) in _IMPORT_MACHINERY - {"sys.path"}:
                flags.append(Flag(node.lineno, f"reaches the import machinery ({self._dotted(node)})"))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    self._dotted(node.func.value) == "sys.path" and node.func.attr in ("insert", "append", "extend"):
                flags.append(Flag(node.lineno, f"changes where Python imports from (sys.path.{node.func.attr})"))
            # a function given other code (`f.__code__ = g.__code__.replace(co_filename=...)`) can
            # pass for another function, or for torch's own code, with the spies' call watch
            if (isinstance(node, ast.Attribute) and node.attr == "__code__") or (
                    isinstance(node, ast.Call) and self._dotted(node.func) in ("getattr", "setattr", "builtins.getattr")
                    and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and node.args[1].value == "__code__"):
                flags.append(Flag(node.lineno, "reaches a function's code object (__code__)"))
            if isinstance(node, ast.Call) and self._dotted(node.func) in ("types.CodeType", "types.FunctionType"):
                flags.append(Flag(node.lineno, f"builds a {self._dotted(node.func).split('.')[1]} at run time"))
        flags = flags[:MAX_FLAGS]
        unique = {(f.line, f.message): f for f in flags}
        return sorted(unique.values(), key=lambda f: (f.line, f.message))
