from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


class LogProbClassifier(nn.Module):
    """self.fc = Linear(in_features, num_classes) followed by LogSoftmax(dim=1); outputs log-probabilities for nn.NLLLoss."""

    def __init__(self, in_features: int, num_classes: int) -> None:
        raise NotImplementedError

    def forward(self, x: Tensor) -> Tensor:
        raise NotImplementedError


def distillation_loss(student_logits: Tensor, teacher_logits: Tensor, targets: Tensor, T: float, alpha: float) -> Tensor:
    """alpha * T**2 * KL(softmax(teacher/T) || softmax(student/T)) with batchmean reduction + (1 - alpha) * CE(student_logits, targets); no gradient into the teacher."""
    raise NotImplementedError
