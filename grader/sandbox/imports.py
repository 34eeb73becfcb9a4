"""The code that runs in a worker is the code the judge read.

- **The candidate's module** is compiled here from its file's bytes (`run_candidate`), exactly as
  the judge read them, never from a bytecode cache: Python's own loader would run
  `__pycache__/<stub>.cpython-311.pyc` beside it, even one made from other source (PEP 552's
  unchecked-hash pycs are never compared with the source), while the static checks, the flags and
  the reports read the clean `.py`.
- **Other modules** come only from the Python installation (the standard library, site-packages)
  and the grader's package (`install`). A module found anywhere else — a helper shipped in the
  submission's folder, a file written to the scratch folder at run time, a namespace package made
  of such folders — is refused at import with an ImportError naming it: the judge reads one file,
  the stub, and that file is all of the candidate's code. A loader other than the standard ones,
  or one that loads from another file than the spec says, is refused too.
- The finder that refuses sits first in `sys.meta_path`; an audit hook (PEP 578: Python code
  cannot remove it) refuses every import once `sys.meta_path` or `sys.path_hooks` differ from
  what they were when the candidate's code started, and remembers it (`tampered`), which the
  worker reports as tampering.

What this does not cover: code the candidate loads by hand without the import system (`exec` of a
file's text, `runpy`, `marshal`, importlib's loaders called directly). Each of those spellings is a
static flag for the interviewer (`grader.judge.static`).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
import types
from typing import Any

_STANDARD_LOADERS = (importlib.machinery.SourceFileLoader, importlib.machinery.SourcelessFileLoader,
                     importlib.machinery.ExtensionFileLoader)
_BUILTIN_LOADERS = (importlib.machinery.BuiltinImporter, importlib.machinery.FrozenImporter)
_expected: tuple[tuple[Any, ...], tuple[Any, ...]] | None = None  # (meta_path, path_hooks) as installed
tampered: list[str] = []  # what the audit hook saw (read by the worker's tamper check)


class OutsideImport(ImportError):
    """The candidate's code imported a module from outside the Python installation."""


def trusted_roots() -> tuple[str, ...]:
    """Folders modules may come from: the interpreter's prefixes (standard library, the virtual
    environment's site-packages), the site-packages folders on sys.path, and the grader's package."""
    import grader

    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             os.path.dirname(os.path.realpath(grader.__file__))}
    roots |= {p for p in sys.path if os.path.isabs(p) and ("site-packages" in p or "dist-packages" in p)}
    return tuple(sorted(os.path.realpath(r).rstrip(os.sep) + os.sep for r in roots if r))


class SubmissionFinder(importlib.abc.MetaPathFinder):
    """First in sys.meta_path: finds a module as the path finder does, and refuses it when it lies
    outside the trusted roots (or comes with a loader that is not the standard one for its file)."""

    def __init__(self, roots: tuple[str, ...]):
        self.roots = roots

    def _trusted(self, path: str | None) -> bool:
        if not path:
            return False
        return (os.path.realpath(path) + os.sep).startswith(self.roots)

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None:
            return None  # not on the path: built-in, frozen, or another (installed) finder's
        loader = spec.loader
        if loader is None or type(loader).__name__ == "NamespaceLoader":
            places = list(spec.submodule_search_locations or [])
            outside = [p for p in places if not self._trusted(p)]
            if outside:
                raise OutsideImport(_refusal(fullname, outside[0]))
            return spec
        origin = spec.origin
        if type(loader) in _BUILTIN_LOADERS or loader in _BUILTIN_LOADERS:
            return spec
        if type(loader) not in _STANDARD_LOADERS or getattr(loader, "path", None) != origin:
            raise OutsideImport(f"importing {fullname!r}: its loader ({type(loader).__qualname__}) is not Python's "
                                f"own: refused")
        if not self._trusted(origin):
            raise OutsideImport(_refusal(fullname, origin))
        return spec


def _refusal(name: str, where: str) -> str:
    return (f"importing {name!r} from {where} is not allowed: only the Python installation's modules "
            f"(torch, numpy, the standard library...) may be imported; put your code in the exercise's file, "
            f"which is all the grader reads")


def _audit(event: str, args: tuple) -> None:
    if event != "import" or _expected is None:
        return
    if tuple(sys.meta_path) != _expected[0] or tuple(sys.path_hooks) != _expected[1]:
        what = "sys.meta_path" if tuple(sys.meta_path) != _expected[0] else "sys.path_hooks"
        if what not in tampered:
            tampered.append(what)
        raise OutsideImport(f"importing {args[0]!r} refused: the submission changed {what}, Python's import "
                            f"machinery")


_hooked = False


def install() -> None:
    """Put the finder first in sys.meta_path and start refusing imports once the import machinery
    changes (the audit hook is added once per process: a forked worker inherits it)."""
    global _expected, _hooked
    if not any(isinstance(f, SubmissionFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, SubmissionFinder(trusted_roots()))
    _expected = (tuple(sys.meta_path), tuple(sys.path_hooks))
    if not _hooked:
        sys.addaudithook(_audit)
        _hooked = True


def run_candidate(path: str, module_name: str) -> types.ModuleType:
    """Import the candidate's file as `module_name`, compiled from its bytes (the coding
    declaration honoured, as Python and the judge read it), never from a bytecode cache."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    module.__cached__ = None  # type: ignore[attr-defined] - there is no cache, and none is read
    with open(path, "rb") as f:
        source = f.read()
    code = compile(source, path, "exec", dont_inherit=True)
    sys.modules[module_name] = module
    exec(code, module.__dict__)  # noqa: S102 - the candidate's own code, in its own worker
    return module
