"""Right answers to exercise 05, computed through the machinery real PyTorch code uses, so that
each check passes only if that machinery works inside the worker's sandbox:
add_feature_bias: DataLoader workers started with fork (batches come back through
multiprocessing.resource_sharer: an AF_UNIX socket, /dev/shm); add_sample_bias: plain (the spawn
start method is tested in tests/test_sandbox_profile.py: a fresh interpreter importing torch per
loader worker is too slow for a graded check on a small machine); pairwise_sq_dists: a gloo
process group of two processes on 127.0.0.1 (TCP on loopback), each computing half and
all_reduce-ing.
"""
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, TensorDataset


def _through_loader(x, context, workers):
    loader = DataLoader(TensorDataset(x), batch_size=max(1, len(x) // 4), num_workers=workers,
                        multiprocessing_context=context)
    return torch.cat([batch[0] for batch in loader])


def add_feature_bias(x, bias):
    return _through_loader(x, "fork", 2) + bias


def add_sample_bias(x, bias):
    return x + bias[:, None]


def _rank(rank, port, a, b, queue):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
    half = torch.zeros(len(a), len(b))
    rows = slice(0, len(a) // 2) if rank == 0 else slice(len(a) // 2, len(a))
    half[rows] = ((a[rows, None, :] - b[None, :, :]) ** 2).sum(-1)
    dist.all_reduce(half)
    dist.destroy_process_group()
    if rank == 0:  # as numpy: a tensor would be shared through this process, which exits now
        queue.put(half.numpy())


def pairwise_sq_dists(a, b):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_rank, args=(rank, port, a, b, queue)) for rank in range(2)]
    for p in procs:
        p.start()
    result = torch.from_numpy(queue.get(timeout=60))
    for p in procs:
        p.join(30)
    return result
