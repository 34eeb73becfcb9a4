"""Hidden checks for 48_pad_and_pack.

`pad_collate` is called with tensors the judge builds and its answer comes back as data. The
classifier is built in a probe and loaded (nn.Module.load_state_dict, torch's) with weights the
judge chose; its logits and the gradient of `padded` come back as data and are compared with
what torch's own nn.GRU + nn.Linear give in the judge for each sequence run alone, unpadded.
"""
import pytest
import torch
from torch import nn

from grader.testing import assert_close, assert_dtype, assert_shape, check, requires_cuda

F_IN, HID, CLS = 3, 5, 4


def _seqs(lengths, feat=F_IN, dtype=torch.float32, seed=48):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(n, feat, generator=g).to(dtype) for n in lengths]


def _triple(result, what="pad_collate"):
    assert isinstance(result, (tuple, list)) and len(result) == 3, \
        f"{what} must return (padded, lengths, labels), got {type(result).__name__}"
    for name, value in zip(("padded", "lengths", "labels"), result):
        assert isinstance(value, torch.Tensor), f"{what}: {name} must be a tensor, got {type(value).__name__}"
    return result


def _padded_ok(padded, seqs, pad_value, what="padded"):
    lengths = [len(s) for s in seqs]
    assert_shape(padded, (len(seqs), max(lengths), seqs[0].shape[1]), what=what)
    for i, seq in enumerate(seqs):
        assert_close(padded[i, :len(seq)], seq, what=f"{what}[{i}, :{len(seq)}] (sequence {i})")
        tail = padded[i, len(seq):]
        assert bool((tail == pad_value).all()), \
            f"{what}[{i}, {len(seq)}:] (past sequence {i}'s length) must be pad_value={pad_value}, got {tail.unique().tolist()}"


# --- the classifier ------------------------------------------------------------------------------

def _truth():
    """Weights the judge chooses (and torch's own modules holding them): state dict keys are the
    contract's `gru.*` and `fc.*`."""
    g = torch.Generator().manual_seed(480)
    gru, fc = nn.GRU(F_IN, HID, batch_first=True), nn.Linear(HID, CLS)
    with torch.no_grad():
        for p in [*gru.parameters(), *fc.parameters()]:
            p.copy_(torch.randn(p.shape, generator=g) * 0.6)
    state = {f"gru.{k}": v.clone() for k, v in gru.state_dict().items()}
    state.update({f"fc.{k}": v.clone() for k, v in fc.state_dict().items()})
    return state, gru, fc


def _alone(gru, fc, seqs):
    """Logits of each sequence run alone (a batch of one, no padding) through torch's modules."""
    with torch.no_grad():
        return torch.stack([fc(gru(s[None])[1][-1])[0] for s in seqs])


def _pad(seqs, extra=0, garbage=False, seed=7):
    g = torch.Generator().manual_seed(seed)
    length = max(len(s) for s in seqs) + extra
    out = torch.randn(len(seqs), length, seqs[0].shape[1], generator=g) * 3 if garbage else \
        torch.zeros(len(seqs), length, seqs[0].shape[1])
    for i, s in enumerate(seqs):
        out[i, :len(s)] = s
    return out


def _run_model(mod, state, dims, runs, grad=False):
    """Build the candidate's classifier, load the judge's weights, run forward (and backward of
    the logits' sum when `grad`) on each (padded, lengths); plain data back."""
    from grader import probes

    model = mod.PackedGRUClassifier(*dims)
    if not isinstance(model, torch.nn.Module):
        return "not a module"
    _, unexpected = probes.load_state_dict(model, state, False)
    if unexpected:
        return {"unexpected": unexpected}
    out = []
    for padded, lengths in runs:
        padded = padded.clone().requires_grad_(grad)
        logits = model(padded, lengths)
        if not isinstance(logits, torch.Tensor):
            out.append(None)
            continue
        item = {"logits": logits.detach().clone(), "grad": None}
        if grad and logits.requires_grad:
            logits.sum().backward()
            item["grad"] = None if padded.grad is None else padded.grad.clone()
        out.append(item)
    return out


def _model_ok(result, runs):
    assert result != "not a module", "PackedGRUClassifier(...) must be an nn.Module"
    assert not isinstance(result, dict), \
        f"the weights of self.gru (nn.GRU) and self.fc (nn.Linear) did not load: no place for {result['unexpected']}"
    for k, item in enumerate(result):
        assert item is not None, f"forward must return a logits tensor (call {k})"
    return result


def _logits_ok(logits, expected, lengths, what):
    assert_shape(logits, tuple(expected.shape), what=what)
    assert_dtype(logits, torch.float32, what=what)
    for i, n in enumerate(lengths):
        assert_close(logits[i], expected[i], atol=1e-5, rtol=1e-4,
                     what=f"{what}, row {i} (length {n}), against that sequence run alone")


# --- checks --------------------------------------------------------------------------------------

@check("shape")
def test_collate_shapes_and_padding(sub):
    for lengths, pad_value, feat in (([5, 4, 3, 1], -7.5, 2), ([6, 6, 2], None, 3)):
        seqs = _seqs(lengths, feat)
        batch = [(s, k) for k, s in enumerate(seqs)]
        result = sub.pad_collate(batch) if pad_value is None else sub.pad_collate(batch, pad_value)
        padded, lens, labels = _triple(result)
        _padded_ok(padded, seqs, 0.0 if pad_value is None else pad_value)
        assert_shape(lens, (len(seqs),), what="lengths")
        assert_shape(labels, (len(seqs),), what="labels")
        assert lens.tolist() == lengths, f"lengths are {lens.tolist()}, expected {lengths}"


@check("dtype")
def test_collate_dtypes(sub):
    for dtype in (torch.float32, torch.float64):
        seqs = _seqs([2, 5, 3], dtype=dtype)
        padded, lengths, labels = _triple(sub.pad_collate([(s, k + 1) for k, s in enumerate(seqs)]))
        assert_dtype(padded, dtype, what=f"padded (for {dtype} sequences)")
        assert_dtype(lengths, torch.int64, what="lengths")
        assert lengths.device.type == "cpu", f"lengths must be on the CPU, got {lengths.device}"
        assert_dtype(labels, torch.int64, what="labels")
        assert lengths.tolist() == [2, 5, 3] and labels.tolist() == [1, 2, 3], \
            f"lengths {lengths.tolist()} and labels {labels.tolist()}: expected [2, 5, 3] and [1, 2, 3]"


@check("value")
def test_batch_order_preserved(sub):
    lengths, want_labels = [2, 6, 3, 6, 1], [4, 0, 3, 1, 2]
    seqs = _seqs(lengths)
    padded, lens, labels = _triple(sub.pad_collate(list(zip(seqs, want_labels)), 0.0))
    assert lens.tolist() == lengths, f"lengths came back as {lens.tolist()}: the batch's order {lengths} must be kept (no sorting)"
    assert labels.tolist() == want_labels, f"labels came back as {labels.tolist()}, expected {want_labels} (the batch's order)"
    _padded_ok(padded, seqs, 0.0, what="padded (in the batch's order)")


@check("value", weight=2)
def test_logits_match_single(sub):
    state, gru, fc = _truth()
    cases = [[3, 7, 1, 5], [4, 4, 2], [6]]
    runs = []
    for k, lengths in enumerate(cases):
        runs.append((_pad(_seqs(lengths, seed=k)), torch.tensor(lengths)))
    result = _model_ok(sub.probe(_run_model, sub, state, (F_IN, HID, CLS), runs), runs)
    for lengths, k, item in zip(cases, range(len(cases)), result):
        _logits_ok(item["logits"], _alone(gru, fc, _seqs(lengths, seed=k)), lengths, f"logits for lengths {lengths}")


@check("value")
def test_extra_padding_invariant(sub):
    state, gru, fc = _truth()
    lengths = [2, 6, 4]
    seqs = _seqs(lengths, seed=3)
    runs = [(_pad(seqs), torch.tensor(lengths)), (_pad(seqs, extra=5, garbage=True), torch.tensor(lengths))]
    base, longer = _model_ok(sub.probe(_run_model, sub, state, (F_IN, HID, CLS), runs), runs)
    _logits_ok(base["logits"], _alone(gru, fc, seqs), lengths, "logits")
    _logits_ok(longer["logits"], _alone(gru, fc, seqs), lengths,
               "logits with 5 extra steps of non-zero padding (L_max + 5)")


@check("grad")
def test_padding_zero_grad(sub):
    state, gru, fc = _truth()
    lengths = [3, 6, 1, 4]
    seqs = _seqs(lengths, seed=5)
    runs = [(_pad(seqs, extra=2, garbage=True), torch.tensor(lengths))]
    (item,) = _model_ok(sub.probe(_run_model, sub, state, (F_IN, HID, CLS), runs, True), runs)
    _logits_ok(item["logits"], _alone(gru, fc, seqs), lengths, "logits")
    grad = item["grad"]
    assert isinstance(grad, torch.Tensor), "backward of the logits' sum left no gradient on padded: keep the graph to the input"
    assert_shape(grad, tuple(runs[0][0].shape), what="padded.grad")
    for i, n in enumerate(lengths):
        assert bool((grad[i, n:] == 0).all()), \
            f"padded.grad[{i}, {n}:] (padding past length {n}) is not exactly zero: the padding took part in the logits"
        assert bool((grad[i, :n] != 0).any()), f"padded.grad[{i}, :{n}] (the real steps of sequence {i}) is all zero"


@check("value")
def test_zero_length_and_dataloader(sub):
    for where in (0, 2):
        batch = [(s, k) for k, s in enumerate(_seqs([3, 2, 4], feat=2))]
        batch[where] = (torch.zeros(0, 2), where)
        with pytest.raises(ValueError):
            sub.pad_collate(batch)

    def loader(mod, data):
        from torch.utils.data import DataLoader

        out = []
        for batch in DataLoader(data, batch_size=3, collate_fn=mod.pad_collate):
            out.append(tuple(batch) if isinstance(batch, (tuple, list)) else batch)
        return out

    lengths, labels = [4, 1, 3, 2, 5, 2, 3], [0, 1, 2, 1, 0, 2, 1]
    seqs = _seqs(lengths, feat=2, seed=11)
    batches = sub.probe(loader, sub, list(zip(seqs, labels)))
    assert isinstance(batches, list) and len(batches) == 3, "7 samples in batches of 3: 3 batches expected"
    for b, start in zip(batches, range(0, 7, 3)):
        padded, lens, labs = _triple(b, "a DataLoader batch")
        _padded_ok(padded, seqs[start:start + 3], 0.0, what=f"padded of the batch from sample {start}")
        assert lens.tolist() == lengths[start:start + 3] and labs.tolist() == labels[start:start + 3], \
            f"the batch from sample {start} has lengths {lens.tolist()} and labels {labs.tolist()}"


@requires_cuda
@check("device")
def test_cuda_lengths(sub):
    def on_cuda(mod, state, dims, padded, lengths):
        from grader import probes

        model = mod.PackedGRUClassifier(*dims)
        probes.load_state_dict(model, state, False)
        torch.nn.Module.to(model, "cuda")
        out = []
        for lens in (lengths.cuda(), lengths):
            logits = model(padded.cuda(), lens)
            out.append(logits if not isinstance(logits, torch.Tensor) else (logits.device.type, logits.detach().cpu()))
        return out

    state, gru, fc = _truth()
    lengths = [3, 7, 1, 5]
    seqs = _seqs(lengths)
    for k, answer in enumerate(sub.probe(on_cuda, sub, state, (F_IN, HID, CLS), _pad(seqs), torch.tensor(lengths))):
        where = "on CUDA" if k == 0 else "on the CPU"
        assert isinstance(answer, tuple), f"forward must return a tensor (lengths {where})"
        device_type, logits = answer
        assert device_type == "cuda", f"padded on CUDA, lengths {where}: the logits are on {device_type}, expected cuda"
        assert_close(logits, _alone(gru, fc, seqs), atol=1e-4, rtol=1e-4, what=f"logits (padded on CUDA, lengths {where})")
