"""Hidden checks for 66_activation_checkpointing.

Values, grads, API and mode run on the CPU. Expected outputs and grads are computed in the judge
by a plain MLP loaded with the worker model's weights and run under the same seed (dropout masks
come from the same CPU generator). The memory question has a CPU version: what autograd saves
outside the checkpoints (an outer `saved_tensors_hooks`) and the blocks re-run during backward;
the CUDA checks measure the real peak.
"""
import torch
from torch import nn

from grader.testing import assert_close, base_state_dict, check, requires_cuda

WIDTH, DEPTH, P = 32, 3, 0.1


def _plain(state, width=WIDTH, depth=DEPTH, p=P):
    """The judge's model: depth [Linear, GELU, Dropout] blocks with the given weights."""
    blocks = nn.ModuleList(nn.Sequential(nn.Linear(width, width), nn.GELU(), nn.Dropout(p)) for _ in range(depth))
    model = nn.Module()
    model.blocks = blocks
    model.load_state_dict(state)
    return model


def _expected(state, x, seed, x_grad):
    model = _plain(state)
    x = x.clone().requires_grad_(x_grad)
    torch.manual_seed(seed)
    out = x
    for block in model.blocks:
        out = block(out)
    (out ** 2).sum().backward()
    grads = {n: p.grad for n, p in model.named_parameters()}
    return out.detach(), grads, x.grad


def _run(mod, x, seed, x_grad, use_checkpoint=True, device="cpu"):
    from grader import probes

    torch.manual_seed(0)
    model = mod.CheckpointedMLP(WIDTH, DEPTH, P, use_checkpoint).to(device).train()
    state = {k: v.cpu() for k, v in probes.state_dict(model).items()}
    x = x.to(device).requires_grad_(x_grad)
    torch.manual_seed(seed)
    out = model(x)
    (out ** 2).sum().backward()
    grads = {n: (p.grad.cpu() if p.grad is not None else None) for n, p in probes.named_parameters(model).items()}
    return {"state": state, "out": out.detach().cpu(), "grads": grads,
            "x_grad": x.grad.cpu() if x.grad is not None else None}


def _compare(seen, x, seed, x_grad, atol=1e-6):
    out, grads, x_grad_expected = _expected(seen["state"], x, seed, x_grad)
    assert_close(seen["out"], out, atol=atol, rtol=0, what="the training-mode output")
    assert sorted(seen["grads"]) == sorted(grads), f"parameters {sorted(seen['grads'])}, expected {sorted(grads)}"
    for name, g in grads.items():
        assert seen["grads"][name] is not None, f"{name}.grad is None after backward"
        assert_close(seen["grads"][name], g, atol=atol, rtol=0, what=f"{name}.grad")
    return x_grad_expected


@check("value", weight=2)
def test_matches_plain_model(sub):
    torch.manual_seed(1)
    x = torch.randn(16, WIDTH)
    for use_checkpoint in (True, False):
        seen = sub.probe(_run, sub, x, 123, False, use_checkpoint)
        _compare(seen, x, 123, False)


@check("grad")
def test_param_grads_without_input_grad(sub):
    torch.manual_seed(2)
    x = torch.randn(8, WIDTH)
    seen = sub.probe(_run, sub, x, 7, False)
    missing = sorted(n for n, g in seen["grads"].items() if g is None or not bool(g.abs().sum() > 0))
    assert seen["grads"] and not missing, (
        f"with an input that does not require grad, these parameters got no grad: {missing} (use_reentrant=True?)")


@check("grad")
def test_input_grad(sub):
    torch.manual_seed(3)
    x = torch.randn(8, WIDTH)
    seen = sub.probe(_run, sub, x, 11, True)
    expected = _compare(seen, x, 11, True)
    assert seen["x_grad"] is not None, "x.grad is None for an input that requires grad"
    assert_close(seen["x_grad"], expected, atol=1e-6, rtol=0, what="x.grad")


def _calls(mod):
    from grader import probes

    model = mod.CheckpointedMLP(WIDTH, DEPTH)  # the defaults: p = 0.1, use_checkpoint = True
    x = torch.randn(4, WIDTH)
    seen = {"blocks": [[probes.qualified_name(m) for _, m in probes.modules(b)[1:]] for _, b in probes.modules(model)
                       if probes.qualified_name(b) == "torch.nn.modules.container.Sequential"],
            "p": sorted({float(m.p) for _, m in probes.modules(model) if type(m) is nn.Dropout})}
    for label, train, grad, flag in (("train", True, True, True), ("eval", False, True, True),
                                     ("no_grad", True, False, True), ("off", True, True, False)):
        model.train(train)
        if label != "train":  # the first forward runs with the constructor's default
            model.use_checkpoint = flag
        with probes.spy("torch.utils.checkpoint.checkpoint", module=mod) as spy, torch.set_grad_enabled(grad):
            model(x)
        seen[label] = [kwargs.get("use_reentrant", "missing") for _, _, kwargs in spy.calls]
    return seen


@check("api", weight=2)
def test_checkpoint_calls(sub):
    seen = sub.probe(_calls, sub)
    block = ["torch.nn.modules.linear.Linear", "torch.nn.modules.activation.GELU", "torch.nn.modules.dropout.Dropout"]
    assert seen["blocks"] == [block] * DEPTH and seen["p"] == [0.1], (
        f"CheckpointedMLP({WIDTH}, {DEPTH}) should hold {DEPTH} Sequential blocks {block} with the default p = 0.1; "
        f"got {seen['blocks']}, p {seen['p']}")
    # how each call is made (use_reentrant) is graded by what it does: the grad checks
    assert len(seen["train"]) == DEPTH, (
        f"a training forward should call torch.utils.checkpoint.checkpoint once per block ({DEPTH}); "
        f"it was called {len(seen['train'])} times")
    assert seen["eval"] == [], f"in eval mode checkpointing is wasted work, yet checkpoint was called {len(seen['eval'])} times"
    assert seen["no_grad"] == [], f"under torch.no_grad() checkpoint was called {len(seen['no_grad'])} times"
    assert seen["off"] == [], f"with use_checkpoint=False checkpoint was called {len(seen['off'])} times"


@check("state")
def test_state_dict_keys(sub):
    keys = {flag: sorted(base_state_dict(sub, sub.CheckpointedMLP(8, 2, 0.1, flag))) for flag in (True, False)}
    expected = sorted(f"blocks.{i}.0.{k}" for i in range(2) for k in ("weight", "bias"))
    assert keys[True] == keys[False] == expected, f"state_dict keys {keys}, expected {expected} for both"


def _eval(mod, x):
    from grader import probes

    torch.manual_seed(0)
    a = mod.CheckpointedMLP(WIDTH, DEPTH, 0.5, True).eval()
    b = mod.CheckpointedMLP(WIDTH, DEPTH, 0.5, False).eval()
    probes.load_state_dict(b, probes.state_dict(a))
    first, second = a(x), a(x)
    return {"first": first.detach(), "second": second.detach(), "plain": b(x).detach(), "state": probes.state_dict(a)}


@check("mode")
def test_eval_mode(sub):
    torch.manual_seed(4)
    x = torch.randn(8, WIDTH)
    seen = sub.probe(_eval, sub, x)
    model = _plain(seen["state"], p=0.5).eval()
    with torch.no_grad():
        out = x
        for block in model.blocks:
            out = block(out)
    assert torch.equal(seen["first"], seen["second"]), "two eval-mode forwards differ: dropout is active in eval mode"
    assert_close(seen["first"], out, atol=1e-6, rtol=0, what="the eval-mode output (checkpointed model)")
    assert_close(seen["plain"], out, atol=1e-6, rtol=0, what="the eval-mode output (use_checkpoint=False)")


def _saved(mod, flag):
    torch.manual_seed(0)
    model = mod.CheckpointedMLP(64, 4, P, flag).train()
    x = torch.randn(32, 64)
    saved = [0]

    def pack(t):
        saved[0] += t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(x)
    reruns = [0]
    handles = [nn.Module.register_forward_hook(block[0], lambda *a: reruns.__setitem__(0, reruns[0] + 1))
               for block in model.blocks]
    out.sum().backward()
    for handle in handles:
        handle.remove()
    return saved[0], reruns[0]


def _forward_held(mod, flag, width, depth, batch):
    """A training forward whose graph is alive until the probe returns: what it holds for backward
    is in the worker's peak resident size, which its fork server reads (`sub.measure_memory`).
    `flag` None: the judge's own plain blocks (torch's modules, no class of the candidate's)."""
    import ctypes

    from grader import probes

    # a fixed mmap threshold: every freed activation leaves the process at once (glibc's sliding
    # threshold would keep freed blocks resident, and count them as held)
    ctypes.CDLL(None).mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD
    hooks = [name for name in ("_global_forward_hooks", "_global_forward_pre_hooks", "_global_backward_hooks",
                               "_global_backward_pre_hooks") if probes.hook_keys(None, name)]
    if hooks:
        return f"global module hooks are registered ({', '.join(hooks)})"
    torch.manual_seed(0)
    if flag is None:
        blocks = [nn.Sequential(nn.Linear(width, width), nn.GELU(), nn.Dropout(P)) for _ in range(depth)]

        def model(t):
            for block in blocks:
                t = block(t)
            return t
    else:
        model = mod.CheckpointedMLP(width, depth, P, flag).train()
    x = torch.randn(batch, width)
    model(x[:8]).sum().backward()  # BLAS workspaces and the first-call allocations, before the peak counts
    out = model(x)
    return tuple(out.shape)


MEMORY_SHAPE = (256, 16, 8192)  # width, depth, batch: 8 MiB an activation


@check("perf")
def test_memory_traded_for_recompute(sub):
    # CPU version of the memory bound: bytes autograd saves outside the checkpoints, and the
    # blocks run again during backward (measured 22 % of the plain model's saved bytes, 4 reruns).
    plain, plain_reruns = sub.probe(_saved, sub, False)
    ckpt, reruns = sub.probe(_saved, sub, True)
    assert plain > 0 and plain_reruns == 0, f"the plain model saved {plain} bytes and re-ran {plain_reruns} blocks"
    assert ckpt <= 0.5 * plain, (
        f"with checkpointing, the forward still saves {ckpt} bytes for backward ({ckpt / plain:.0%} of the plain "
        "model's): only the block inputs should be kept")
    assert reruns == 4, f"each of the 4 blocks should run again during backward (recomputation); {reruns} did"
    # The same question measured from outside the worker, which no hook of the candidate's can
    # shadow: the peak memory of a training forward, checkpointed against plain.
    # (measured here: 144 MiB checkpointed, 393 MiB plain, 37 %)
    plain_shape, plain_bytes = sub.measure_memory(lambda: sub.probe(_forward_held, sub, None, *MEMORY_SHAPE))
    shape, ckpt_bytes = sub.measure_memory(lambda: sub.probe(_forward_held, sub, True, *MEMORY_SHAPE))
    for seen in (plain_shape, shape):
        assert not isinstance(seen, str), f"the memory of a training forward cannot be measured: {seen}"
    assert ckpt_bytes <= 0.6 * plain_bytes, (
        f"a checkpointed training forward (width {MEMORY_SHAPE[0]}, depth {MEMORY_SHAPE[1]}, batch "
        f"{MEMORY_SHAPE[2]}) held {ckpt_bytes / 2**20:.0f} MiB at its peak, against "
        f"{plain_bytes / 2**20:.0f} MiB of plain blocks ({ckpt_bytes / plain_bytes:.0%}): only the block inputs should be "
        "kept")


def _cuda_peak(mod, flag):
    torch.manual_seed(0)
    model = mod.CheckpointedMLP(1024, 16, P, flag).cuda().train()
    x = torch.randn(16384, 1024, device="cuda")
    model(x[:8]).sum().backward()  # warm the kernels and cuBLAS workspace
    model.zero_grad(set_to_none=False)
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    model(x).sum().backward()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - base


@requires_cuda
@check("perf", timeout_s=120)
def test_cuda_peak_memory(sub):
    plain = sub.probe(_cuda_peak, sub, False)
    ckpt = sub.probe(_cuda_peak, sub, True)
    assert ckpt <= 0.5 * plain, f"checkpointed peak {ckpt / 2**20:.0f} MiB > 50 % of the plain {plain / 2**20:.0f} MiB"


@requires_cuda
@check("device")
def test_cuda_matches_plain(sub):
    torch.manual_seed(5)
    x = torch.randn(16, WIDTH)

    def both(mod, x):
        from grader import probes

        results, state = [], None
        for flag in (True, False):
            torch.manual_seed(0)
            model = mod.CheckpointedMLP(WIDTH, DEPTH, P, flag).cuda().train()
            if state is None:
                state = probes.state_dict(model)
            else:
                probes.load_state_dict(model, state)
            torch.manual_seed(9)
            with probes.spy("torch.Tensor.cpu", "torch.Tensor.to", module=mod) as seen:
                out = model(x.cuda())
                out.sum().backward()
            moves = [a[1:] for _, a, kw in seen.calls if "cpu" in map(str, a[1:]) or str(kw.get("device")) == "cpu"]
            grads = {n: p.grad.cpu() for n, p in probes.named_parameters(model).items()}
            results.append((out.detach().cpu(), grads, len(moves) + seen.count("torch.Tensor.cpu")))
        return results

    (out, grads, cpu_moves), (plain_out, plain_grads, _) = sub.probe(both, sub, x)
    assert cpu_moves == 0, "the checkpointed CUDA model copied tensors to the CPU"
    assert_close(out, plain_out, atol=1e-5, rtol=0, what="CUDA checkpointed output")
    for name, g in plain_grads.items():
        assert_close(grads[name], g, atol=1e-5, rtol=0, what=f"CUDA {name}.grad")


