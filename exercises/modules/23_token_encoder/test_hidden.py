"""Hidden checks for 23_token_encoder.

Probes find the embedding with `nn.Module.named_modules` (whatever its attribute is called) and
switch modes with `nn.Module.train`; outputs come from the candidate's forward and are compared
in the judge.
"""
import pytest
import torch

from grader import probes
from grader.testing import assert_close, assert_shape, check, requires_cuda

D, H, V = 16, 4, 40


def _tokens(pad=0):
    g = torch.Generator().manual_seed(23)
    tokens = torch.randint(1, V, (3, 7), generator=g)
    tokens[tokens == pad] = pad + 1
    tokens[0, 5:] = pad
    tokens[2, 3:] = pad
    return tokens


def _run(mod, tokens, train=False, pad_idx=0, twice=False):
    from torch import nn

    model = mod.TokenEncoder(V, D, H, pad_idx)
    nn.Module.train(model, train)
    with torch.no_grad():
        out = model(tokens)
        return (out, model(tokens)) if twice else out


@check("shape", weight=2)
def test_shapes_and_layernorm_output(sub):
    tokens = _tokens()
    out = sub.probe(_run, sub, tokens)
    assert_shape(out, (3, 7, D), what="TokenEncoder(40, 16, 4) output for (3, 7) tokens")
    real = tokens[0, :5]
    assert real.numel() and torch.isfinite(out).all(), "the output must be finite"
    mean, std = out.mean(-1), out.std(-1, unbiased=False)
    assert torch.allclose(mean, torch.zeros_like(mean), atol=1e-4) and torch.allclose(std, torch.ones_like(std), atol=1e-2), \
        "every position should leave a freshly built LayerNorm with mean 0 and std 1 over d_model"
    assert not torch.allclose(out[0, 0], out[0, 1], atol=1e-3), "different tokens gave the same output"
    with pytest.raises((ValueError, AssertionError)):
        sub.TokenEncoder(V, 18, 4)


@check("value", weight=2)
def test_residual_then_layernorm(sub):
    def parts(mod, tokens):
        from torch import nn

        model = mod.TokenEncoder(V, D, H, 0)
        nn.Module.train(model, False)
        seen, handles = {}, []
        for m in nn.Module.modules(model):
            if isinstance(m, (nn.Embedding, nn.MultiheadAttention, nn.LayerNorm)):
                kind = type(m).__name__

                def hook(module, args, out, kind=kind):
                    seen.setdefault(kind, []).append((out[0] if isinstance(out, tuple) else out).detach().clone())
                handles.append(nn.Module.register_forward_hook(m, hook))
        with torch.no_grad():
            out = model(tokens)
        for h in handles:
            h.remove()
        return {k: v for k, v in seen.items()}, out

    tokens = _tokens()
    seen, out = sub.probe(parts, sub, tokens)
    counts = {k: len(seen.get(k, [])) for k in ("Embedding", "MultiheadAttention", "LayerNorm")}
    assert counts == {"Embedding": 1, "MultiheadAttention": 1, "LayerNorm": 1}, \
        f"one call each of nn.Embedding, nn.MultiheadAttention and nn.LayerNorm expected, got {counts}"
    emb, attn = seen["Embedding"][0], seen["MultiheadAttention"][0]
    if tuple(attn.shape) == (7, 3, D):  # a sequence-first attention fed transposed inputs is fine too
        attn = attn.transpose(0, 1)
    assert_shape(attn, (3, 7, D), what="the attention's output (batch first, or sequence first)")
    expected = torch.nn.functional.layer_norm(emb + attn, (D,))
    assert_close(out, expected, atol=1e-5, rtol=1e-4, what="LayerNorm(embedding + attention) (fresh LayerNorm)")


def _embedding(mod, pad_idx, tokens=None, seed_grad=None):
    from torch import nn

    model = mod.TokenEncoder(V, D, H) if pad_idx is None else mod.TokenEncoder(V, D, H, pad_idx)
    pad_idx = 0 if pad_idx is None else pad_idx
    embeds = [m for m in nn.Module.modules(model) if isinstance(m, nn.Embedding)]
    if len(embeds) != 1:
        return {"embeddings": len(embeds)}
    weight = embeds[0].weight
    seen = {"embeddings": 1, "rows": weight.detach().clone()}
    if tokens is not None:
        nn.Module.train(model, True)
        out = model(tokens)
        (out * seed_grad).sum().backward()
        seen["grad"] = None if weight.grad is None else weight.grad.clone()
    return seen


@check("value")
@pytest.mark.parametrize("pad_idx", [None, 0, 3], ids=["default", "pad0", "pad3"])
def test_pad_row_zero_at_init(sub, pad_idx):
    seen = sub.probe(_embedding, sub, pad_idx)
    pad_idx = 0 if pad_idx is None else pad_idx
    assert seen["embeddings"] == 1, f"the model holds {seen['embeddings']} nn.Embedding, expected 1"
    rows = seen["rows"]
    assert tuple(rows.shape) == (V, D), f"embedding weight of shape {tuple(rows.shape)}, expected {(V, D)}"
    assert torch.count_nonzero(rows[pad_idx]) == 0, f"embedding row pad_idx={pad_idx} must start at zero"
    others = torch.cat([rows[:pad_idx], rows[pad_idx + 1:]])
    assert bool((others.abs().sum(-1) > 0).all()), "only the pad row starts at zero"


@check("grad", weight=2)
@pytest.mark.parametrize("pad_idx", [0, 3], ids=["pad0", "pad3"])
def test_pad_row_gets_no_grad(sub, pad_idx):
    tokens = _tokens(pad_idx)
    seen = sub.probe(_embedding, sub, pad_idx, tokens, torch.randn(3, 7, D))
    assert seen["embeddings"] == 1, f"the model holds {seen['embeddings']} nn.Embedding, expected 1"
    grad = seen["grad"]
    assert isinstance(grad, torch.Tensor), "the embedding weight got no gradient at all"
    assert torch.count_nonzero(grad[pad_idx]) == 0, f"embedding row pad_idx={pad_idx} received a gradient"
    used = tokens[tokens != pad_idx].unique()
    assert bool((grad[used].abs().sum(-1) > 0).all()), "the rows of the real tokens must get gradients"


@check("value", weight=2)
def test_padding_invariance(sub):
    tokens = _tokens()
    longer = torch.cat([tokens, torch.zeros(3, 3, dtype=tokens.dtype)], dim=1)

    def both(mod, a, b):
        from torch import nn

        model = mod.TokenEncoder(V, D, H, 0)
        nn.Module.train(model, False)
        with torch.no_grad():
            return model(a), model(b)

    short, long = sub.probe(both, sub, tokens, longer)
    assert_shape(short, (3, 7, D), what="output for (3, 7) tokens")
    assert_shape(long, (3, 10, D), what="output for the same tokens with 3 pads appended")
    real = tokens != 0
    diff = (short[real] - long[:, :7][real]).abs().max().item()
    assert diff <= 1e-5, f"appending pad tokens changed the outputs of real tokens by up to {diff:.3g}: mask pad keys"


@check("value")
@pytest.mark.parametrize("train", [False, True], ids=["eval", "train"])
def test_all_pad_row_finite(sub, train):
    tokens = _tokens()
    tokens[1] = 0
    out = sub.probe(_run, sub, tokens, train)
    assert_shape(out, (3, 7, D), what="output for a batch with an all-pad sequence")
    assert bool(torch.isfinite(out).all()), "a batch with an all-pad sequence gave NaN/Inf outputs"


@check("dtype")
def test_token_dtypes(sub):
    def both(mod, tokens):
        from torch import nn

        model = mod.TokenEncoder(V, D, H, 0)
        nn.Module.train(model, False)
        with torch.no_grad():
            return model(tokens), model(tokens.int())

    tokens = _tokens()
    out64, out32 = sub.probe(both, sub, tokens)
    assert_shape(out64, (3, 7, D), what="output for int64 tokens")
    assert_shape(out32, (3, 7, D), what="output for int32 tokens")
    assert torch.equal(out32, out64), "int32 and int64 tokens must give the same output"
    with pytest.raises((RuntimeError, TypeError)):
        sub.probe(_run, sub, tokens.float())


@check("mode")
def test_eval_deterministic(sub):
    a, b = sub.probe(_run, sub, _tokens(), False, 0, True)
    assert_shape(a, (3, 7, D), what="eval output")
    assert torch.equal(a, b), "two eval-mode calls on the same tokens differ"


@check("device")
def test_meta_device_fallback(sub):
    def on_meta(mod, tokens):
        return probes.meta_forward(mod.TokenEncoder(V, D, H, 0), tokens)

    seen = sub.probe(on_meta, sub, _tokens())
    assert seen["params"] == ["meta"], f"after .to('meta') parameters are on {seen['params']}"
    assert seen["error"] is None, f"forward of a meta model failed: {seen['error']}"
    assert seen["out"] == [("meta", (3, 7, D))], f"meta forward gave {seen['out']}"


@requires_cuda
@check("device", weight=2)
def test_cuda_outputs(sub):
    def on_cuda(mod, tokens):
        from torch import nn

        model = nn.Module.cuda(mod.TokenEncoder(V, D, H, 0))
        out = model(tokens.cuda())
        return out.device.type, tuple(out.shape)

    assert sub.probe(on_cuda, sub, _tokens()) == ("cuda", (3, 7, D))
