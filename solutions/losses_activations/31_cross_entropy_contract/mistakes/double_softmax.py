"""Normalises the logits with softmax before the loss (the model "outputs probabilities"):
F.cross_entropy applies a second softmax, the loss is squashed towards log(C) and the gradient
shrinks.

Caught by: test_hard_label_dtypes, test_large_logits, test_grad_is_softmax_minus_onehot
"""
from __future__ import annotations

import torch.nn.functional as F


def classification_loss(logits, targets, ignore_index=-100):
    probs = predict_proba(logits)
    if targets.is_floating_point() and targets.shape == logits.shape:
        return F.cross_entropy(probs, targets)
    return F.cross_entropy(probs, targets.long(), ignore_index=ignore_index)


def predict_proba(logits):
    return F.softmax(logits, dim=1)
