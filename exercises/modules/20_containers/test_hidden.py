"""Hidden checks for 20_containers.

Probes read modules through `nn.Module`'s own methods (`named_children`, `named_modules`,
`named_parameters`, `state_dict`, `register_forward_hook`, `to`), never methods the candidate's
class can override; values come from the candidate's forward.
"""
import pytest
import torch

from grader import probes
from grader.testing import assert_close, assert_shape, check, requires_cuda

TASKS = {"sentiment": 3, "topic": 7, "spam": 2}


def _children(mod, sizes, x):
    from torch import nn

    model = mod.named_mlp(sizes)
    if not isinstance(model, nn.Sequential):
        return {"type": probes.qualified_name(model)}
    with torch.no_grad():
        out = model(x)
    return {"type": "Sequential",
            "children": [(n, type(m).__name__) for n, m in nn.Module.named_children(model)],
            "params": {n: p.detach().clone() for n, p in nn.Module.named_parameters(model)}, "out": out}


@check("state", weight=2)
@pytest.mark.parametrize("sizes", [[4, 8, 2], [3, 5, 6, 2]], ids=["2-layers", "3-layers"])
def test_named_mlp_children(sub, sizes):
    x = torch.randn(5, sizes[0])
    seen = sub.probe(_children, sub, sizes, x)
    assert seen["type"] == "Sequential", f"named_mlp must return an nn.Sequential, got {seen['type']}"
    k = len(sizes) - 1
    names = [n for i in range(1, k + 1) for n in (f"fc{i}", f"act{i}")][:-1]
    kinds = ["Linear" if n.startswith("fc") else "ReLU" for n in names]
    assert [n for n, _ in seen["children"]] == names, \
        f"children of named_mlp({sizes}) are {[n for n, _ in seen['children']]}, expected {names}"
    assert [t for _, t in seen["children"]] == kinds, f"child types {seen['children']}, expected Linear/ReLU"
    params = seen["params"]
    for i in range(1, k + 1):
        assert tuple(params[f"fc{i}.weight"].shape) == (sizes[i], sizes[i - 1]), \
            f"fc{i}.weight has shape {tuple(params[f'fc{i}.weight'].shape)}, expected {(sizes[i], sizes[i - 1])}"
    h = x
    for i in range(1, k + 1):
        h = h @ params[f"fc{i}.weight"].T + params[f"fc{i}.bias"]
        if i < k:
            h = torch.relu(h)
    assert_close(seen["out"], h, what=f"named_mlp({sizes}) output")


def _task_run(mod, x, task):
    from torch import nn

    model = mod.MultiTaskHeads(x.shape[-1], 6, {"sentiment": 3, "topic": 7, "spam": 2})
    heads = dict(nn.Module.named_modules(model)).get("heads")
    fired, handles = {}, []

    def record(name):
        def hook(module, args, out):
            fired.setdefault(name, (args[0].detach(), out.detach()))  # returns None: the output stays
        return hook

    if heads is not None:
        for name, head in nn.Module.named_children(heads):
            handles.append(nn.Module.register_forward_hook(head, record(name)))
    with torch.no_grad():
        out = model(x, task)
    for h in handles:
        h.remove()
    return {"heads": probes.qualified_name(heads) if heads is not None else None, "fired": fired, "out": out}


@check("shape", weight=2)
def test_multitask_shapes(sub):
    x = torch.randn(4, 5)
    for task, n in TASKS.items():
        seen = sub.probe(_task_run, sub, x, task)
        assert seen["heads"] is not None, "self.heads must be a submodule registered with the model"
        assert_shape(seen["out"], (4, n), what=f"logits for task {task!r}")
        assert list(seen["fired"]) == [task], f"forward(x, {task!r}) ran the heads {list(seen['fired'])}"
        head_in, head_out = seen["fired"][task]
        assert tuple(head_in.shape) == (4, 6) and bool((head_in >= 0).all()), \
            "each head must take the trunk's ReLU output of width hidden"
        assert_close(seen["out"], head_out, what=f"logits for task {task!r} (the head's own output)")
    model = sub.MultiTaskHeads(5, 6, TASKS)
    with pytest.raises(KeyError):
        model(x, "unknown-task")


@check("state")
def test_multitask_parameters(sub):
    def registered(mod):
        from torch import nn

        model = mod.MultiTaskHeads(5, 6, {"sentiment": 3, "topic": 7, "spam": 2})
        return sum(p.numel() for p in nn.Module.parameters(model)), list(nn.Module.state_dict(model))

    count, keys = sub.probe(registered, sub)
    expected = (5 * 6 + 6) + sum(6 * n + n for n in TASKS.values())
    assert count == expected, f"parameter count {count}, expected trunk + heads = {expected}"
    missing = [f"heads.{t}.{p}" for t in TASKS for p in ("weight", "bias") if f"heads.{t}.{p}" not in keys]
    assert not missing, f"state_dict has no {missing}"


def _hidden_containers(mod, which):
    from torch import nn

    model = (mod.MultiTaskHeads(5, 6, {"a": 2, "b": 3}) if which == "heads" else mod.TwoTower(3, 4, 6, 2))
    found = []

    def holds_module(value, depth=0):
        if isinstance(value, nn.Module):
            return True
        if depth < 3 and isinstance(value, dict):
            return any(holds_module(v, depth + 1) for v in value.values())
        if depth < 3 and isinstance(value, (list, tuple, set, frozenset)):
            return any(holds_module(v, depth + 1) for v in value)
        return False

    linears = sum(isinstance(m, nn.Linear) for m in nn.Module.modules(model))
    for name, m in nn.Module.named_modules(model):
        for key, value in object.__getattribute__(m, "__dict__").items():
            if key in ("_modules", "_parameters", "_buffers"):
                continue
            if isinstance(value, (list, tuple, set, frozenset, dict)) and holds_module(value):
                found.append(f"{name or 'model'}.{key}")
    return found, linears


@check("api", weight=2)
@pytest.mark.parametrize("which", ["heads", "towers"])
def test_no_modules_in_plain_containers(sub, which):
    found, linears = sub.probe(_hidden_containers, sub, which)
    expected = 3 if which == "heads" else 6
    assert linears == expected, f"the model registers {linears} nn.Linear modules, expected {expected}"
    assert not found, \
        f"{found} hold modules in a plain list/tuple/set/dict: use nn.ModuleList or nn.ModuleDict"


@check("shape", weight=2)
def test_two_tower_similarity(sub):
    model = sub.TwoTower(3, 4, 6, 2)
    a, b = torch.randn(9, 3) * 20, torch.randn(9, 4) * 20
    with torch.no_grad():
        out = model(a, b)
    assert_shape(out, (9,), what="TwoTower(a (9, 3), b (9, 4))")
    assert bool(((out >= -1 - 1e-5) & (out <= 1 + 1e-5)).all()), \
        f"a cosine similarity lies in [-1, 1], got {out.min().item():.3g}..{out.max().item():.3g}"
    assert float(out.std()) > 1e-4, "the similarities of 9 random pairs should not all be equal"


@check("value", weight=2)
def test_two_tower_residual_values(sub):
    def chain(mod, a, b):
        from torch import nn

        model = mod.TwoTower(3, 4, 6, 3)
        record, handles = {}, []

        def hook(key):
            def seen(module, args, out):
                record[key].append((args[0].detach().clone(), out.detach().clone()))
            return seen

        for name, lst in nn.Module.named_modules(model):
            if isinstance(lst, nn.ModuleList):
                record[name] = []
                for lin in nn.Module.modules(lst):
                    if isinstance(lin, nn.Linear):
                        handles.append(nn.Module.register_forward_hook(lin, hook(name)))
        with torch.no_grad():
            out = model(a, b)
        for h in handles:
            h.remove()
        return record, out

    a, b = torch.randn(5, 3), torch.randn(5, 4)
    record, out = sub.probe(chain, sub, a, b)
    towers = {k: v for k, v in record.items() if v}
    assert len(towers) == 2, f"expected two nn.ModuleLists of blocks that run, found {sorted(towers)}"
    finals = []
    for name, calls in towers.items():
        assert len(calls) == 3, f"{name}: {len(calls)} block calls for num_layers=3"
        for i in range(2):
            h, z = calls[i]
            assert_close(calls[i + 1][0], h + torch.relu(z), what=f"{name}: input of block {i + 1} = h + relu(block(h))")
        h, z = calls[-1]
        finals.append(h + torch.relu(z))
    assert_shape(out, (5,), what="TwoTower output")
    assert_close(out, torch.nn.functional.cosine_similarity(*finals, dim=-1), atol=1e-5, rtol=1e-4,
                 what="cosine similarity of the two towers' final encodings")


@check("grad", weight=2)
def test_two_tower_gradients(sub):
    def grads(mod):
        from torch import nn

        model = mod.TwoTower(3, 4, 6, 3)
        out = model(torch.randn(5, 3), torch.randn(5, 4))
        if not isinstance(out, torch.Tensor):
            return None
        out.sum().backward()
        linears = [n for n, m in nn.Module.named_modules(model) if isinstance(m, nn.Linear)]
        lists = [n for n, m in nn.Module.named_modules(model) if isinstance(m, nn.ModuleList)]
        missing = [n for n, p in nn.Module.named_parameters(model) if p.grad is None]
        return {"linears": len(linears), "lists": lists, "missing": missing}

    seen = sub.probe(grads, sub)
    assert seen is not None, "TwoTower's forward did not return a tensor"
    assert seen["linears"] == 2 * (1 + 3), \
        f"two towers of 1 projection + 3 blocks hold 8 registered nn.Linear, found {seen['linears']}"
    assert len(seen["lists"]) >= 2, f"each tower keeps its blocks in an nn.ModuleList, found {seen['lists']}"
    assert not seen["missing"], f"one backward gave no gradient to {seen['missing']}"


@check("device")
@pytest.mark.parametrize("which", ["heads", "towers"])
def test_meta_device_fallback(sub, which):
    def on_meta(mod, which):
        if which == "heads":
            return probes.meta_forward(mod.MultiTaskHeads(5, 6, {"a": 2, "b": 3}), torch.randn(2, 5), "b")
        return probes.meta_forward(mod.TwoTower(3, 4, 6, 2), torch.randn(2, 3), torch.randn(2, 4))

    seen = sub.probe(on_meta, sub, which)
    assert seen["params"] == ["meta"], f"after .to('meta') parameters are on {seen['params']}"
    assert seen["error"] is None, f"forward of a meta model failed: {seen['error']}"
    shape = (2, 3) if which == "heads" else (2,)
    assert seen["out"] == [("meta", shape)], f"meta forward gave {seen['out']}, expected [('meta', {shape})]"


@requires_cuda
@check("device", weight=2)
def test_cuda_moves_everything(sub):
    def on_cuda(mod):
        from torch import nn

        heads = nn.Module.cuda(mod.MultiTaskHeads(5, 6, {"a": 2, "b": 3}))
        towers = nn.Module.cuda(mod.TwoTower(3, 4, 6, 2))
        devices = {p.device.type for m in (heads, towers) for p in nn.Module.parameters(m)}
        out_h = heads(torch.randn(2, 5, device="cuda"), "a")
        out_t = towers(torch.randn(2, 3, device="cuda"), torch.randn(2, 4, device="cuda"))
        return sorted(devices), out_h.device.type, out_t.device.type

    devices, dev_h, dev_t = sub.probe(on_cuda, sub)
    assert devices == ["cuda"] and dev_h == dev_t == "cuda", f".cuda() left parameters on {devices}"
