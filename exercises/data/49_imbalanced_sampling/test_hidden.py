"""Hidden checks for 49_imbalanced_sampling.

Samplers are built and iterated inside a probe: their settings are read from the instance's own
attributes (probes.instance_attrs) and their draws through WeightedRandomSampler.__iter__ itself,
so a subclass cannot show other values; weights and draws come back as data and are compared in
the judge with the label counts. inverse_frequency_weights returns data, compared with the closed
form w_c = (1/n_c) / mean over present classes k of (1/n_k), and 0 where n_c = 0.
"""
import torch
from torch import nn

from grader.testing import assert_close, assert_dtype, assert_shape, check, requires_cuda


def _labels(counts, seed=49):
    """Labels with counts[c] samples of class c, in a shuffled order."""
    g = torch.Generator().manual_seed(seed)
    labels = torch.cat([torch.full((n,), c, dtype=torch.int64) for c, n in enumerate(counts)])
    return labels[torch.randperm(len(labels), generator=g)]


def _samplers(mod, labels, runs, cuda=False):
    """One sampler per run ({"kwargs", "gen_seed", "reseed", "draws"}): its class, settings and,
    when asked, its draws; plain data back."""
    from torch.utils.data import WeightedRandomSampler

    from grader import probes

    out = []
    for run in runs:
        kwargs = dict(run.get("kwargs", {}))
        if run.get("gen_seed") is not None:
            kwargs["generator"] = torch.Generator().manual_seed(run["gen_seed"])
        given = labels.cuda() if cuda else labels.clone()
        sampler = mod.balanced_sampler(given, **kwargs)
        if not issubclass(type(sampler), WeightedRandomSampler):
            out.append(None)
            continue
        attrs = probes.instance_attrs(sampler)
        weights = attrs.get("weights")
        plain = {k: v if isinstance(v, (bool, int)) else repr(v)
                 for k, v in ((k, attrs.get(k)) for k in ("replacement", "num_samples"))}
        seen = {"weights": weights.detach().cpu().clone() if isinstance(weights, torch.Tensor) else None,
                "weights_device": weights.device.type if isinstance(weights, torch.Tensor) else None, **plain}
        if run.get("reseed") is not None:
            torch.manual_seed(run["reseed"])
        if run.get("draws"):
            seen["draws"] = torch.tensor(list(WeightedRandomSampler.__iter__(sampler)), dtype=torch.int64)
        out.append(seen)
    return out


def _sampler_ok(seen):
    assert seen is not None, "balanced_sampler must return a torch.utils.data.WeightedRandomSampler"
    assert isinstance(seen["weights"], torch.Tensor), "the sampler holds no weights tensor"
    return seen


def _expected_weights(labels, num_classes):
    counts = torch.bincount(labels, minlength=num_classes).double()
    inv = torch.where(counts > 0, 1.0 / counts.clamp(min=1), torch.zeros_like(counts))
    return (inv / inv[counts > 0].mean()).float()


@check("shape")
def test_sampler_settings(sub):
    labels = _labels([7, 3, 10])
    default, explicit = sub.probe(_samplers, sub, labels, [{}, {"kwargs": {"num_samples": 50}}])
    default = _sampler_ok(default)
    assert_shape(default["weights"], (20,), what="sampler.weights (one weight per sample, 20 samples of 3 classes)")
    assert default["replacement"] is True, f"sampler.replacement is {default['replacement']!r}: draw with replacement"
    assert default["num_samples"] == 20, f"num_samples defaults to len(labels) = 20, the sampler has {default['num_samples']!r}"
    explicit = _sampler_ok(explicit)
    assert explicit["num_samples"] == 50, f"balanced_sampler(labels, num_samples=50) has num_samples={explicit['num_samples']!r}"
    assert explicit["replacement"] is True, "replacement=True also with num_samples given"


@check("value", weight=2)
def test_minority_share(sub):
    small = _labels([7, 3, 10])
    (seen,) = sub.probe(_samplers, sub, small, [{}])
    weights = _sampler_ok(seen)["weights"]
    assert_shape(weights, (20,), what="sampler.weights")
    want = 1.0 / torch.bincount(small).double()[small]
    ratio = weights.double() / want
    assert bool(torch.isfinite(ratio).all()) and bool((ratio > 0).all()) and \
        float(ratio.max() - ratio.min()) <= 1e-6 * float(ratio.mean()), \
        "sampler.weights must be proportional to 1/count(label) of each sample (counts 7, 3, 10)"

    labels = _labels([950, 50], seed=5)
    (seen,) = sub.probe(_samplers, sub, labels, [{"kwargs": {"num_samples": 20000}, "gen_seed": 0, "draws": True}])
    draws = _sampler_ok(seen)["draws"]
    assert_shape(draws, (20000,), what="the draws of the sampler (num_samples=20000)")
    assert int(draws.min()) >= 0 and int(draws.max()) < 1000, "the sampler must draw sample indices in range(len(labels))"
    share = float((labels[draws] == 1).double().mean())
    assert 0.47 <= share <= 0.53, f"95/5 labels, 20000 draws: the minority class is {share:.3f} of them, expected about 0.5"


@check("value")
def test_same_seed_same_draws(sub):
    labels = _labels([30, 6, 12], seed=2)
    first, again, other = sub.probe(_samplers, sub, labels, [
        {"kwargs": {"num_samples": 200}, "gen_seed": 7, "draws": True},
        {"kwargs": {"num_samples": 200}, "gen_seed": 7, "reseed": 123, "draws": True},
        {"kwargs": {"num_samples": 200}, "gen_seed": 8, "draws": True}])
    first, again, other = (_sampler_ok(s)["draws"] for s in (first, again, other))
    for draws in (first, again, other):
        assert_shape(draws, (200,), what="the draws (num_samples=200)")
    assert torch.equal(first, again), \
        "two samplers given generators seeded 7 drew differently (torch.manual_seed(123) between): draw from the generator given"
    assert not torch.equal(first, other), "generators seeded 7 and 8 gave the same draws: draw from the generator given"


@check("dtype")
def test_inverse_weights_dtype(sub):
    labels = _labels([6, 0, 2, 9, 0])
    w = sub.inverse_frequency_weights(labels, 5)
    assert_dtype(w, torch.float32, what="inverse_frequency_weights(labels, 5)")
    assert_shape(w, (5,), what="inverse_frequency_weights(labels, 5) (classes 1 and 4 absent)")
    assert bool(torch.isfinite(w).all()), f"inverse_frequency_weights has inf or NaN for absent classes: {w.tolist()}"
    logits, targets = torch.randn(8, 5), torch.tensor([0, 2, 3, 3, 0, 2, 3, 0])
    loss = nn.CrossEntropyLoss(weight=w)(logits, targets)
    assert bool(torch.isfinite(loss)), "nn.CrossEntropyLoss(weight=inverse_frequency_weights(...)) gave a non-finite loss"


@check("value")
def test_inverse_weights_values(sub):
    for counts in ([6, 3, 12, 0], [5, 5, 10], [0, 1, 99, 0, 4], [8]):
        labels = _labels(counts, seed=len(counts))
        w = sub.inverse_frequency_weights(labels, len(counts))
        assert_close(w, _expected_weights(labels, len(counts)), check_dtype=False,
                     what=f"inverse_frequency_weights for class counts {counts} (1/count, mean 1 over present classes, 0 if absent)")


@requires_cuda
@check("device")
def test_cuda_labels(sub):
    labels = _labels([40, 8])
    (seen,) = sub.probe(_samplers, sub, labels, [{"kwargs": {"num_samples": 500}, "gen_seed": 3, "draws": True}], True)
    seen = _sampler_ok(seen)
    # behaviour, not the setting: weights left on CUDA make torch.multinomial refuse the CPU generator
    draws = seen["draws"]
    assert_shape(draws, (500,), what="the draws")
    assert int(draws.min()) >= 0 and int(draws.max()) < 48

    def weights_on(mod, labels):
        w = mod.inverse_frequency_weights(labels.cuda(), 2)
        return (w.device.type, w.cpu()) if isinstance(w, torch.Tensor) else None

    answer = sub.probe(weights_on, sub, labels)
    assert answer is not None, "inverse_frequency_weights must return a tensor"
    assert answer[0] == "cuda", f"CUDA labels: inverse_frequency_weights is on {answer[0]}, expected labels' device"
    assert_close(answer[1], _expected_weights(labels, 2), check_dtype=False, what="inverse_frequency_weights of CUDA labels")
