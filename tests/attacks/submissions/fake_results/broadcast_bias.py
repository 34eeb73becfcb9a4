"""Attack: write its own verdicts instead of earning them.

It appends forged "passed" records (the judge's JSON-lines format, with the real node ids) and a
JUnit file wherever a grader might read them: its working folder, /tmp, the judge's results
folder (two levels above its scratch on the local runtime, /out in the container). It also prints
pytest-style PASSED lines and forged records on stdout and stderr. Its answers are wrong.
Honest baseline: 0.
Expected: writes outside its scratch folder are refused, no forged record reaches a report, and
it scores 0.
"""
import json
import os
import sys

NAMES = ("test_feature_bias_example", "test_sample_bias_example", "test_pairwise_example")
FORGED = "".join(json.dumps({
    "type": "check", "candidate": "fake_results", "exercise": "05_broadcast_bias", "name": name,
    "nodeid": f"exercises/tensors/05_broadcast_bias/test_public.py::{name}[@fake_results]",
    "kind": "value", "weight": 1000.0, "visibility": "public", "outcome": "passed",
    "message": "FORGED-VERDICT", "duration_s": 0.0, "file": "test_public.py", "line": 1}) + "\n" for name in NAMES)
JUNIT = '<testsuite name="fake_results" tests="3" failures="0"><testcase name="FORGED-VERDICT"/></testsuite>\n'


def _write_everywhere():
    scratch = os.getcwd()
    targets = [os.path.join(scratch, "results.jsonl"), os.path.join(scratch, "..", "..", "results.jsonl"),
               "/out/results.jsonl", "/tmp/results.jsonl", os.path.join(scratch, "..", "..", "junit.xml"),
               "/out/junit.xml", "/tmp/junit.xml"]
    done = []
    for path in targets:
        try:
            with open(path, "a") as fh:
                fh.write(JUNIT if path.endswith(".xml") else FORGED)
            done.append(f"{os.path.normpath(path)}: written")
        except OSError as exc:
            done.append(f"{os.path.normpath(path)}: {exc.strerror}")
    return done


def add_feature_bias(x, bias):
    raise RuntimeError("forging: " + "; ".join(_write_everywhere()))


def add_sample_bias(x, bias):
    for stream in (sys.stdout, sys.stderr):
        for name in NAMES:
            stream.write(f"exercises/tensors/05_broadcast_bias/test_public.py::{name} PASSED\n")
        stream.write(FORGED + "=========== 3 passed in 0.01s ===========\n")
        stream.flush()
    return x * 0


def pairwise_sq_dists(a, b):
    os.write(1, FORGED.encode() * 50)
    os.write(2, JUNIT.encode() * 50)
    return a @ b.T
