"""Uses the teacher logits as they come: when they require grad, backward fills
teacher_logits.grad, and an optimizer over the teacher would train it towards the student.

Caught by: test_teacher_gets_no_grad
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
    soft = F.kl_div(F.log_softmax(student_logits / T, dim=1), F.softmax(teacher_logits / T, dim=1),
                    reduction="batchmean")
    return alpha * T * T * soft + (1 - alpha) * F.cross_entropy(student_logits, targets)
