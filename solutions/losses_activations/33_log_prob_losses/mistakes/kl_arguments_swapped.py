"""Swaps the roles in F.kl_div: the teacher as log-probability input and the student as the
probability target, which is KL(student || teacher), another divergence.

Caught by: test_distillation_values
"""
from __future__ import annotations

import torch.nn.functional as F
from torch import nn


class LogProbClassifier(nn.Module):
    def __init__(self, in_features, num_classes):
        super().__init__()
        self.fc = nn.Linear(in_features, num_classes)
        self.log_softmax = nn.LogSoftmax(dim=1)

    def forward(self, x):
        return self.log_softmax(self.fc(x))


def distillation_loss(student_logits, teacher_logits, targets, T, alpha):
    teacher = teacher_logits.detach()
    soft = F.kl_div(F.log_softmax(teacher / T, dim=1), F.softmax(student_logits / T, dim=1), reduction="batchmean")
    return alpha * T * T * soft + (1 - alpha) * F.cross_entropy(student_logits, targets)
