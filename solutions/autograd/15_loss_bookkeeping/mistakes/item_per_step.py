"""Calls `.item()` on every batch loss and sums Python floats. No graph is kept and the value is
right, but each update() forces a device-to-host copy, i.e. a GPU sync per training step.

Caught by: test_no_host_reads_in_update, test_update_on_meta_device
"""
from __future__ import annotations


class RunningMean:
    def __init__(self):
        self.reset()

    def update(self, batch_loss, n):
        self.total += batch_loss.item() * n
        self.count += n

    def compute(self):
        if self.count == 0:
            raise ValueError("no batches")
        return self.total / self.count

    def reset(self):
        self.total = 0.0
        self.count = 0
