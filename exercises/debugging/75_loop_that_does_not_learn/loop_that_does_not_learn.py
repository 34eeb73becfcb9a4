from __future__ import annotations

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


def build_model(in_features: int, hidden: int, classes: int) -> nn.Module:
    """A two-layer perceptron that maps (N, in_features) inputs to (N, classes) class scores."""
    return nn.Sequential(
        nn.Linear(in_features, hidden),
        nn.ReLU(),
        nn.Linear(hidden, classes),
        nn.Softmax(dim=1),
    )


def fit(model: nn.Module, dataset: Dataset, epochs: int, batch_size: int = 32, lr: float = 0.1,
        decay_every: int = 2) -> list[float]:
    """Trains the model on the dataset with SGD and a decaying learning rate. Returns the mean training loss of each epoch."""
    loader = DataLoader(dataset, batch_size=batch_size)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=decay_every, gamma=0.5)
    criterion = nn.CrossEntropyLoss()
    model.train()
    history = []
    for _ in range(epochs):
        total, seen = 0.0, 0
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.zero_grad()
            optimizer.step()
            scheduler.step()
            total += loss.item() * len(x)
            seen += len(x)
        history.append(total / seen)
    return history
