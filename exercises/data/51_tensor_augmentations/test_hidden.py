"""Hidden checks for 51_tensor_augmentations.

Transforms are built and called inside probes; what comes back (outputs, the input's values and
`_version` after the call, flip sequences) is compared in the judge with torch.flip and the
per-channel formula computed here.
"""
import numpy as np
import pytest
import torch

from grader.testing import assert_close, assert_dtype, assert_shape, check, requires_cuda

MEAN, STD = [0.5, -1.0, 2.0], [0.25, 2.0, 4.0]


def _normalized(x, mean=MEAN, std=STD):
    m = torch.tensor(mean, dtype=torch.float64).view(-1, 1, 1)
    s = torch.tensor(std, dtype=torch.float64).view(-1, 1, 1)
    return ((x.double() - m) / s).to(x.dtype)


def _untouched(seen, x, what):
    out, after, bumped = seen
    assert not bumped, f"{what} modified its input in place (its _version changed)"
    assert torch.equal(after, x), f"{what} changed its input's values"
    return out


@check("value")
def test_hflip_width_axis_identity_no_mutation(sub):
    def flips(mod, imgs):
        seen = []
        for p in (1.0, 0.0):
            for x in imgs:
                before = x._version
                kept = x.clone()
                out = mod.RandomHFlip(p=p, generator=torch.Generator().manual_seed(0))(x)
                out = out.clone() if isinstance(out, torch.Tensor) else out
                seen.append((out, x.clone(), x._version != before or not torch.equal(x, kept)))
        return seen

    imgs = [torch.randn(3, 4, 5), torch.randn(2, 3, 4, 5)]
    seen = sub.probe(flips, sub, imgs)
    for (p, x), got in zip([(p, x) for p in (1, 0) for x in imgs], seen):
        what = f"RandomHFlip(p={p}) on a {tuple(x.shape)} image"
        out = _untouched(got, x, what)
        assert_shape(out, x.shape, what=what)
        want = torch.flip(x, [-1]) if p == 1 else x
        if p == 1 and torch.equal(out, torch.flip(x, [-2])):
            raise AssertionError(f"{what} flipped the height axis (dim -2): a horizontal flip reverses the width, the last dim")
        assert_close(out, want, atol=0, rtol=0, what=what)


@check("value", weight=2)
def test_normalize_channel_equals_width(sub):
    def normalize(mod, imgs, mean, std):
        seen = []
        for x in imgs:
            before = x._version
            kept = x.clone()
            out = mod.Normalize(mean, std)(x)
            out = out.clone() if isinstance(out, torch.Tensor) else out
            seen.append((out, x.clone(), x._version != before or not torch.equal(x, kept)))
        return seen

    imgs = [torch.randn(3, 5, 3), torch.randn(2, 3, 4, 3), torch.randn(4, 3, 2, 5)]
    seen = sub.probe(normalize, sub, imgs, tuple(MEAN), list(STD))
    for x, got in zip(imgs, seen):
        what = f"Normalize on a {tuple(x.shape)} input"
        out = _untouched(got, x, what)
        assert_dtype(out, torch.float32, what=what)
        assert_shape(out, x.shape, what=what)
        assert_close(out, _normalized(x), what=f"{what} (channels are dim -3, not the last dim)")


@check("value")
def test_normalize_matches_torchvision(sub):
    tv = pytest.importorskip("torchvision.transforms")
    x = torch.rand(3, 6, 7)
    got = sub.probe(lambda mod, x, m, s: mod.Normalize(m, s)(x), sub, x, MEAN, STD)
    assert_close(got, tv.Normalize(MEAN, STD)(x.clone()), what="Normalize against torchvision.transforms.Normalize")


@check("dtype")
def test_to_float_image(sub):
    rng = np.random.default_rng(51)
    for shape in ((4, 6, 3), (5, 2, 1)):
        img = rng.integers(0, 256, size=shape, dtype=np.uint8)
        img[0, 0, 0], img[-1, -1, -1] = 0, 255
        out = sub.to_float_image(img)
        what = f"to_float_image of a uint8 {shape} (H,W,C) array"
        assert_dtype(out, torch.float32, what=what)
        assert_shape(out, (shape[2], shape[0], shape[1]), what=f"{what} (channels first)")
        assert float(out.max()) <= 1.0, f"{what} has values up to {float(out.max())}: divide by 255"
        want = torch.from_numpy(img.transpose(2, 0, 1).astype(np.float32) / 255.0)
        assert_close(out, want, what=f"{what} (x / 255, pixel (h,w,c) at [c,h,w])")


@check("value")
def test_flip_frequency_and_seed(sub):
    def sequences(mod, p, n):
        x = torch.tensor([[[0.0, 1.0]]])
        runs = []
        for seed in (7, 123, 7):
            torch.manual_seed(1000 + len(runs))          # the global RNG differs run to run
            t = mod.RandomHFlip(p=p, generator=torch.Generator().manual_seed(seed))
            flips = []
            for _ in range(n):
                out = t(x)
                flips.append(isinstance(out, torch.Tensor) and out.shape == x.shape and float(out.reshape(-1)[0]) == 1.0)
            runs.append(flips)
        default = mod.RandomHFlip(generator=torch.Generator().manual_seed(5))
        defaults = [float(default(x).reshape(-1)[0]) == 1.0 for _ in range(n)]
        return runs, defaults, x.reshape(-1).tolist()

    p, n = 0.3, 4000
    runs, defaults, after = sub.probe(sequences, sub, p, n)
    rate = sum(defaults) / n
    assert abs(rate - 0.5) <= 0.03, f"RandomHFlip() (default p) flipped {rate:.3f} of {n} calls, expected 0.5 +- 0.03"
    assert after == [0.0, 1.0], "RandomHFlip modified its input"
    for flips in runs:
        rate = sum(flips) / n
        assert abs(rate - p) <= 0.03, f"RandomHFlip(p={p}) flipped {rate:.3f} of {n} calls, expected {p} +- 0.03"
    assert runs[0] == runs[2], ("two RandomHFlip with generators seeded alike gave different flip sequences: "
                                "draw from the generator given, not from the global RNG")
    assert runs[0] != runs[1], "generators seeded 7 and 123 gave the same flip sequence: draw from the generator given"


@check("value")
def test_compose_picklable_in_workers(sub):
    def loaded(mod, images, mean, std):
        import pickle

        from torch.utils.data import DataLoader

        pipeline = mod.Compose([mod.RandomHFlip(p=1.0), mod.Normalize(mean, std)])
        again = pickle.loads(pickle.dumps(pipeline))       # what spawn and forkserver workers need
        direct = [again(images[i]) for i in range(2)]
        loader = DataLoader(images, batch_size=None, collate_fn=pipeline, num_workers=2,
                            multiprocessing_context="fork")
        return direct, [item for item in loader]

    images = torch.randn(6, 3, 4, 5)
    direct, items = sub.probe(loaded, sub, images, MEAN, STD)
    want = [_normalized(torch.flip(img, [-1])) for img in images]
    for i, got in enumerate(direct):
        assert_close(got, want[i], what=f"a pickled-and-loaded Compose([RandomHFlip(1), Normalize]) on image {i}")
    assert len(items) == len(images), f"DataLoader(num_workers=2) yielded {len(items)} items, expected {len(images)}"
    for i, got in enumerate(items):
        assert_close(got, want[i], what=f"Compose([RandomHFlip(1), Normalize]) in a DataLoader worker, image {i}")


@check("dtype")
@pytest.mark.parametrize("dtype", [torch.float16, torch.float64], ids=["float16", "float64"])
def test_normalize_keeps_float_dtype(sub, dtype):
    # "in the input's float dtype": statistics kept as float32 tensors promote a float16 image
    # to float32 (and only the default float32 input hides it)
    x = torch.randn(2, 3, 4, 5).to(dtype)
    out = sub.probe(lambda mod, x, m, s: mod.Normalize(m, s)(x), sub, x, MEAN, STD)
    what = f"Normalize on a {dtype} image"
    assert_dtype(out, dtype, what=what)
    assert_close(out, _normalized(x), what=what)


@check("dtype")
def test_flip_keeps_dtype(sub):
    for x in (torch.randn(3, 2, 5).half(), torch.randint(0, 256, (2, 3, 2, 4), dtype=torch.uint8)):
        out = sub.RandomHFlip(p=1.0, generator=torch.Generator().manual_seed(1))(x)
        what = f"RandomHFlip(p=1) on a {x.dtype} image"
        assert_dtype(out, x.dtype, what=what)
        assert_close(out, torch.flip(x, [-1]), atol=0, rtol=0, what=what)


@check("device")
def test_transforms_follow_image_device(sub):
    """CPU fallback of the CUDA check: on a meta-device image nothing is computed, and mean/std
    or a random draw left on the CPU (instead of following the image) raises."""
    def on_meta(mod, mean, std, x_cpu):
        x = torch.empty(2, 3, 4, 3, device="meta")
        norm = mod.Normalize(mean, std)
        flip = mod.RandomHFlip(p=1.0, generator=torch.Generator().manual_seed(0))
        outs = [norm(x), flip(x[0])]
        meta = [(t.device.type, tuple(t.shape)) if isinstance(t, torch.Tensor) else repr(t) for t in outs]
        return meta, [norm(x_cpu), flip(x_cpu[0])]

    x = torch.randn(2, 3, 4, 3)
    meta, cpu = sub.probe(on_meta, sub, MEAN, STD, x)
    assert meta == [("meta", (2, 3, 4, 3)), ("meta", (3, 4, 3))], (
        f"Normalize and RandomHFlip on a meta-device image gave {meta}: build mean/std on (or move them "
        "to) the image's device, draw the flip from the CPU generator")
    assert_close(cpu[0], _normalized(x), what="the same Normalize on a CPU image")
    assert_close(cpu[1], torch.flip(x[0], [-1]), atol=0, rtol=0, what="the same RandomHFlip(p=1) on a CPU image")


@requires_cuda
@check("device")
def test_cuda_no_host_sync(sub):
    def on_cuda(mod, x, mean, std):
        xc = x.cuda()
        flip = mod.RandomHFlip(p=1.0, generator=torch.Generator().manual_seed(0))
        norm = mod.Normalize(mean, std)
        flip(xc)
        norm(xc)                                          # warm-up: lazy init may sync once
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")
        try:
            outs = [flip(xc), norm(xc)]
        finally:
            torch.cuda.set_sync_debug_mode(0)
        return [(t.device.type, t.detach().cpu()) for t in outs]

    x = torch.randn(2, 3, 4, 5)
    seen = sub.probe(on_cuda, sub, x, MEAN, STD)
    for (device, got), want, what in zip(seen, (torch.flip(x, [-1]), _normalized(x)), ("RandomHFlip", "Normalize")):
        assert device == "cuda", f"{what} moved a CUDA image to {device}"
        assert_close(got, want, atol=1e-5, rtol=1e-5, what=f"{what} on CUDA")
