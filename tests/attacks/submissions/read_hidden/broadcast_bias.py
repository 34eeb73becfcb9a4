"""Attack: read the hidden checks and the reference solution, and copy the reference's answers.

It looks where they live: next to the grader's own package (a checkout), GRADER_ROOT, /opt/grader
(the grading image), and every folder above its own. A hidden check it can read is printed (in
the hope that output reaches a report); a reference it can read is executed and used.
Honest baseline: 0 (nothing is implemented honestly).
Expected: every read is refused (or the file is not there at all in the worker's view), every check
fails saying so, nothing read reaches a report.
"""
import os

import grader

CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(grader.__file__)))


def _places():
    roots = {CHECKOUT,
             os.environ.get("GRADER_ROOT", "/opt/grader"), "/opt/grader"}
    here = os.path.dirname(os.path.abspath(__file__))
    while here != os.path.dirname(here):
        roots.add(here)
        here = os.path.dirname(here)
    for root in sorted(roots):
        yield os.path.join(root, "exercises", "tensors", "05_broadcast_bias", "test_hidden.py")
        yield os.path.join(root, "solutions", "tensors", "05_broadcast_bias", "broadcast_bias.py")


REFUSED, REFERENCE = [], {}
for path in _places():
    try:
        with open(path) as fh:
            text = fh.read()
    except FileNotFoundError:
        if path.startswith(CHECKOUT + os.sep):
            # the grader runs from this checkout, which holds both files: here they are not even
            # there (a checkout under /home, /root or /tmp lies under the worker's empty tmpfs)
            REFUSED.append(f"{path}: hidden from the worker")
        continue
    except OSError as exc:
        REFUSED.append(f"{path}: {exc.strerror}")
        continue
    if path.endswith("test_hidden.py"):
        print(text)
    else:
        exec(compile(text, path, "exec"), REFERENCE)


def _copied(name):
    if name not in REFERENCE:
        raise PermissionError("could not read the reference: " + "; ".join(REFUSED))
    return REFERENCE[name]


def add_feature_bias(x, bias):
    return _copied("add_feature_bias")(x, bias)


def add_sample_bias(x, bias):
    return _copied("add_sample_bias")(x, bias)


def pairwise_sq_dists(a, b):
    return _copied("pairwise_sq_dists")(a, b)
