"""Attack: exercise 33 asks for log-probabilities computed directly (NLLLoss needs them), never
log(softmax). This is the reference with its classifier's forward computing log(softmax(fc(x))),
the softmax reached through a reference taken at import under a name built at run time and kept
in a list: no line of LogProbClassifier names it for the AST, and a wrapper put on torch.softmax /
F.softmax / Tensor.softmax during the check never sees the call.
Honest baseline: every check but the API check and the values check (log(softmax) is -inf at
+-1000, where the values check asks for finite log-probabilities).
Expected: the API check fails: aten._softmax is reached at torch's dispatcher.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

_KEPT = [getattr(torch, "soft" + "max")]  # torch.softmax, taken at import, kept in a list


class LogProbClassifier(nn.Module):
    """self.fc = Linear(in_features, num_classes) followed by LogSoftmax(dim=1); outputs log-probabilities for nn.NLLLoss."""

    def __init__(self, in_features: int, num_classes: int) -> None:
        super().__init__()
        self.fc = nn.Linear(in_features, num_classes)

    def forward(self, x: Tensor) -> Tensor:
        return torch.log(_KEPT[0](self.fc(x), 1))  # the softmax, through a reference no wrapper replaces


def distillation_loss(student_logits: Tensor, teacher_logits: Tensor, targets: Tensor, T: float, alpha: float) -> Tensor:
    """alpha * T**2 * KL(softmax(teacher/T) || softmax(student/T)) with batchmean reduction + (1 - alpha) * CE(student_logits, targets); no gradient into the teacher."""
    teacher = teacher_logits.detach()
    soft = F.kl_div(F.log_softmax(student_logits / T, dim=1), F.log_softmax(teacher / T, dim=1),
                    reduction="batchmean", log_target=True)
    hard = F.cross_entropy(student_logits, targets)
    return alpha * T * T * soft + (1 - alpha) * hard
