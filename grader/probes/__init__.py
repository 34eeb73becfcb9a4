"""Observations for probes that do not trust what the candidate can override.

Probes run in the worker, next to the candidate's objects, and a candidate's class may override
any method it inherits: a wrong MLP can answer `state_dict()`, `named_parameters()`,
`named_modules()`, `named_children()` or `load_state_dict()` with decoy layers, and even torch's own
`nn.Module.state_dict(m)` calls methods of `m` (`named_modules`, each child's `state_dict`). These
helpers read torch's registries (`_modules`, `_parameters`, `_buffers`) directly, walk what an
autograd graph really references, and measure memory as a delta around one call. They travel
with the probe by value (the judge registers this package and each module in `SUBMODULES` for
cloudpickle), so the candidate cannot replace them in its process; what they call in torch is
covered by the canaries.

Use them inside probes, or from checks through `grader.testing`'s wrappers:

    from grader import probes
    seen = sub.probe(lambda m: sorted(probes.state_dict(m)), model)   # keys from nn.Module's code

One module per job: `registry` (a module's state, parameters and submodules), `objects` (graphs
held, attributes, class names), `memory`, `spies` (spy, forbid, replace, substitute),
`dispatcher` (operators refused at torch's dispatcher), `hooks`, `optimizers`, `warning_log`.
Modules of this package import each other, never this file: it only gathers their names.
"""

from grader.probes import dispatcher, hooks, memory, objects, optimizers, registry, spies, warning_log
from grader.probes.dispatcher import at_dispatcher, forbid_forward_ops, forbid_ops
from grader.probes.hooks import HookRecorder, hook_keys, hook_recorder, meta_forward
from grader.probes.memory import peak_rss_delta
from grader.probes.objects import MAX_WALK, graph_holders, instance_attrs, qualified_name
from grader.probes.optimizers import optimizer_state, scheduler_state, train_steps
from grader.probes.registry import (
           load_state_dict,
           modules,
           named_children,
           named_modules,
           named_parameters,
           state_dict,
)
from grader.probes.spies import ForbiddenAPIError, Patch, Recorder, forbid, replace, resolve, spy, substitute
from grader.probes.warning_log import WarningLog, capture_warnings

_Patch, _resolve = Patch, resolve  # the names hidden checks that build a patch of their own know them by

# Every module of the package: the judge registers each for pickling by value (a test holds this
# list to the package's files).
SUBMODULES = (dispatcher, hooks, memory, objects, optimizers, registry, spies, warning_log)

__all__ = ["MAX_WALK", "SUBMODULES", "ForbiddenAPIError", "HookRecorder", "Patch", "Recorder", "WarningLog",
           "at_dispatcher", "capture_warnings", "forbid", "forbid_forward_ops", "forbid_ops", "graph_holders",
           "hook_keys", "hook_recorder", "instance_attrs", "load_state_dict", "meta_forward", "modules",
           "named_children", "named_modules", "named_parameters", "optimizer_state", "peak_rss_delta",
           "qualified_name", "replace", "resolve", "scheduler_state", "spy", "state_dict", "substitute", "train_steps"]
