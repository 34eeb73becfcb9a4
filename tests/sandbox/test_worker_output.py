"""A worker's output is taken in when its check ends without waiting for the killed worker's exit
(the end of its output pipe comes only once its address space is down): nothing written before
the answer is lost, and no reader thread or descriptor is left behind."""

from __future__ import annotations

import os
import time

import pytest

from grader.sandbox.client import Limits, Worker
from grader.sandbox.zygote_client import Zygote


@pytest.fixture(scope="module")
def zygote(tmp_path_factory):
    server = Zygote(str(tmp_path_factory.mktemp("scratch")), warm_ups=[])
    server.start()
    yield server
    server.close()


def test_everything_written_before_the_answer_is_kept_and_nothing_is_left_open(zygote, tmp_path):
    candidate = tmp_path / "noisy.py"
    # 200 kB in small writes (more than a pipe holds: the reader must keep up), the last line last
    candidate.write_text("import sys\nfor i in range(4000):\n    print(f'line {i:05d} ' + 'x' * 40)\n"
                         "sys.stdout.flush()\nprint('LAST-LINE-7f3a', file=sys.stderr)\n")
    drains = []
    for _ in range(20):
        worker = Worker(zygote, str(candidate), "noisy", Limits())
        worker.start()
        drains.append(worker._drain)
        worker.kill(detach=True)
        assert worker.output.rstrip().endswith("LAST-LINE-7f3a"), worker.output[-300:]
        assert "line 03999" in worker.output
    # this test's own readers and pipes only: other tests in this process may open and close theirs
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(d.is_alive() or not d.closed for d in drains):
        time.sleep(0.05)
    assert not any(d.is_alive() for d in drains), "output readers were left running"
    assert all(d.closed for d in drains), "output pipes were left open"  # set where the reader closes it


def test_settle_takes_in_what_the_pipe_holds_before_the_reader_has_run():
    from grader.sandbox.client import _OutputDrain

    read, write = os.pipe()
    os.write(write, b"x" * 20000 + b"\nTAIL-1")
    drain = _OutputDrain(read, cap=1 << 20)  # its thread not started yet: only `settle` can read
    drain.settle()
    assert drain.text().endswith("TAIL-1") and drain.total == 20007
    os.write(write, b"\nTAIL-2")
    os.close(write)
    drain.start()  # reads the rest, sees the end of the file, closes its end
    drain.join(timeout=5)
    assert not drain.is_alive() and drain.closed and drain.text().endswith("TAIL-2")
    drain.settle()  # after the end: nothing to read, nothing closed twice
    assert drain.total == 20014
