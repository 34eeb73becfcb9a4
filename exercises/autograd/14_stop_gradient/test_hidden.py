"""Hidden checks for 14_stop_gradient.

Modules passed to the worker are copies, so every EMA update is run and observed inside a probe;
expected values are computed here from the originals, which the update cannot touch.
"""
import ast
import copy

import pytest
import torch
from torch import nn

from grader.testing import assert_close, assert_shape, check, requires_cuda


def _net():
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))


def _pair():
    """An online and a target network with different weights AND different BatchNorm statistics."""
    online, target = _net(), _net()
    with torch.no_grad():
        for _ in range(3):
            online(2.0 * torch.randn(16, 4) + 1.0)
        target(torch.randn(16, 4) - 0.5)
    return target, online


def _expected_state(target, online, tau):
    params = dict(online.named_parameters())
    buffers = dict(online.named_buffers())
    out = {}
    for name, p in target.named_parameters():
        out[name] = ((1 - tau) * p + tau * params[name]).detach()
    for name, _ in target.named_buffers():
        out[name] = buffers[name].detach().clone()
    return out


def _ema_probe():
    """Probe factory (nested function, so it is pickled by value): run the update in the worker and
    send back the target's state_dict."""

    def run_ema(mod, target, online, tau):
        from grader import probes  # torch's registries, not methods the candidate may have replaced

        mod.ema_update_(target, online, tau)
        return {k: v.detach().clone() for k, v in probes.state_dict(target).items()}

    return run_ema


def _assert_state(got, expected, what):
    assert sorted(got) == sorted(expected), f"the target's state_dict keys changed: {sorted(got)}"
    for name, want in expected.items():
        kind = "buffer (copied from online)" if name.split(".")[-1] in ("running_mean", "running_var",
                                                                           "num_batches_tracked") else "parameter"
        assert_close(got[name], want, what=f"{kind} {name} after {what}")


@check("grad", weight=2)
def test_td_target_gets_no_grad(sub):
    net = nn.Linear(4, 3)
    s, s_next = torch.randn(8, 4), torch.randn(8, 4)
    actions = torch.randint(0, 3, (8,))
    reward = torch.randn(8)
    gamma = 0.9

    def observe(mod, net, s, s_next, actions, reward, gamma):
        q_pred = net(s).gather(1, actions[:, None]).squeeze(1)
        next_q = net(s_next).max(dim=1).values        # same network: must be treated as a constant
        q_pred.retain_grad()
        next_q.retain_grad()
        loss = mod.td_loss(q_pred, reward, next_q, gamma)
        # the caller's next_q is left as it was: still in its graph (detach_() would cut it there)
        kept = next_q.requires_grad and next_q.grad_fn is not None
        leaf = torch.ones(8, requires_grad=True)
        mod.td_loss(q_pred.detach(), reward, leaf, gamma)
        kept_leaf = leaf.requires_grad
        loss.backward()
        return {"next_q_grad_is_none": next_q.grad is None, "next_q_kept": kept, "leaf_kept": kept_leaf,
                "q_grad": None if q_pred.grad is None else q_pred.grad.clone(),
                "weight_grad": None if net.weight.grad is None else net.weight.grad.clone()}

    seen = sub.probe(observe, sub, net, s, s_next, actions, reward, gamma)
    assert seen["next_q_grad_is_none"], "next_q received a gradient: the TD target must be a constant (detach it)"
    assert seen["next_q_kept"] and seen["leaf_kept"], (
        "td_loss changed the caller's next_q: it no longer requires grad or lost its graph. Use next_q.detach() "
        "(a new tensor), not next_q.detach_() or next_q.requires_grad_(False), which change the caller's tensor")

    expected_net = copy.deepcopy(net)
    q = expected_net(s).gather(1, actions[:, None]).squeeze(1)
    q.retain_grad()
    y = (reward + gamma * expected_net(s_next).max(dim=1).values).detach()
    ((q - y) ** 2).mean().backward()
    assert seen["q_grad"] is not None, "q_pred received no gradient"
    assert_close(seen["q_grad"], 2 * (q.detach() - y) / len(y), what="q_pred.grad (expected 2(q - y)/N)")
    assert_close(seen["weight_grad"], expected_net.weight.grad,
                 what="the network's weight.grad (only the q_pred path may contribute)")


@check("value")
@pytest.mark.parametrize("gamma", [0.0, 0.99], ids=["gamma0", "gamma0.99"])
def test_td_loss_value(sub, gamma):
    q, reward, next_q = torch.randn(16), torch.randn(16), torch.randn(16)
    loss = sub.td_loss(q, reward, next_q, gamma)
    assert_shape(loss, (), what="td_loss")
    assert_close(loss, ((q - (reward + gamma * next_q)) ** 2).mean(), what="td_loss")


@check("grad", weight=2)
def test_ema_with_grad_params(sub):
    online, target = nn.Linear(3, 3), nn.Linear(3, 3)
    assert all(p.requires_grad for p in target.parameters())
    got = sub.probe(_ema_probe(), sub, target, online, 0.5)
    _assert_state(got, _expected_state(target, online, 0.5), "ema_update_(tau=0.5) on params that require grad")


@check("value", weight=2)
@pytest.mark.parametrize("tau", [0.0, 0.01, 1.0], ids=["tau0", "tau0.01", "tau1"])
def test_ema_values_and_buffers(sub, tau):
    target, online = _pair()
    got = sub.probe(_ema_probe(), sub, target, online, tau)
    _assert_state(got, _expected_state(target, online, tau), f"ema_update_(tau={tau})")


@check("grad")
def test_target_params_still_leaves(sub):
    target, online = _pair()
    target[1].weight.requires_grad_(False)   # a frozen parameter must stay frozen

    def observe(mod, target, online):
        from grader import probes  # torch's registries, not methods the candidate may have replaced

        target[0].weight.grad = torch.full_like(target[0].weight, 7.0)   # a pending gradient
        before = {name: p.requires_grad for name, p in probes.named_parameters(target).items()}
        mod.ema_update_(target, online, 0.3)
        after = {name: {"requires_grad": p.requires_grad, "is_leaf": p.is_leaf,
                        "grad_fn": None if p.grad_fn is None else type(p.grad_fn).__name__,
                        "grad": None if p.grad is None else p.grad.clone()}
                 for name, p in probes.named_parameters(target).items()}
        state = {k: v.detach().clone() for k, v in probes.state_dict(target).items()}
        return before, after, state

    before, after, state = sub.probe(observe, sub, target, online)
    _assert_state(state, _expected_state(target, online, 0.3), "ema_update_(tau=0.3)")
    assert sorted(after) == sorted(before), f"the target's parameters changed names: {sorted(after)}"
    for name, info in after.items():
        assert info["grad_fn"] is None and info["is_leaf"], \
            f"{name} now has grad_fn={info['grad_fn']}: the update must run without autograd history"
        assert info["requires_grad"] == before[name], \
            f"{name}.requires_grad changed from {before[name]} to {info['requires_grad']}"
    assert after["0.weight"]["grad"] is not None, "0.weight.grad was cleared: leave .grad alone"
    assert_close(after["0.weight"]["grad"], torch.full((8, 4), 7.0), what="0.weight.grad (must be untouched)")
    others = [n for n, info in after.items() if n != "0.weight" and info["grad"] is not None]
    assert not others, f"the update created .grad on {others}"


@check("state")
def test_param_identity(sub):
    target, online = _pair()

    def observe(mod, target, online):
        from grader import probes  # torch's registries, not methods the candidate may have replaced

        opt = torch.optim.SGD(list(probes.named_parameters(target).values()), lr=0.1)
        ids_before = [id(p) for p in probes.named_parameters(target).values()]
        mod.ema_update_(target, online, 0.5)
        params = list(probes.named_parameters(target).values())
        ids_after = [id(p) for p in params]
        held = opt.param_groups[0]["params"]
        state = {k: v.detach().clone() for k, v in probes.state_dict(target).items()}
        return state, {"same_ids": ids_before == ids_after,
                       "optimizer_holds_params": len(held) == len(params) and all(a is b for a, b in zip(held, params))}

    state, seen = sub.probe(observe, sub, target, online)
    _assert_state(state, _expected_state(target, online, 0.5), "ema_update_(tau=0.5)")
    assert seen["same_ids"], ("the target's Parameter objects were replaced: update them in place, so that an "
                              "optimizer holding them stays valid")
    assert seen["optimizer_holds_params"], "an optimizer built on the target no longer holds its parameters"


def _data_uses(mod, q, reward, next_q, target, online):
    """Probe: td_loss and ema_update_ run under a TorchFunctionMode that sees every read and write
    of a tensor's `.data` (torch's getter reports itself there whatever spelling reached it:
    `t.data`, `getattr(t, "da" + "ta")`, the descriptor called by hand), made by code outside
    torch; and, as the effect, the target's parameters whose version counter did not move
    (an update through `.data` hides itself from autograd's version tracking)."""
    import os
    import sys

    from torch.overrides import TorchFunctionMode

    from grader import probes

    torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
    descriptor = vars(torch._C.TensorBase)["data"]

    class DataWatch(TorchFunctionMode):
        def __init__(self):
            super().__init__()
            self.uses = []

        def __torch_function__(self, func, types, args=(), kwargs=None):
            if getattr(func, "__self__", None) is descriptor:
                caller = sys._getframe(1)
                if not caller.f_code.co_filename.startswith(torch_dir):
                    self.uses.append(f"{'read' if func.__name__ == '__get__' else 'write'} of .data "
                                     f"in {caller.f_code.co_name}()")
            return func(*args, **(kwargs or {}))

    params = probes.named_parameters(target)
    versions = {name: (p, p._version) for name, p in params.items()}
    with DataWatch() as watch:
        mod.td_loss(q, reward, next_q, 0.9)
        mod.ema_update_(target, online, 0.5)
    after = probes.named_parameters(target)
    unmoved = [name for name, (p, version) in versions.items() if after.get(name) is p and p._version == version]
    return sorted(set(watch.uses)), unmoved


@check("api")
def test_no_dot_data(sub):
    sub.static.require_implemented("td_loss", "ema_update_")
    q, reward, next_q = torch.randn(4), torch.randn(4), torch.randn(4)
    loss = sub.td_loss(q, reward, next_q, 0.9)
    assert_shape(loss, (), what="td_loss")
    assert_close(loss, ((q - (reward + 0.9 * next_q)) ** 2).mean(), what="td_loss")
    online, target = nn.Linear(3, 2), nn.Linear(3, 2)
    got = sub.probe(_ema_probe(), sub, target, online, 0.5)
    _assert_state(got, _expected_state(target, online, 0.5), "ema_update_(tau=0.5)")
    # at run time (authoritative: `getattr(t, "da" + "ta")` meets torch's getter all the same)
    target, online = _pair()
    uses, unmoved = sub.probe(_data_uses, sub, q, reward, next_q, target, online)
    assert not uses, (f"the code used .data at run time ({', '.join(uses)}), which bypasses autograd's version "
                      "tracking: use .detach() or torch.no_grad() instead")
    assert not unmoved, (f"ema_update_ changed {unmoved} without autograd's version counter seeing it (as through "
                         ".data): update them in place under torch.no_grad() instead")
    # and in the source (a secondary reason: a branch the run did not take)
    lines = []
    for node in ast.walk(sub.static.tree):
        if isinstance(node, ast.Attribute) and node.attr == "data":
            base = node.value
            if isinstance(base, ast.Attribute) and base.attr == "utils":   # torch.utils.data is fine
                continue
            lines.append(node.lineno)
    assert not lines, (f"line {min(lines)} uses .data, which bypasses autograd's version tracking: use "
                       f".detach() or torch.no_grad() instead")


@requires_cuda
@check("device")
def test_cuda_no_sync(sub):
    target, online = _pair()

    def run_without_sync(mod, target, online):
        target, online = target.cuda(), online.cuda()
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")
        try:
            mod.ema_update_(target, online, 0.1)
        finally:
            torch.cuda.set_sync_debug_mode("default")
        from grader import probes  # torch's registries, not methods the candidate may have replaced

        state = probes.state_dict(target)
        devices = sorted({t.device.type for t in state.values()})
        return devices, {k: v.detach().cpu().clone() for k, v in state.items()}

    devices, got = sub.probe(run_without_sync, sub, target, online)
    assert devices == ["cuda"], f"the target ended up on {devices}"
    _assert_state(got, _expected_state(target, online, 0.1), "ema_update_ on CUDA")
