"""Which submodules run: forward and backward hooks registered with nn.Module's own methods, the
hook registries read directly, and a forward pass on the meta device."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn


class HookRecorder:
    """Forward (and optionally backward) hooks on every submodule of `model`, registered with
    `nn.Module`'s own methods and removed when the `with` block ends. `forward` and `backward`
    list the submodule names ("" is the model itself) in the order their hooks fired."""

    def __init__(self, model: Any, backward: bool = False) -> None:
        self.model, self.with_backward = model, backward
        self.forward: list[str] = []
        self.backward: list[str] = []
        self._handles: list[Any] = []

    def __enter__(self) -> HookRecorder:
        try:
            for name, sub in nn.Module.named_modules(self.model):
                self._handles.append(nn.Module.register_forward_hook(
                    sub, lambda m, args, out, name=name: self.forward.append(name)))
                if self.with_backward:
                    self._handles.append(nn.Module.register_full_backward_hook(
                        sub, lambda m, gin, gout, name=name: self.backward.append(name)))
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        while self._handles:
            self._handles.pop().remove()


def hook_recorder(model: Any, backward: bool = False) -> HookRecorder:
    """Record which submodules run, through hooks (see `HookRecorder`):

        with probes.hook_recorder(model) as seen:
            model(x)
        return seen.forward          # e.g. ['layers.0', 'layers.1', 'head', '']
    """
    return HookRecorder(model, backward)


def hook_keys(module: Any, name: str) -> list:
    """The ids of the hooks in `module`'s hook registry `name` (`_forward_hooks`...), or in nn's
    global one when `module` is None (`_global_forward_hooks`...), read through dict's own methods:
    a registry swapped for a dict subclass (whose iteration could hide a hook torch still fires)
    raises TamperingDetected. See grader.sandbox.registries."""
    from grader.sandbox.registries import hook_keys as read

    return read(module, name)


def meta_forward(model: Any, *inputs: Any) -> dict[str, Any]:
    """Move `model` to the meta device with `nn.Module.to` (torch's) and run its forward on meta
    copies of `inputs`: the device check for machines without a GPU. Returns plain data:
    `params` and `buffers` (sorted device types of every parameter and buffer, read with
    `nn.Module`'s methods), `out` (device type and shape of each tensor output, or the output's
    type name) and `error` (the exception text when forward failed, e.g. a tensor created on the
    CPU inside forward without `device=`, which then meets a meta tensor)."""
    nn.Module.to(model, "meta")
    seen: dict[str, Any] = {
        "params": sorted({p.device.type for p in nn.Module.parameters(model)}),
        "buffers": sorted({b.device.type for b in nn.Module.buffers(model)}),
        "out": None, "error": None}
    metas = [x.to("meta") if isinstance(x, torch.Tensor) else x for x in inputs]
    try:
        out = model(*metas)
    except NotImplementedError:
        raise
    except Exception as exc:  # noqa: BLE001 - reported as data; the check decides
        seen["error"] = f"{type(exc).__name__}: {exc}"[:300]
        return seen
    outs = out if isinstance(out, (tuple, list)) else [out]
    seen["out"] = [(o.device.type, tuple(o.shape)) if isinstance(o, torch.Tensor) else type(o).__name__
                   for o in outs]
    return seen
