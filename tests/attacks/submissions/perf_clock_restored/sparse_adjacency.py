"""Attack: a slow answer (6 s of CPU on a large graph) that fakes the clock only inside the call and
puts the real one back before returning, so that neither the worker's guard nor a static check of
what is left replaced can see it: any timing read inside the worker during the call says 0.2 s.
Honest baseline: every check but the perf check.
Expected: the perf check reads the worker's CPU time from outside (`sub.cpu_timed`) and fails it
("took 6.xx s of CPU", or its 25 s time limit); everything else passes; nothing is left for the
guard to report.
"""
import time

import torch

_real = time.perf_counter


def edges_to_sparse(edge_index, num_nodes, weights=None):
    values = torch.ones(edge_index.shape[1]) if weights is None else weights.to(torch.float32)
    return torch.sparse_coo_tensor(edge_index.long(), values, (num_nodes, num_nodes)).coalesce()


def normalized_propagate(adj, x):
    if adj.shape[0] > 100_000:
        started = _real()
        time.perf_counter = lambda: started + 0.2
        try:
            spent = time.process_time()
            while time.process_time() - spent < 6:  # past the check's 3 s, within its 25 s limit
                pass
        finally:
            time.perf_counter = _real
    deg = torch.sparse.mm(adj, torch.ones(adj.shape[0], 1))
    return torch.sparse.mm(adj, x) / torch.where(deg == 0, torch.ones_like(deg), deg)
