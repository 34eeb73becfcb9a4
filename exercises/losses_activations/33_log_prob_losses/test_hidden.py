"""Hidden checks for 33_log_prob_losses.

The classifier is built in the worker and given known weights with `nn.Module.load_state_dict`
(torch's, through `grader.probes`); its output is compared in the judge with
`log_softmax(x @ W.T + b)`, so a decoy `fc` or `state_dict` cannot make a wrong forward right.
Hostile logits reach its log-softmax through an identity `fc`. The distillation loss is compared
with a judge-side formula on `F.kl_div(..., reduction="batchmean")`; the teacher's `.grad` is read
in the worker, where the tensors live.
"""
import torch
import torch.nn.functional as F

from grader import probes
from grader.testing import assert_close, assert_dtype, assert_shape, check, hostile_logits, torch_expected

SOFTMAX = ["torch.softmax", "torch.nn.functional.softmax", "torch.Tensor.softmax", "torch.special.softmax",
           "torch.nn.Softmax.forward"]


def _classifier(mod, in_features, num_classes, weight, bias, x, spy=False):
    """Probe: build the model, load (weight, bias) into fc with torch's load_state_dict, run x."""
    from torch import nn

    model = mod.LogProbClassifier(in_features, num_classes)
    registered = object.__getattribute__(model, "_modules")
    fc = registered.get("fc")
    seen = {"fc": None if fc is None else probes.qualified_name(fc),
            "softmax_modules": [name for name, m in probes.modules(model)
                                if isinstance(m, (nn.Softmax, nn.Softmax2d, nn.Softmin))],
            "modules": probes.named_modules(model)}
    if not isinstance(fc, nn.Linear):
        return seen
    seen["fc_shape"] = tuple(nn.Module.state_dict(fc)["weight"].shape)
    probes.load_state_dict(model, {"fc.weight": weight, "fc.bias": bias}, strict=False)
    seen["loaded"] = probes.state_dict(model).get("fc.weight")
    if spy:
        with probes.spy(*SOFTMAX, module=mod) as calls:
            with torch.no_grad():
                # and softmax's kernel at torch's dispatcher (probes.forbid_ops): a softmax kept
                # in a list, or reached by a name built at run time, meets it there
                seen["out"], reached = probes.forbid_ops(model, ("_softmax",), x)
        seen["calls"] = calls.names() + probes.at_dispatcher(reached)
    else:
        with torch.no_grad():
            seen["out"] = model(x)
    return seen


def _model_out(sub, weight, bias, x, spy=False):
    c, d = weight.shape
    seen = sub.probe(_classifier, sub, d, c, weight, bias, x, spy)
    assert seen["fc"] == "torch.nn.modules.linear.Linear", \
        f"self.fc must be an nn.Linear(in_features, num_classes), got {seen['fc']}"
    assert seen["fc_shape"] == (c, d), f"fc.weight has shape {seen['fc_shape']}, expected {(c, d)}"
    return seen


@check("value", weight=2)
def test_nll_equals_ce(sub):
    x, w, b = torch.randn(6, 5), torch.randn(3, 5), torch.randn(3)
    seen = _model_out(sub, w, b, x)
    logits = x @ w.T + b
    out = seen["out"]
    assert_close(out, F.log_softmax(logits, 1), what="model(x): log_softmax(fc(x), dim=1)")
    assert (out <= 0).all(), "log-probabilities must be <= 0"
    assert_close(torch.logsumexp(out, 1), torch.zeros(6), atol=1e-5, what="logsumexp(model(x), dim=1)")
    y = torch.tensor([0, 2, 1, 1, 0, 2])
    assert_close(F.nll_loss(out, y), F.cross_entropy(logits, y), what="NLLLoss(model(x), y) vs CrossEntropyLoss(fc(x), y)")
    # hostile logits through an identity fc: ±1000 and a class 2000 below the best stay finite
    eye = torch.eye(4)
    for kind in ("large", "spread"):
        z = hostile_logits(kind, (5, 4), dim=1)
        out = _model_out(sub, eye, torch.zeros(4), z)["out"]
        assert torch.isfinite(out).all(), f"model(x) is not finite for {kind} logits (±1000): use a stable log-softmax"
        assert_close(out, torch_expected(F.log_softmax, z, dim=1), what=f"model(x) for {kind} logits")


@check("api")
def test_no_softmax(sub):
    sub.static.require_implemented("LogProbClassifier.__init__", "LogProbClassifier.forward")
    x, w, b = torch.randn(4, 3), torch.randn(5, 3), torch.randn(5)
    seen = _model_out(sub, w, b, x, spy=True)
    assert not seen["calls"], f"forward called {sorted(set(seen['calls']))}: compute log-probabilities directly"
    assert_close(seen["out"], F.log_softmax(x @ w.T + b, 1), what="model(x)")
    assert not seen["softmax_modules"], \
        f"the model registers softmax modules {seen['softmax_modules']}: NLLLoss needs LogSoftmax"
    node = sub.static.tree
    cls = next((n for n in node.body if getattr(n, "name", None) == "LogProbClassifier"), None)
    span = range(cls.lineno, (cls.end_lineno or cls.lineno) + 1) if cls is not None else range(0)
    for api in ("torch.nn.Softmax", "torch.softmax", "torch.nn.functional.softmax", "torch.special.softmax"):
        lines = [line for line in sub.static.uses(api) if line in span]
        assert not lines, f"LogProbClassifier uses {api} (line {lines[0]}): NLLLoss needs log-probabilities"


def _distill(s, t, y, T, alpha):
    soft = F.kl_div(F.log_softmax(s / T, 1), F.softmax(t / T, 1), reduction="batchmean")
    return alpha * T ** 2 * soft + (1 - alpha) * F.cross_entropy(s, y)


def _scalar(out, what="distillation_loss"):
    assert isinstance(out, torch.Tensor), f"{what} must return a tensor, got {type(out).__name__}"
    assert_shape(out, (), what=what)
    return out


@check("value", weight=2)
def test_distillation_values(sub):
    s, t, y = torch.randn(8, 5) * 3, torch.randn(8, 5) * 3, torch.randint(0, 5, (8,))
    for T in (1.0, 4.0):
        for alpha in (0.0, 0.5, 1.0):
            assert_close(_scalar(sub.distillation_loss(s, t, y, T, alpha)), _distill(s, t, y, T, alpha),
                         what=f"distillation_loss with T={T}, alpha={alpha} (batchmean KL, T**2)")
    # a confident student (logits ±200): log(softmax(s)) underflows to -inf, log_softmax does not
    s = hostile_logits("large", (6, 5), scale=200.0)
    t, y = torch.randn(6, 5) * 3, torch.randint(0, 5, (6,))
    out = _scalar(sub.distillation_loss(s, t, y, 1.0, 0.5))
    assert torch.isfinite(out), "distillation_loss is not finite for student logits of ±200"
    assert_close(out, torch_expected(_distill, s, t, y, 1.0, 0.5), what="distillation_loss for student logits ±200")


@check("value")
def test_alpha_edges(sub):
    s, t, y = torch.randn(5, 4), torch.randn(5, 4), torch.tensor([3, 0, 1, 1, 2])
    assert_close(_scalar(sub.distillation_loss(s, t, y, 4.0, 0.0)), F.cross_entropy(s, y),
                 what="distillation_loss with alpha = 0 (plain cross-entropy)")
    assert_close(_scalar(sub.distillation_loss(s, s.clone(), y, 2.0, 1.0)), torch.tensor(0.0), atol=1e-6,
                 what="distillation_loss of identical student and teacher with alpha = 1")


@check("grad")
def test_teacher_gets_no_grad(sub):
    def backward(mod, s, t, y):
        # a leaf teacher that requires grad, and a teacher network's output (a non-leaf)
        s, t = s.clone().requires_grad_(), t.clone().requires_grad_()
        loss = mod.distillation_loss(s, t, y, 4.0, 0.5)
        loss.backward()
        weights = t.detach().clone().requires_grad_()
        teacher_out = weights * 1.0
        second = mod.distillation_loss(s, teacher_out, y, 4.0, 0.5)
        attached = teacher_out.requires_grad and teacher_out.grad_fn is not None
        second.backward()
        return loss.detach(), t.grad is None, weights.grad is None, attached

    s, t, y = torch.randn(6, 3), torch.randn(6, 3), torch.randint(0, 3, (6,))
    loss, leaf_clean, net_clean, attached = sub.probe(backward, sub, s, t, y)
    assert_close(_scalar(loss), _distill(s, t, y, 4.0, 0.5), what="distillation_loss with T=4, alpha=0.5")
    assert leaf_clean, "teacher_logits.grad was filled by backward: detach the teacher (or use no_grad)"
    assert net_clean, "backward reached the teacher network's weights: detach the teacher (or use no_grad)"
    assert attached, ("the caller's teacher_logits were cut from their graph (detach_ or requires_grad_(False) "
                      "in place): detach a copy, leave the argument as it was")


@check("grad")
def test_student_grad(sub):
    s = torch.randn(5, 4, dtype=torch.float64, requires_grad=True)
    t, y = torch.randn(5, 4, dtype=torch.float64), torch.tensor([1, 0, 3, 2, 2])
    out = _scalar(sub.distillation_loss(s, t, y, 2.0, 0.3))
    assert out.requires_grad, "the loss carries no gradient to the student logits"
    out.backward()
    s_ref = s.detach().clone().requires_grad_()
    _distill(s_ref, t, y, 2.0, 0.3).backward()
    assert_close(s.grad, s_ref.grad, what="d loss / d student_logits")


@check("dtype")
def test_result_dtype(sub):
    s, t, y = torch.randn(4, 3), torch.randn(4, 3), torch.tensor([0, 1, 2, 0])
    out = _scalar(sub.distillation_loss(s, t, y, 3.0, 0.7))
    assert_dtype(out, torch.float32, what="distillation_loss of float32 logits")
    assert_close(out, _distill(s, t, y, 3.0, 0.7), what="distillation_loss with T=3, alpha=0.7")
