"""The loader keeps the dataset's order: over data sorted by label every batch holds one class,
and the model chases the last class it saw. The other three bugs are fixed.

Caught by: test_epochs_visit_samples_in_fresh_order
"""
from __future__ import annotations

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


def build_model(in_features: int, hidden: int, classes: int) -> nn.Module:
    """Linear, ReLU, Linear: raw logits out (the loss applies the softmax itself)."""
    return nn.Sequential(
        nn.Linear(in_features, hidden),
        nn.ReLU(),
        nn.Linear(hidden, classes),
    )


def fit(model: nn.Module, dataset: Dataset, epochs: int, batch_size: int = 32, lr: float = 0.1,
        decay_every: int = 2) -> list[float]:
    """Shuffled batches; zero_grad, forward, backward, step per batch; the schedule steps once per epoch."""
    loader = DataLoader(dataset, batch_size=batch_size)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=decay_every, gamma=0.5)
    criterion = nn.CrossEntropyLoss()
    model.train()
    history = []
    for _ in range(epochs):
        total, seen = 0.0, 0
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(x)
            seen += len(x)
        scheduler.step()
        history.append(total / seen)
    return history
