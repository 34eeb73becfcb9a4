"""nn.BCEWithLogitsLoss built per call (pos_weight moved to the logits), with the trailing
singleton squeezed by view; prediction through torch.sigmoid (allowed there)."""
from __future__ import annotations

import torch
from torch import nn


def binary_loss(logits, targets, pos_weight=None):
    if logits.shape != targets.shape:
        if logits.ndim == targets.ndim + 1 and logits.shape[-1] == 1 and logits.shape[:-1] == targets.shape:
            logits = logits.view(targets.shape)
        elif targets.ndim == logits.ndim + 1 and targets.shape[-1] == 1 and targets.shape[:-1] == logits.shape:
            targets = targets.view(logits.shape)
        else:
            raise ValueError("logits and targets shapes differ beyond a trailing singleton")
    pw = None if pos_weight is None else pos_weight.to(logits)
    return nn.BCEWithLogitsLoss(pos_weight=pw)(logits, targets.type_as(logits))


def multilabel_predict(logits, threshold=0.5):
    return torch.sigmoid(logits).ge(threshold)
