"""Public checks for 74_batched_inference: run them with `grader check 74`."""
import torch
from torch import nn

from grader.testing import assert_close, check


def _model():
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.2), nn.Linear(8, 2))
    with torch.no_grad():
        model(torch.randn(16, 4) + 3)             # running statistics away from (0, 1)
    return model


@check("value")
def test_matches_one_request_at_a_time(sub):
    model = _model()
    requests = [torch.randn(4) for _ in range(5)]
    outs = sub.batched_predict(model, requests, 2)
    model.eval()
    with torch.no_grad():
        single = [model(r.unsqueeze(0)).squeeze(0) for r in requests]
    assert isinstance(outs, list) and len(outs) == 5, "one output per request, in a list"
    for j, (got, want) in enumerate(zip(outs, single)):
        assert_close(got, want, atol=1e-6, rtol=1e-5, what=f"output {j}")


@check("perf")
def test_three_forwards_for_five_requests(sub):
    def count(mod, model, requests):
        sizes = []
        handle = nn.Module.register_forward_hook(model, lambda m, args, out: sizes.append(len(args[0])))
        mod.batched_predict(model, requests, 2)
        handle.remove()
        return sizes

    sizes = sub.probe(count, sub, _model(), [torch.randn(4) for _ in range(5)])
    assert len(sizes) == 3 and max(sizes) <= 2, f"5 requests, max_batch_size=2: batches of {sizes}, expected 3 forwards"


@check("value")
def test_no_requests(sub):
    assert sub.batched_predict(_model(), [], 8) == [], "no requests: an empty list"
