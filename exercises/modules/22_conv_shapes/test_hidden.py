"""Hidden checks for 22_conv_shapes.

Expected shapes come from real `nn.Conv2d` modules run on the meta device in the judge; the CNN
is read through `nn.Module`'s own methods in probes (`named_modules`, `parameters`,
`named_buffers`, `train`), never methods the candidate's class can override.
"""
import random

import pytest
import torch
from torch import nn

from grader.testing import assert_close, assert_shape, check, reference, requires_cuda

ref = reference(__file__)


def _configs(n=200):
    rng = random.Random(22)
    out = []
    while len(out) < n:
        h, w = rng.randrange(5, 41, 2), rng.randrange(5, 41, 2)   # odd sizes
        def arg(lo, hi):
            a, b = rng.randint(lo, hi), rng.randint(lo, hi)
            return (a, b) if rng.random() < 0.5 else a
        kernel, stride, padding, dilation = arg(1, 5), arg(1, 3), arg(0, 2), arg(1, 3)
        pair = [(v, v) if isinstance(v, int) else v for v in (kernel, stride, padding, dilation)]
        if any(size + 2 * pair[2][i] < pair[3][i] * (pair[0][i] - 1) + 1 for i, size in enumerate((h, w))):
            continue
        out.append((h, w, kernel, stride, padding, dilation))
    return out


@check("shape", weight=2)
def test_conv_out_matches_conv2d(sub):
    configs = _configs()

    def run_all(mod, configs):
        return [mod.conv2d_out_hw(h, w, k, s, p, d) for h, w, k, s, p, d in configs]

    got = sub.probe(run_all, sub, configs)
    assert isinstance(got, list) and len(got) == len(configs), "conv2d_out_hw did not answer every call"
    for (h, w, k, s, p, d), answer in zip(configs, got):
        conv = nn.Conv2d(1, 1, k, stride=s, padding=p, dilation=d, device="meta")
        expected = tuple(conv(torch.empty(1, 1, h, w, device="meta")).shape[-2:])
        assert isinstance(answer, tuple) and all(type(v) is int for v in answer), \
            f"conv2d_out_hw must return a tuple of two ints, got {answer!r}"
        assert answer == expected, (f"conv2d_out_hw({h}, {w}, kernel={k}, stride={s}, padding={p}, "
                                    f"dilation={d}) = {answer}, nn.Conv2d gives {expected}")


@check("shape", weight=2)
@pytest.mark.parametrize("size,n", [((32, 32), 1), ((32, 32), 8), ((28, 36), 2), ((30, 22), 3)],
                         ids=["32x32-n1", "32x32-n8", "28x36", "30x22"])
def test_small_cnn_shapes(sub, size, n):
    model = sub.SmallCNN(10, *size)
    assert_shape(model(torch.randn(n, 3, *size)), (n, 10), what=f"SmallCNN(10, {size[0]}, {size[1]}) output")


@check("shape")
def test_channels_last_layout_rejected(sub):
    model = sub.SmallCNN(10, 32, 32)
    assert_shape(model(torch.randn(2, 3, 32, 32)), (2, 10), what="output for a (2, 3, 32, 32) input")
    with pytest.raises((RuntimeError, ValueError)):
        model(torch.randn(2, 32, 32, 3))


def _count(mod, size):
    from torch import nn

    model = mod.SmallCNN(10, *size)
    kinds = [type(m).__name__ for m in nn.Module.modules(model)
             if isinstance(m, (nn.Conv2d, nn.BatchNorm2d, nn.Linear, nn.MaxPool2d))]
    return sum(p.numel() for p in nn.Module.parameters(model)), sorted(kinds)


@check("state")
@pytest.mark.parametrize("size", [(32, 32), (28, 36)], ids=["32x32", "28x36"])
def test_parameter_count(sub, size):
    count, kinds = sub.probe(_count, sub, size)
    expected = sum(p.numel() for p in ref.SmallCNN(10, *size).parameters())
    assert count == expected, f"SmallCNN(10, {size[0]}, {size[1]}) has {count} parameters, the architecture {expected}"


@check("mode", weight=2)
def test_eval_single_sample(sub):
    def eval_one(mod, batches, x):
        from torch import nn

        model = mod.SmallCNN(10, 16, 16)
        bns = [m for m in nn.Module.modules(model) if isinstance(m, nn.BatchNorm2d) and m.track_running_stats]

        def stats():
            return [b.detach().clone() for n, b in nn.Module.named_buffers(model) if "running" in n]

        fresh = stats()
        nn.Module.train(model, True)
        with torch.no_grad():
            for b in batches:
                model(b)
        trained = stats()
        nn.Module.train(model, False)
        with torch.no_grad():
            a, b = model(x), model(x)
        return {"bns": len(bns), "moved": any(not torch.equal(f, t) for f, t in zip(fresh, trained)),
                "same": [torch.equal(t, u) for t, u in zip(trained, stats())], "a": a, "b": b}

    seen = sub.probe(eval_one, sub, [torch.randn(4, 3, 16, 16) * 2 + 1 for _ in range(2)], torch.randn(1, 3, 16, 16))
    assert seen["bns"] == 2, f"the model holds {seen['bns']} nn.BatchNorm2d with running stats, expected 2"
    assert seen["moved"], "train-mode batches did not update the BatchNorm running stats"
    assert_shape(seen["a"], (1, 10), what="eval output for one sample")
    assert torch.equal(seen["a"], seen["b"]), "two eval-mode calls on the same single sample differ"
    assert seen["same"] and all(seen["same"]), "an eval-mode forward changed the BatchNorm running stats"


@check("value", weight=2)
def test_layer_order_values(sub):
    def trace(mod, x):
        from torch import nn

        model = mod.SmallCNN(5, 12, 20)
        nn.Module.train(model, False)
        calls, handles = [], []
        for m in nn.Module.modules(model):
            if isinstance(m, (nn.Conv2d, nn.BatchNorm2d, nn.Linear)):
                def hook(module, args, out, kind=type(m).__name__):
                    calls.append((kind, args[0].detach().clone(), out.detach().clone()))
                handles.append(nn.Module.register_forward_hook(m, hook))
        with torch.no_grad():
            out = model(x)
        for h in handles:
            h.remove()
        return calls, out

    x = torch.randn(2, 3, 12, 20)
    calls, out = sub.probe(trace, sub, x)
    kinds = [k for k, _, _ in calls]
    expected = ["Conv2d", "BatchNorm2d", "Conv2d", "BatchNorm2d", "Linear"]
    assert kinds == expected, f"modules ran in the order {kinds}, expected {expected}"
    (_, c1_in, c1), (_, b1_in, b1), (_, c2_in, c2), (_, b2_in, b2), (_, fc_in, fc) = calls
    pool_relu = torch.nn.functional.max_pool2d
    assert_close(c1_in, x, what="input of the first convolution")
    assert_close(b1_in, c1, what="input of the first BatchNorm (the first convolution's output)")
    assert_close(c2_in, pool_relu(torch.relu(b1), 2), what="input of the second convolution: MaxPool2d(ReLU(BN(conv1)))")
    assert_close(b2_in, c2, what="input of the second BatchNorm (the second convolution's output)")
    assert_close(fc_in, pool_relu(torch.relu(b2), 2).flatten(1), what="the classifier's input: flatten(MaxPool2d(ReLU(BN(conv2))))")
    assert_close(out, fc, what="the output (the classifier's)")


@check("grad")
def test_conv_weights_get_grads(sub):
    def grads(mod):
        from torch import nn

        model = mod.SmallCNN(4, 12, 12)
        out = model(torch.randn(3, 3, 12, 12))
        if not isinstance(out, torch.Tensor):
            return None
        out.square().sum().backward()
        return [float(m.weight.grad.abs().sum()) if m.weight.grad is not None else 0.0
                for m in nn.Module.modules(model) if isinstance(m, nn.Conv2d)]

    seen = sub.probe(grads, sub)
    assert seen is not None, "forward did not return a tensor"
    assert len(seen) == 2, f"the model holds {len(seen)} nn.Conv2d, expected 2"
    assert all(g > 0 for g in seen), f"conv weight gradient sums {seen}: both must be non-zero"


def _memory_formats(mod, x, device):
    from torch import nn

    model = nn.Module.to(mod.SmallCNN(10, 16, 16), device)
    nn.Module.train(model, False)
    x = x.to(device)
    with torch.no_grad():
        plain = model(x.contiguous())
        last = model(x.contiguous(memory_format=torch.channels_last))
    return plain.cpu(), last.cpu()


@check("device")
def test_channels_last_memory_format(sub):
    plain, last = sub.probe(_memory_formats, sub, torch.randn(2, 3, 16, 16), "cpu")
    assert_shape(plain, (2, 10), what="output for a contiguous input")
    assert_close(last, plain, atol=1e-4, rtol=1e-4, what="output for the same input in channels_last memory format")


@requires_cuda
@check("device", weight=2)
def test_cuda_channels_last(sub):
    plain, last = sub.probe(_memory_formats, sub, torch.randn(2, 3, 16, 16), "cuda")
    assert_shape(plain, (2, 10), what="CUDA output for a contiguous input")
    assert_close(last, plain, atol=1e-4, rtol=1e-4, what="CUDA output in channels_last memory format")
