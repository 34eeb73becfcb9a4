"""Public checks for 58_early_stopping: run them with `grader check 58`.

`step` and `restore_best` work on a model in place, so the model is built and trained inside a
probe (a function that runs next to your code) and plain values come back.
"""
import torch

from grader.testing import check


def _feed(mod, metrics, patience):
    es = mod.EarlyStopping(patience=patience)
    model = torch.nn.Linear(3, 2)
    return [es.step(m, model) for m in metrics], es.best_score, es.best_epoch


def _train_then_restore(mod):
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    es = mod.EarlyStopping(patience=5)
    saved = None
    for epoch, metric in enumerate([1.0, 0.5, 0.7]):
        opt.zero_grad()
        model(torch.randn(8, 3)).pow(2).mean().backward()
        opt.step()                                            # changes the weights in place
        if epoch == 1:
            saved = model.weight.detach().clone()
        es.step(metric, model)
    es.restore_best(model)
    return torch.equal(model.weight.detach(), saved)


@check("value")
def test_patience_counts_non_improvements(sub):
    returns, best_score, best_epoch = sub.probe(_feed, sub, [1.0, 0.8, 0.9, 0.85, 0.8], 3)
    assert returns == [False, False, False, False, True], \
        f"with patience=3, step returned {returns}; expected True at the third non-improvement in a row (a tie is not an improvement)"
    assert (best_score, best_epoch) == (0.8, 1), f"(best_score, best_epoch) is {(best_score, best_epoch)}, expected (0.8, 1)"


@check("state")
def test_restore_best_after_training_in_place(sub):
    assert sub.probe(_train_then_restore, sub), \
        "after restore_best the weight differs from the one the model had when step saw the best metric (epoch 1)"
