"""torch's module registries, checked wherever torch reads them in the worker.

`nn.Module.state_dict`, `named_modules`, `named_parameters`, `load_state_dict`... read a module's
`_modules`, `_parameters` and `_buffers`. Checks call these base methods (never the candidate's
overrides), but a submission can make the registries themselves lie: a `dict` subclass whose
`items()` shows decoy layers that forward never uses, a class-level `_modules` property that
shadows the real one, or a `__getattribute__` that answers for it. Every torch method that reads
a registry is wrapped here (in the fork server, before the tamper guard's snapshot, so a replaced
wrapper is itself tampering): it refuses a module whose registries are not the plain dicts
`nn.Module.__init__` made, with `TamperingDetected`. One check per module per call (the recursion
checks each child as it reaches it), about a microsecond.
"""

from __future__ import annotations

import functools
import sys
from collections import OrderedDict
from typing import Any

from torch import nn

from grader.sandbox.tamper import TamperingDetected

REGISTRIES = ("_modules", "_parameters", "_buffers")
# the hook registries nn.Module.__init__ makes: torch fires what they hold whatever their class says,
# so a subclass whose iteration hides a hook would show a check "no hook left" while torch still runs it
HOOK_REGISTRIES = ("_backward_pre_hooks", "_backward_hooks", "_forward_hooks", "_forward_hooks_with_kwargs",
                   "_forward_hooks_always_called", "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs",
                   "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                   "_load_state_dict_post_hooks")
# the nn.Module methods that read registries (the others reach them through these)
_READERS = ("state_dict", "load_state_dict", "_load_from_state_dict", "named_modules", "named_children",
            "named_parameters", "named_buffers", "_named_members", "_apply")
_PLAIN = (dict, OrderedDict)
# torch's own registry types (TorchScript's modules keep theirs in C++ behind these): exact types
# only, and the tamper guard watches their methods (`tamper._WATCHED`)
TORCH_TYPES = ("torch.jit._script.OrderedDictWrapper", "torch.jit._script.OrderedModuleDict")


def _shadowed(cls: type) -> str | None:
    """The registry one of the module's classes redefines (read each time: a class can gain a
    `_modules` property after its first instance was checked)."""
    for klass in type.__dict__["__mro__"].__get__(cls):
        if klass is nn.Module or klass is object:
            continue
        own = type.__dict__["__dict__"].__get__(klass)
        for name in (*REGISTRIES, "__getattribute__"):  # the latter sees every `self._modules`
            if name in own:
                return f"{klass.__qualname__}.{name}"
    return None


def problem(module: Any) -> str | None:
    """Why `module`'s registries cannot be trusted, or None."""
    cls = type(module)
    shadow = _shadowed(cls)
    if shadow is not None:
        return f"{shadow} is redefined by the class, hiding torch's registry"
    try:
        own = object.__getattribute__(module, "__dict__")
    except AttributeError:
        return f"{cls.__qualname__} has no __dict__"
    for name in REGISTRIES:
        if name not in own:
            if _qualified(cls).startswith("torch."):
                continue  # TorchScript's modules answer from C++ through their own __getattr__
            return f"{cls.__qualname__}.{name} is missing"
        registry = own[name]
        if type(registry) not in _PLAIN and _qualified(type(registry)) not in TORCH_TYPES:
            return f"{cls.__qualname__}.{name} is a {type(registry).__qualname__}, not torch's dict"
    for name in HOOK_REGISTRIES:
        registry = own.get(name)
        if registry is not None and type(registry) not in _PLAIN:
            return f"{cls.__qualname__}.{name} is a {type(registry).__qualname__}, not torch's dict"
    return None


def hook_keys(module: Any, name: str) -> list:
    """The ids of the hooks in `module`'s hook registry `name` (a HOOK_REGISTRIES name) or in
    nn's global one (`_global_forward_hooks`...), read through dict's own methods; a registry that
    is not torch's plain dict raises TamperingDetected (its own methods could hide entries)."""
    import torch.nn.modules.module as module_module

    registry = (vars(module_module) if module is None else object.__getattribute__(module, "__dict__")).get(name)
    if registry is None:
        return []
    if type(registry) not in _PLAIN:
        raise TamperingDetected(f"the submission replaced a hook registry ({name} is a "
                                f"{type(registry).__qualname__}, not torch's dict): which hooks are left cannot be "
                                f"read")
    return list(dict.keys(registry))


def _qualified(cls: type) -> str:
    # the class's real home: a candidate's class may claim __module__ = "torch.jit._script", but
    # it is then not the object torch.jit._script holds under that name
    name = f"{cls.__module__}.{cls.__qualname__}"
    home = sys.modules.get(cls.__module__)
    return name if home is not None and getattr(home, cls.__qualname__, None) is cls else f"<{name}>"


def _guarded(method: Any) -> Any:
    @functools.wraps(method)
    def read(self: Any, *args: Any, **kwargs: Any) -> Any:
        why = problem(self)
        if why is not None:
            raise TamperingDetected(f"the submission replaced a module registry ({why}): what torch reports "
                                    f"about this model cannot be trusted")
        return method(self, *args, **kwargs)

    read.__grader_registry_guard__ = True
    return read


def install() -> None:
    """Wrap the readers (once per process; forked workers inherit it)."""
    for name in _READERS:
        method = vars(nn.Module).get(name)
        if method is not None and not getattr(method, "__grader_registry_guard__", False):
            setattr(nn.Module, name, _guarded(method))
