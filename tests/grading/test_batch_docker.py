"""Batch grading in Docker against the real daemon: a container per submission, --jobs 2 gives the
serial verdicts, a container killed from outside is graded again, SIGTERM mid-batch removes every
running container of the run and resume completes the rest. (GPU pinning needs GPUs: its
allocator is unit-tested in test_batch.py; here the CPU fallback runs.)"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks.batch_subs import make_submissions
from grader.grading import GradeOptions, grade_with
from grader.sandbox.limits import Limits

pytestmark = [pytest.mark.docker, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
IMAGE = os.environ.get("GRADER_TEST_IMAGE", "torch-grader:latest")
BASE = os.environ.get("GRADER_TEST_BASE_IMAGE", "torch-grader-base:offline")
LIMITS = Limits(memory_bytes=1 << 30)


@pytest.fixture(scope="module")
def image() -> str:
    try:
        from grader.image import build_image, docker_client

        docker_client()
    except Exception as exc:  # noqa: BLE001
        if os.environ.get("CI"):
            pytest.fail(f"CI must provide a Docker daemon: {exc}")
        pytest.skip(f"no Docker daemon: {exc}")
    build_image(root=ROOT, base_image=BASE, tag=IMAGE, log=lambda msg: None)
    return IMAGE


def verdicts(run):
    return [[(e.id, [(c.name, c.outcome, c.score) for c in e.checks]) for e in s.exercises] for s in run.submissions]


def test_docker_jobs_2_matches_local_serial_and_survives_a_killed_container(image, tmp_path):
    import threading

    import docker

    subs = make_submissions(tmp_path / "subs", 3)
    run_id = f"batchtest{os.getpid()}"
    client = docker.from_env()
    killed = []

    def killer():  # kill one container of this run from outside, once it runs
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not killed:
            running = client.containers.list(filters={"label": f"torch-grader.run={run_id}"})
            if running:
                time.sleep(1.5)
                try:
                    running[0].kill()
                    killed.append(running[0].name)
                except docker.errors.APIError:
                    continue
            time.sleep(0.2)

    thread = threading.Thread(target=killer)
    thread.start()
    try:
        run = grade_with(subs, GradeOptions(runtime="docker", limits=LIMITS, jobs=2,
                                            runtime_options={"image": image, "gpus": "auto", "run_id": run_id}))
    finally:
        thread.join()
    assert killed
    serial = grade_with(subs, GradeOptions(runtime="local", limits=LIMITS, jobs=1))
    assert run.environment.runtime == "docker"
    assert [s.error for s in run.submissions] == [None] * 3
    assert verdicts(run) == verdicts(serial)
    assert not client.containers.list(all=True, filters={"label": f"torch-grader.run={run_id}"})


SCRIPT = """
import sys
from pathlib import Path
from grader.errors import Interrupted
from grader.grading import GradeOptions, grade_with
from grader.sandbox.limits import Limits
paths = [Path(p) for p in sys.argv[4:]]
opts = GradeOptions(runtime="docker", limits=Limits(memory_bytes=1 << 30),
                    runtime_options={"image": sys.argv[1], "gpus": "none", "run_id": sys.argv[2]},
                    jobs=1, results_dir=Path(sys.argv[3]))
try:
    run = grade_with(paths, opts)
except Interrupted as exc:
    print(len(exc.run.submissions), flush=True)
    sys.exit(130)
print(len(run.submissions), run.extra["resumed"], flush=True)
"""


def test_sigterm_mid_batch_removes_the_runs_containers_and_resume_completes(image, tmp_path):
    import docker

    subs = make_submissions(tmp_path / "subs", 3)
    results = tmp_path / "results"
    run_id = f"batchterm{os.getpid()}"
    cmd = [sys.executable, "-c", SCRIPT, image, run_id, str(results), *map(str, subs)]
    client = docker.from_env()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not list(results.glob("sub*.json")):
        time.sleep(0.2)
    while time.monotonic() < deadline and not client.containers.list(filters={"label": f"torch-grader.run={run_id}"}):
        time.sleep(0.1)  # the second submission's container is up
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    finished = int(out.split()[0])
    assert 1 <= finished < 3
    assert not client.containers.list(all=True, filters={"label": f"torch-grader.run={run_id}"})
    assert len(list(results.glob("sub*.json"))) == finished

    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    total, resumed = map(int, out.stdout.split())
    assert (total, resumed) == (3, finished)
    scores = [json.loads(p.read_text())["submission"] for p in sorted(results.glob("sub*.json"))]
    assert len(scores) == 3
