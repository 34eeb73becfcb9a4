from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor, nn


class LogProbClassifier(nn.Module):
    """self.fc = Linear(in_features, num_classes) followed by LogSoftmax(dim=1); outputs log-probabilities for nn.NLLLoss."""

    def __init__(self, in_features: int, num_classes: int) -> None:
        super().__init__()
        self.fc = nn.Linear(in_features, num_classes)
        self.log_softmax = nn.LogSoftmax(dim=1)

    def forward(self, x: Tensor) -> Tensor:
        return self.log_softmax(self.fc(x))


def distillation_loss(student_logits: Tensor, teacher_logits: Tensor, targets: Tensor, T: float, alpha: float) -> Tensor:
    """alpha * T**2 * KL(softmax(teacher/T) || softmax(student/T)) with batchmean reduction + (1 - alpha) * CE(student_logits, targets); no gradient into the teacher."""
    teacher = teacher_logits.detach()
    soft = F.kl_div(F.log_softmax(student_logits / T, dim=1), F.log_softmax(teacher / T, dim=1),
                    reduction="batchmean", log_target=True)
    hard = F.cross_entropy(student_logits, targets)
    return alpha * T * T * soft + (1 - alpha) * hard
