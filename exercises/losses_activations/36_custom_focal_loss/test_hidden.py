"""Hidden checks for 36_custom_focal_loss.

Expected focal-loss values come from the closed form written in the judge with `log_softmax`
(`_focal`), and its gradients from autograd on that formula; the triplet loss is compared with
`nn.TripletMarginLoss`. The loss module is read in probes from torch's registries
(`probes.state_dict`, `probes.named_parameters`, `_buffers`) and moved with `nn.Module.to`, never
through methods the candidate's class can override.
"""
import torch
import torch.nn.functional as F
from torch import nn

from grader import probes
from grader.testing import assert_close, assert_shape, assert_tensor, check, requires_cuda


def _focal(logits, targets, gamma, alpha=None, reduction="mean"):
    log_pt = torch.log_softmax(logits, dim=1).gather(1, targets.long()[:, None]).squeeze(1)
    loss = -((1 - log_pt.exp()) ** gamma) * log_pt
    if alpha is not None:
        loss = alpha.to(loss.dtype)[targets.long()] * loss
    return {"mean": loss.mean, "sum": loss.sum}.get(reduction, lambda: loss)()


def _scalar(out, what):
    t = assert_tensor(out, what)
    assert t.dim() == 0, f"{what} must be a 0-dim tensor, got shape {tuple(t.shape)}"
    return t


@check("value")
def test_gamma0_equals_cross_entropy(sub):
    logits, targets = torch.randn(12, 5, dtype=torch.float64) * 2, torch.randint(0, 5, (12,))
    out = _scalar(sub.FocalLoss(gamma=0.0)(logits, targets), "FocalLoss(gamma=0)(logits, targets)")
    assert_close(out, F.cross_entropy(logits, targets), what="FocalLoss(gamma=0, alpha=None) vs F.cross_entropy")
    out = sub.FocalLoss(gamma=0.0, reduction="sum")(logits, targets)
    assert_close(out, F.cross_entropy(logits, targets, reduction="sum"), what="FocalLoss(gamma=0, reduction='sum')")


@check("value", weight=2)
def test_gamma2_alpha_matches_reference(sub):
    for gamma in (2.0, 0.5):
        logits, targets = torch.randn(16, 4, dtype=torch.float64) * 2, torch.randint(0, 4, (16,))
        alpha = torch.tensor([0.25, 1.0, 2.0, 0.5], dtype=torch.float64)
        what = f"FocalLoss(gamma={gamma}, alpha={alpha.tolist()}) (mean over the batch)"
        out = _scalar(sub.FocalLoss(gamma=gamma, alpha=alpha)(logits, targets), what)
        assert_close(out, _focal(logits, targets, gamma, alpha), what=what)
    out = _scalar(sub.FocalLoss(alpha=alpha)(logits, targets), "FocalLoss(alpha=...) with the default gamma")
    assert_close(out, _focal(logits, targets, 2.0, alpha), what="FocalLoss(alpha=...) with the default gamma (2) and reduction")
    logits32 = logits.float()          # float64 alpha, float32 logits: the result keeps the logits' dtype
    out = _scalar(sub.FocalLoss(gamma=2.0, alpha=alpha)(logits32, targets), "the loss of float32 logits")
    assert_close(out, _focal(logits32, targets, 2.0, alpha), what="FocalLoss(alpha=float64) on float32 logits")


@check("value")
def test_finite_large_logits(sub):
    logits = torch.randn(6, 4, dtype=torch.float64) * 1e4
    logits[0] = torch.tensor([1e4, -1e4, 0.0, -1e4], dtype=torch.float64)
    targets = torch.tensor([1, 0, 3, 2, 1, 0])
    alpha = torch.tensor([1.0, 0.5, 2.0, 1.0], dtype=torch.float64)
    out = sub.FocalLoss(gamma=2.0, alpha=alpha, reduction="none")(logits, targets)
    assert_shape(out, (6,), what="FocalLoss(reduction='none') for logits of size 1e4")
    assert torch.isfinite(out).all(), f"the focal loss of logits of size 1e4 is {out.tolist()}: use log_softmax"
    assert_close(out, _focal(logits, targets, 2.0, alpha, "none"), what="the focal loss for logits of size 1e4")


@check("grad", weight=2)
def test_grad_matches_autograd_reference(sub):
    alpha = torch.tensor([0.5, 1.5, 1.0], dtype=torch.float64)
    for scale in (2.0, 1e4):
        logits, targets = torch.randn(9, 3, dtype=torch.float64) * scale, torch.randint(0, 3, (9,))
        what = f"d focal / d logits (logits of size {scale:g})"
        x = logits.clone().requires_grad_()
        out = _scalar(sub.FocalLoss(gamma=2.0, alpha=alpha)(x, targets), "the focal loss")
        assert out.requires_grad, "the focal loss is not connected to the logits' graph"
        out.backward()
        assert x.grad is not None, "backward gave the logits no gradient"
        assert torch.isfinite(x.grad).all(), f"{what} is not finite: {x.grad.tolist()}"
        expected_x = logits.clone().requires_grad_()
        _focal(expected_x, targets, 2.0, alpha).backward()
        assert_close(x.grad, expected_x.grad, atol=1e-10, rtol=1e-6, what=what)


def _registered(mod, alpha, logits, targets):
    """Probe: what torch registered for FocalLoss(alpha=alpha) (read from its registries, not through
    methods the class may override), before and after nn.Module.to(float64)."""
    from torch import nn

    def buffers(m):
        return {prefix + k: b for name, sub in probes.modules(m) for prefix in [f"{name}." if name else ""]
                for k, b in object.__getattribute__(sub, "_buffers").items() if b is not None}

    loss = mod.FocalLoss(gamma=2.0, alpha=alpha)
    seen = {"state": probes.state_dict(loss), "params": sorted(probes.named_parameters(loss)),
            "buffers": sorted(buffers(loss))}
    nn.Module.to(loss, torch.float64)
    seen["buffer_dtypes"] = {n: b.dtype for n, b in buffers(loss).items()}
    seen["out"] = loss(logits.double(), targets)
    return seen


@check("state", weight=2)
def test_alpha_is_buffer(sub):
    alpha = torch.tensor([0.25, 1.0, 3.0])
    logits, targets = torch.randn(8, 3), torch.randint(0, 3, (8,))
    seen = sub.probe(_registered, sub, alpha, logits, targets)
    assert_close(_scalar(seen["out"], "the focal loss after .to(float64)"),
                 _focal(logits.double(), targets, 2.0, alpha.double()), what="the focal loss after .to(float64)")
    assert seen["params"] == [], f"FocalLoss must have no parameters, it has {seen['params']}"
    assert seen["buffers"] == ["alpha"], f"alpha must be the one registered buffer, buffers are {seen['buffers']}"
    assert sorted(seen["state"]) == ["alpha"], f"state_dict keys must be ['alpha'], got {sorted(seen['state'])}"
    assert_close(seen["state"]["alpha"], alpha, what="state_dict()['alpha']")
    assert seen["buffer_dtypes"] == {"alpha": torch.float64}, \
        f"after .to(torch.float64) the alpha buffer is {seen['buffer_dtypes']}: it must move with the module"

    none = sub.probe(_registered, sub, None, logits, targets)
    assert_close(_scalar(none["out"], "FocalLoss(alpha=None) after .to(float64)"),
                 _focal(logits.double(), targets, 2.0), what="FocalLoss(alpha=None)")
    assert none["params"] == [] and none["state"] == {}, (
        f"FocalLoss(alpha=None) must have no parameters and an empty state_dict, got {none['params']} / "
        f"{sorted(none['state'])}")


@check("state")
def test_alpha_is_a_detached_copy(sub):
    def observe(mod, alpha, logits, targets):
        loss = mod.FocalLoss(gamma=2.0, alpha=alpha)
        with torch.no_grad():
            alpha.add_(10.0)                                  # the caller changes its tensor afterwards
        buffer = object.__getattribute__(loss, "_buffers").get("alpha")
        return {"out": loss(logits, targets),
                "buffer": None if buffer is None else (buffer.detach().clone(), buffer.requires_grad),
                "caller_requires_grad": alpha.requires_grad}

    alpha = torch.tensor([0.5, 2.0, 1.0], requires_grad=True)
    logits, targets = torch.randn(8, 3), torch.randint(0, 3, (8,))
    seen = sub.probe(observe, sub, alpha, logits, targets)
    assert_close(_scalar(seen["out"], "the focal loss"), _focal(logits, targets, 2.0, alpha.detach()),
                 what="the loss after the caller changed the alpha it passed in")
    assert seen["buffer"] is not None, "FocalLoss(alpha=...) registered no buffer named 'alpha'"
    values, requires_grad = seen["buffer"]
    assert_close(values, alpha.detach(), what="the alpha buffer after the caller changed its tensor (keep a copy)")
    assert not requires_grad, "the alpha buffer requires grad: store a detached copy (a buffer is a constant)"
    assert seen["caller_requires_grad"], "FocalLoss(alpha=...) changed the caller's alpha (requires_grad switched off)"


@check("shape")
def test_reduction_none_shape(sub):
    logits, targets = torch.randn(7, 5, dtype=torch.float64), torch.randint(0, 5, (7,))
    alpha = torch.rand(5, dtype=torch.float64) + 0.5
    out = sub.FocalLoss(gamma=1.5, alpha=alpha, reduction="none")(logits, targets)
    assert_shape(out, (7,), what="FocalLoss(reduction='none') for 7 samples")
    assert_close(out, _focal(logits, targets, 1.5, alpha, "none"), what="FocalLoss(reduction='none')")
    out = sub.FocalLoss(gamma=1.5, alpha=alpha, reduction="sum")(logits, targets)
    assert_close(_scalar(out, "FocalLoss(reduction='sum')"), _focal(logits, targets, 1.5, alpha, "sum"),
                 what="FocalLoss(reduction='sum')")


@check("value", weight=2)
def test_triplet_matches_torch(sub):
    for margin in (1.0, 0.3, 2.5):
        anchor, positive, negative = torch.randn(10, 6), torch.randn(10, 6), torch.randn(10, 6)
        what = f"triplet_margin_loss with margin {margin}"
        out = _scalar(sub.triplet_margin_loss(anchor, positive, negative, margin), what)
        expected = nn.TripletMarginLoss(margin=margin, p=2)(anchor, positive, negative)
        assert expected > 0
        assert_close(out, expected, atol=1e-4, rtol=1e-4, what=what)
    anchor, positive, negative = torch.randn(10, 6), torch.randn(10, 6), torch.randn(10, 6)
    assert_close(_scalar(sub.triplet_margin_loss(anchor, positive, negative), "triplet loss, default margin"),
                 nn.TripletMarginLoss(p=2)(anchor, positive, negative), atol=1e-4, rtol=1e-4,
                 what="triplet_margin_loss with the default margin (1)")
    anchor = torch.randn(8, 6)
    positive = anchor + 0.1 * torch.randn(8, 6)
    negative = anchor + 50.0
    out = _scalar(sub.triplet_margin_loss(anchor, positive, negative, 1.0), "triplet loss with far negatives")
    assert out.abs() < 1e-6, f"triplet_margin_loss must be 0 when every negative is far away, got {out.item()}"
    positive[:3] += 50.0            # three triplets now violate the margin: the mean counts them only
    out = _scalar(sub.triplet_margin_loss(anchor, positive, negative, 1.0), "triplet loss, 3 of 8 violating")
    assert_close(out, nn.TripletMarginLoss(margin=1.0, p=2)(anchor, positive, negative), atol=1e-4, rtol=1e-4,
                 what="triplet_margin_loss when 3 of 8 triplets violate the margin")


@check("device")
def test_meta_alpha_moves(sub):
    def on_meta(mod, alpha, logits, targets):
        return probes.meta_forward(mod.FocalLoss(gamma=2.0, alpha=alpha), logits, targets)

    seen = sub.probe(on_meta, sub, torch.rand(4) + 0.5, torch.randn(5, 4), torch.randint(0, 4, (5,)))
    assert seen["buffers"] == ["meta"], f"after .to('meta') the buffers are on {seen['buffers']} (alpha must move)"
    assert seen["error"] is None, (f"forward of FocalLoss(alpha=...) on meta failed ({seen['error']}): a tensor it "
                                   "uses did not move with .to(); register alpha as a buffer")
    assert seen["out"] == [("meta", ())], f"forward on meta inputs gave {seen['out']}, expected a 0-dim meta result"


@requires_cuda
@check("device", weight=2)
def test_cuda_alpha(sub):
    def on_cuda(mod, alpha, logits, targets):
        from torch import nn

        loss = nn.Module.cuda(mod.FocalLoss(gamma=2.0, alpha=alpha))
        out = loss(logits.cuda(), targets.cuda())
        return out.device.type, out.cpu()

    alpha, logits, targets = torch.rand(4) + 0.5, torch.randn(6, 4), torch.randint(0, 4, (6,))
    device, out = sub.probe(on_cuda, sub, alpha, logits, targets)
    assert device == "cuda", f"the focal loss of CUDA logits is on {device}"
    assert_close(_scalar(out, "the focal loss on CUDA"), _focal(logits, targets, 2.0, alpha), rtol=1e-4, atol=1e-5,
                 what="FocalLoss(alpha=...).cuda() on CUDA logits")
