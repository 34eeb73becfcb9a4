"""Not an attack: an honest, correct answer, graded in the same run as peek_other, which tries to
copy it. Expected: full marks; its marker VICTIM-ANSWER-7f3a appears in no other report entry."""
# VICTIM-ANSWER-7f3a


def add_feature_bias(x, bias):
    return x + bias[None, :]


def add_sample_bias(x, bias):
    return x + bias[:, None]


def pairwise_sq_dists(a, b):
    sq = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :]
    return (sq - 2 * a @ b.T).clamp_min(0)  # VICTIM-ANSWER-7f3a
