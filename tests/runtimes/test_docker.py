"""The docker runtime against a real Docker daemon and the real grading image.

`.ci/run` installs docker.io, starts dockerd and builds the offline base and the grading image
before the tests; without a daemon these tests are skipped locally and fail in CI (CI=true)."""
from __future__ import annotations

import glob
import json
import os
import shutil
import socket
import tempfile
import threading
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.cli import cli
from grader.grading import grade
from grader.sandbox.client import GiB, Limits

pytestmark = pytest.mark.docker
ROOT = Path(__file__).resolve().parents[2]
ATTACKS = Path(__file__).resolve().parents[1] / "data" / "docker_attacks"
BAD = Path(__file__).resolve().parents[1] / "data" / "misbehaving"
IMAGE = os.environ.get("GRADER_TEST_IMAGE", "torch-grader:latest")
BASE = os.environ.get("GRADER_TEST_BASE_IMAGE", "torch-grader-base:offline")


@pytest.fixture(scope="module")
def image() -> str:
    """The grading image, (re)built from this checkout; rebuilding is skipped when nothing changed."""
    try:
        from grader.image import build_image, docker_client

        docker_client()
    except Exception as exc:  # noqa: BLE001
        if os.environ.get("CI"):
            pytest.fail(f"CI must provide a Docker daemon: {exc}")
        pytest.skip(f"no Docker daemon: {exc}")
    build_image(root=ROOT, base_image=BASE, tag=IMAGE, log=lambda msg: None)
    return IMAGE


def docker_grade(paths, **kwargs):
    options = {"image": IMAGE, "gpus": "auto", **kwargs.pop("runtime_options", {})}
    return grade(paths, runtime="docker", runtime_options=options, **kwargs)


def by_id(run):
    return {e.id: e for e in run.submissions[0].exercises}


def test_pilot_references_score_full_marks(image):
    run = docker_grade([ROOT / "solutions"], exercises=["05", "10", "18"])
    assert run.environment.runtime == "docker"
    assert run.score == run.max_score == 30
    assert run.environment.torch.startswith("2.13.0")
    assert "judge and worker as separate users" in run.environment.protections


def test_reading_hidden_checks_and_solutions_is_denied(image):
    run = docker_grade([ATTACKS / "read_secrets"], exercises=["05"], timeout_s=10)
    ex = by_id(run)["05_broadcast_bias"]
    assert ex.score == 0
    failed = [c for c in ex.checks if c.outcome == "failed"]
    assert failed and all("Permission denied" in c.message or "could not read the reference" in c.message
                          for c in failed), [c.message for c in failed]
    assert "def pairwise_sq_dists" not in json.dumps(run.to_dict())  # nothing of the solution leaks


def test_network_is_unreachable(image, tmp_path):
    sub = tmp_path / "network"
    shutil.copytree(ATTACKS / "network", sub)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(0.5)
    (sub / "port.txt").write_text(str(listener.getsockname()[1]))
    accepted = []

    def accept():
        try:
            accepted.append(listener.accept())
        except OSError:
            pass

    thread = threading.Thread(target=accept)
    thread.start()
    try:
        run = docker_grade([sub], exercises=["05"], visibility="public", timeout_s=10)
    finally:
        thread.join()
        listener.close()
    assert not accepted, "the worker reached a listener on the host"
    checks = {c.name: c for c in by_id(run)["05_broadcast_bias"].checks}
    # refused (nothing listens on the container's own loopback) or denied (Landlock, where the
    # daemon's seccomp profile lets the worker use it): either way the host is out of reach
    message = checks["test_feature_bias_example"].message
    assert "ConnectionRefusedError" in message or "PermissionError" in message, message
    assert "interfaces: ['lo']" in checks["test_sample_bias_example"].message
    assert "gaierror" in checks["test_pairwise_example"].message


def test_memory_hog_is_oom_killed_and_reported(image):
    # The worker's own limit is set above the container's, so the kernel's OOM killer acts first.
    run = docker_grade([ATTACKS / "memhog"], exercises=["05"], visibility="public", timeout_s=30,
                       limits=Limits(memory_bytes=16 * GiB), runtime_options={"container_memory": "1500m"})
    checks = {c.name: c for c in by_id(run)["05_broadcast_bias"].checks}
    hog = checks["test_feature_bias_example"]
    assert hog.outcome == "failed", hog.message
    assert "out of memory" in hog.message, hog.message
    assert checks["test_sample_bias_example"].outcome == "passed"  # grading went on


def test_fork_bomb_is_stopped_by_the_pids_limit(image):
    run = docker_grade([ATTACKS / "forkbomb"], exercises=["05"], visibility="public", timeout_s=5,
                       runtime_options={"pids": 128})
    checks = {c.name: c for c in by_id(run)["05_broadcast_bias"].checks}
    assert checks["test_feature_bias_example"].outcome == "failed"
    assert "time limit 5 s exceeded" in checks["test_feature_bias_example"].message
    assert checks["test_sample_bias_example"].outcome == "passed"
    assert checks["test_pairwise_example"].outcome == "passed"


def test_hung_exercise_is_killed_while_others_are_graded(image):
    run = docker_grade([BAD / "hang_plus_correct"], exercises=["05", "10"], timeout_s=1)
    exercises = by_id(run)
    assert exercises["10_autograd_basics"].score == exercises["10_autograd_basics"].max_score == 10
    hung = [c for c in exercises["05_broadcast_bias"].checks if "time limit 1 s exceeded" in c.message]
    assert len(hung) >= 5


def test_nothing_is_left_running_or_lying_around(image):
    from grader.runtimes.docker import leftover_containers

    run_id = f"leftover-check-{uuid.uuid4().hex[:8]}"  # this test's own containers and folders only
    docker_grade([BAD / "segv"], exercises=["05"], visibility="public", timeout_s=5,
                 runtime_options={"run_id": run_id})
    assert leftover_containers(run_id) == []
    assert glob.glob(f"{tempfile.gettempdir()}/grader-docker-{run_id}-*") == []


def test_cli_docker_runtime_and_gpu_fallback(image, tmp_path):
    out = tmp_path / "r.json"
    result = CliRunner().invoke(cli, ["grade", str(ROOT / "solutions"), "--runtime", "docker", "--image", image,
                                      "--exercises", "05", "--json", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["score"] == report["max_score"] == 10
    env = report["environment"]
    assert env["runtime"] == "docker"
    if not env["gpus"]:
        assert env["gpu_summary"] == "graded without GPU"


def test_require_gpu_fails_instead_of_falling_back(image):
    result = CliRunner().invoke(cli, ["grade", str(ROOT / "solutions"), "--runtime", "docker", "--image", image,
                                      "-e", "05", "--require-gpu", "--quiet"])
    if result.exit_code == 0:
        pytest.skip("this machine's Docker daemon has a GPU")
    assert result.exit_code == 1
    assert "GPU" in result.output


def test_clear_error_without_a_daemon(monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    result = CliRunner().invoke(cli, ["grade", str(ROOT / "solutions"), "--runtime", "docker", "-e", "05"])
    assert result.exit_code == 1
    assert "Docker daemon not reachable" in result.output and "--runtime local" in result.output


def test_a_second_build_waits_for_the_first_and_reuses_its_image(image):
    """One build at a time per checkout (.ci/run builds while the tests start): a build that finds
    the lock held waits, then finds the image up to date instead of building it again."""
    import fcntl

    from grader.image import build_image

    done: list = []
    with open(ROOT / "docker" / "wheelhouse" / ".build.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # as a build in another process holds it
        thread = threading.Thread(target=lambda: done.append(build_image(root=ROOT, base_image=BASE, tag=image,
                                                                          log=lambda msg: None)))
        thread.start()
        thread.join(3)
        assert thread.is_alive() and not done, "the second build did not wait for the first"
    thread.join(60)
    assert done and done[0].skipped, done


def test_idle_openmp_threads_sleep_in_the_container(image):
    # as on the local runtime (tests/grading/test_speed.py): the container's judge, fork server and
    # workers wait passively (grader.runtimes.base.thread_env, passed in the container's environment)
    run = docker_grade([BAD / "spin"], exercises=["05"], visibility="public", timeout_s=30)
    message = next(c.message for c in by_id(run)["05_broadcast_bias"].checks if "spin:" in (c.message or ""))
    cpu, wall = (float(v) for v in message.split("spin: cpu ", 1)[1].split()[::2][:2])
    assert cpu < 0.5 * wall, f"the worker's idle OpenMP threads burnt {cpu:.3f} CPU-s in {wall:.3f} s"
