"""Ends the classifier in nn.Softmax, as a table in the seed questions suggests for NLLLoss:
NLLLoss then averages -p instead of -log p, a different loss.

Caught by: test_nll_equals_ce, test_no_softmax
"""
from __future__ import annotations

import torch.nn.functional as F
from torch import nn


class LogProbClassifier(nn.Module):
    def __init__(self, in_features, num_classes):
        super().__init__()
        self.fc = nn.Linear(in_features, num_classes)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        return self.softmax(self.fc(x))


def distillation_loss(student_logits, teacher_logits, targets, T, alpha):
    teacher = teacher_logits.detach()
    soft = F.kl_div(F.log_softmax(student_logits / T, dim=1), F.softmax(teacher / T, dim=1), reduction="batchmean")
    return alpha * T * T * soft + (1 - alpha) * F.cross_entropy(student_logits, targets)

