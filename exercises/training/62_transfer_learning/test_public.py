"""Public checks for 62_transfer_learning: run them with `grader check 62`.

The functions change a model in place, so the model is built and used inside a probe (a function
that runs next to your code) and plain values come back. The "pretrained" backbone is a tiny conv
net defined here: nothing is downloaded.
"""
import torch

from grader.testing import check


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU())
        self.top = nn.Sequential(nn.Conv2d(4, 6, 3, padding=1), nn.BatchNorm2d(6), nn.ReLU())
        self.head = nn.Linear(6, 10)

    def forward(self, x):
        return self.head(self.top(self.features(x)).mean(dim=(2, 3)))


def _prepare(mod):
    torch.manual_seed(0)
    model = Small()
    mod.prepare_for_finetuning(model, "head", 3, ("top",))
    return {name: (tuple(p.shape), p.requires_grad) for name, p in model.named_parameters()}


def _frozen_bn(mod):
    torch.manual_seed(0)
    model = Small()
    mod.prepare_for_finetuning(model, "head", 3)
    mod.set_finetune_mode(model)
    before = model.features[1].running_mean.clone()
    model(torch.randn(4, 3, 5, 5))
    return model.features[1].training, model.training, torch.equal(before, model.features[1].running_mean)


@check("state")
def test_head_replaced_and_backbone_frozen(sub):
    seen = sub.probe(_prepare, sub)
    assert seen["head.weight"] == ((3, 6), True), f"head.weight is {seen['head.weight']}, expected shape (3, 6), trainable"
    assert seen["top.0.weight"][1] and seen["top.1.weight"][1], "the parameters under 'top' should be trainable"
    assert not seen["features.0.weight"][1] and not seen["features.1.bias"][1], "the parameters under 'features' should be frozen"


@check("mode")
def test_frozen_batchnorm_keeps_statistics(sub):
    _, model_training, unchanged = sub.probe(_frozen_bn, sub)
    assert model_training, "after set_finetune_mode the model should be in train mode"
    assert unchanged, "features.1 (a BatchNorm with every parameter frozen) changed its running_mean in a forward after set_finetune_mode"
