"""The judge's side of the fork-server protocol, against a scripted fork server on a real socket
pair, and the bounded process-tree walk.

Regression: in the container a fork bomb kept the fork server's memory walk waiting on the
bomb's memory-map locks; the judge waited 30 s for the answer (the check ran 33 s on a 5 s limit),
declared the fork server lost, and every later check of the submission failed."""

import json
import os
import socket
import subprocess
import sys
import time

from grader.sandbox.treemem import tree_memory
from grader.sandbox.zygote_client import Zygote


def _scripted():
    judge_end, server_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    zygote = Zygote("/tmp", attach_fd=judge_end.detach())
    zygote.ready = True
    return zygote, server_end


def _request(server_end) -> dict:
    server_end.settimeout(5)
    return json.loads(server_end.recv(65536))


def test_a_late_tree_answer_neither_stalls_the_check_nor_answers_the_next_request():
    zygote, server = _scripted()
    try:
        started = time.monotonic()
        assert zygote.tree_memory(1234) == (None, 0)  # the fork server is busy: no answer
        assert time.monotonic() - started < 5, "the judge waited on a busy fork server"
        assert zygote.lost is None, "a busy fork server was taken for a lost one"
        tree = _request(server)
        assert tree["op"] == "tree"
        server.send(json.dumps({"used": 999, "count": 7, "id": tree["id"]}).encode())  # late
        answer: dict = {}

        def ask():
            answer.update(zygote.peak_memory(1234))

        import threading

        asker = threading.Thread(target=ask)
        asker.start()
        peak = _request(server)
        assert peak["op"] == "peak" and peak["id"] != tree["id"]
        server.send(json.dumps({"rss": 1, "hwm": 2, "id": peak["id"]}).encode())
        asker.join(10)
        assert answer == {"rss": 1, "hwm": 2, "id": peak["id"]}, "the late tree answer was taken for the peak's"
    finally:
        server.close()
        zygote.close(kill=True)


def test_a_stopped_fork_server_is_still_lost():
    """A busy fork server is waited for briefly; a stopped or dead one is reported lost."""
    zygote, server = _scripted()
    server.close()  # gone
    assert zygote.tree_memory(1234) == (None, 0)
    assert zygote.lost is not None and zygote.incidents


def test_tree_walk_counts_every_process_but_reads_memory_only_within_its_budget():
    child = subprocess.Popen([sys.executable, "-c", "import time; b = bytearray(64 << 20); time.sleep(60)"])
    try:
        deadline = time.monotonic() + 30
        full = (0, 0)
        while time.monotonic() < deadline:
            full = tree_memory(os.getpid(), None, budget_s=5)
            if full[0] - tree_memory(os.getpid(), None, budget_s=0)[0] > 32 << 20:
                break
            time.sleep(0.1)
        hurried = tree_memory(os.getpid(), None, budget_s=0)
        assert hurried[1] == full[1] >= 2, "processes must be counted whatever the budget"
        assert full[0] - hurried[0] > 32 << 20, "within its budget the walk must read the children's memory"
    finally:
        child.kill()
        child.wait()
