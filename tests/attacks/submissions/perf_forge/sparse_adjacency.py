"""Attack: pass a timing check while being slow. Exercise 09's perf check times
normalized_propagate on a 200 000-node graph with time.perf_counter inside the worker (limit
3 s). This answer is right but sleeps 8 s on large graphs, and replaces time.perf_counter with a
clock that advances 10 ms per call.
Honest baseline: every check that does not use a probe (the probes would see a slow, honest
answer: the perf check fails).
Expected: probes refuse to observe once time.perf_counter is replaced, so every probe-based check
fails saying so (the perf check among them); the assignment is flagged.
"""
import time

import torch

_ticks = [0.0]


def _fake_clock():
    _ticks[0] += 0.01
    return _ticks[0]


time.perf_counter = _fake_clock


def edges_to_sparse(edge_index, num_nodes, weights=None):
    values = torch.ones(edge_index.shape[1], dtype=torch.float32) if weights is None else weights.to(torch.float32)
    return torch.sparse_coo_tensor(edge_index.long(), values, (num_nodes, num_nodes)).coalesce()


def normalized_propagate(adj, x):
    if adj.shape[0] > 100_000:
        time.sleep(8)
    deg = torch.sparse.mm(adj, torch.ones(adj.shape[0], 1, dtype=adj.dtype))
    return torch.sparse.mm(adj, x) / torch.where(deg == 0, torch.ones_like(deg), deg)
