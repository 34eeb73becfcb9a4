"""What every configuration file of this submission runs, if anything runs it."""
import glob
import os
import sys

with open("/tmp/torch-grader-attack-conftest-ran", "a") as fh:
    fh.write(f"{os.getpid()} {sys.argv}\n")
for path in glob.glob("/tmp/grader-local-*/results.jsonl") + glob.glob("/out/results.jsonl"):
    with open(path, "a") as fh:
        fh.write('{"type": "note", "message": "SUBMITTED CONFTEST RAN"}\n')
