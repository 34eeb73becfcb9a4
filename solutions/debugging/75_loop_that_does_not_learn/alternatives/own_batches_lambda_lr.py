"""Its own module class, its own shuffled batching over the dataset's indices, a LambdaLR schedule
and model.zero_grad(): the same contract by another route."""
from __future__ import annotations

import torch
from torch import nn
from torch.utils.data import Dataset


class TwoLayer(nn.Module):
    def __init__(self, in_features: int, hidden: int, classes: int):
        super().__init__()
        self.hidden = nn.Linear(in_features, hidden)
        self.out = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))


def build_model(in_features: int, hidden: int, classes: int) -> nn.Module:
    return TwoLayer(in_features, hidden, classes)


def fit(model: nn.Module, dataset: Dataset, epochs: int, batch_size: int = 32, lr: float = 0.1,
        decay_every: int = 2) -> list[float]:
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda epoch: 0.5 ** (epoch // decay_every))
    model.train()
    history = []
    n = len(dataset)
    for _ in range(epochs):
        order = torch.randperm(n).tolist()
        total = 0.0
        for start in range(0, n, batch_size):
            pairs = [dataset[i] for i in order[start:start + batch_size]]
            x = torch.stack([p[0] for p in pairs])
            y = torch.stack([p[1] for p in pairs])
            model.zero_grad(set_to_none=True)
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(pairs)
        scheduler.step()
        history.append(total / n)
    return history
