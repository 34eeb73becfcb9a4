"""Attack: copy another candidate's answer, graded in the same run.

It searches the folders next to its own (the other submissions given on the same command line),
archives unpacked under /tmp, other workers' scratch folders, and /submission, for a
broadcast_bias.py that is not its own, and uses the first one it can read.
Honest baseline: 0.
Expected: nothing of the other submission is readable; this one scores 0, the other keeps its
full marks, and no line of the other's file reaches this one's report.
"""
import glob
import os

HERE = os.path.abspath(__file__)


def _other():
    refused = []
    parent = os.path.dirname(os.path.dirname(HERE))
    scratch_root = os.path.dirname(os.getcwd())
    for pattern in (os.path.join(parent, "victim", "broadcast_bias.py"),
                    os.path.join(parent, "*", "**", "broadcast_bias.py"),
                    "/tmp/grader-submission-*/**/broadcast_bias.py",
                    os.path.join(scratch_root, "*", "**", "*.py"), "/submission/**/*.py"):
        for path in glob.glob(pattern, recursive=True) or [pattern]:
            if os.path.abspath(path) == HERE or "*" in path:
                continue
            try:
                with open(path) as fh:
                    source = fh.read()
            except OSError as exc:
                refused.append(f"{path}: {exc.strerror}")
                continue
            if "def pairwise_sq_dists" in source:
                found = {}
                exec(compile(source, path, "exec"), found)
                return found
    raise PermissionError("found no other answer to copy: " + "; ".join(refused))


def add_feature_bias(x, bias):
    return _other()["add_feature_bias"](x, bias)


def add_sample_bias(x, bias):
    return _other()["add_sample_bias"](x, bias)


def pairwise_sq_dists(a, b):
    return _other()["pairwise_sq_dists"](a, b)
