"""Attack: make the judge run out of memory with a small answer. A sparse tensor is a few bytes
on the wire whatever its shape; this one claims (40 000, 40 000), and exercise 09's checks call
.to_dense() on the answer in the judge: 6.4 GB.
Honest baseline: test_sparse_layout_coalesced (its probe only looks at the layout, which is right).
Expected: the judge refuses the answer (its dense form is over the cap), the check fails saying
so, and the judge lives on to grade every later check.
"""
import torch


def edges_to_sparse(edge_index, num_nodes, weights=None):
    values = torch.ones(edge_index.shape[1]) if weights is None else weights.float()
    return torch.sparse_coo_tensor(edge_index.long(), values, (40_000, 40_000)).coalesce()


def normalized_propagate(adj, x):
    raise NotImplementedError
