"""nn modules: LogSoftmax + NLLLoss for class indices (which is CrossEntropyLoss), and the soft
loss as a weighted sum of log-probabilities; probabilities through Tensor.softmax."""
from __future__ import annotations

from torch import nn


def classification_loss(logits, targets, ignore_index=-100):
    logp = nn.LogSoftmax(dim=1)(logits)
    if targets.dtype.is_floating_point and tuple(targets.shape) == tuple(logits.shape):
        per_position = -(targets.type_as(logp) * logp).sum(dim=1)
        return per_position.mean()
    return nn.NLLLoss(ignore_index=ignore_index)(logp, targets.long())


def predict_proba(logits):
    return logits.softmax(1)
