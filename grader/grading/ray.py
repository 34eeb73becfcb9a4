"""`--runtime ray`: the executor that grades one Ray task per submission, each running the docker (or local) runtime on the
node it lands on. Optional: `pip install 'torch-grader[ray]'`.

- The driver (`grader grade`) connects with `ray.init(address=...)` (auto, ray://host:10001 or
  host:6379) and ships each submission's bytes with its task (a folder as a tar.gz), so nodes need
  no shared file system; every node needs torch-grader installed, and for the docker node runtime
  the grading image (checked at task start: a node without it fails that task with a clear error).
- Exercise packs (grader.packs) travel with each task as a tar.gz and are unpacked once per node
  and content (a cache in the node's temporary folder); the docker node runtime finds them in the
  grading image (`grader image build --pack`), as on the driver.
- Resources are declared per task: 1 CPU, the worker's memory limit plus the judge's overhead, and
  1 GPU for submissions graded with a GPU when the cluster has GPUs (Ray then pins the container
  to the task's GPU ids).
- A task lost with its node or worker process is retried once (`max_retries=1`); one that fails
  twice is reported as that submission's infrastructure error, never dropped. Results stream back
  as they finish (`ray.wait`), into --results-dir like any batch.
- On Ctrl-C / SIGTERM the pending tasks are cancelled (KeyboardInterrupt in the task: the judge's
  process group is killed, the container removed) and the finished results are reported.
"""

from __future__ import annotations

import io
import os
import socket
import tarfile
import tempfile
import threading
import time
from pathlib import Path

from grader.errors import GraderError, RuntimeUnavailable, UsageError

MAX_RETRIES = 1  # a submission is tried at most twice on Ray


def _import_ray():
    try:
        import ray
    except ImportError:
        raise RuntimeUnavailable("--runtime ray needs Ray: pip install 'torch-grader[ray]'") from None
    return ray


def pack(path: Path) -> tuple[str, bytes]:
    """(file name, bytes) that `unpack` turns back into the submission on a node: a folder is
    packed as a tar.gz (regular files and folders only; links are left out, as grading refuses
    them), an archive or .py file is sent as it is."""
    path = Path(path)
    if not path.exists():
        raise UsageError(f"submission not found: {path}")
    if path.is_dir():
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            for dirpath, dirnames, filenames in os.walk(path):
                dirnames.sort()
                for name in sorted(filenames):
                    full = Path(dirpath) / name
                    if full.is_symlink() or not full.is_file():
                        continue
                    tar.add(full, arcname=full.relative_to(path).as_posix(), recursive=False)
        return path.name + ".tar.gz", buf.getvalue()
    return path.name, path.read_bytes()


_LOCAL: dict[bool, object] = {}


def _node_local_runtime(shared: bool = True):
    """The local runtime of this Ray worker process, kept from task to task. Its judges are forked
    from the node's shared judge template (grader.runtimes.template_shared), which imports torch
    once for every Ray worker of the node and every job that comes to it, not once per worker, and
    ends itself once idle (GRADER_TEMPLATE_IDLE_S). `shared=False` (GRADER_SHARED_TEMPLATES=0 where
    the batch is started): a template of this Ray worker's own."""
    if shared not in _LOCAL:
        from grader.runtimes import get_runtime

        _LOCAL[shared] = get_runtime("local", shared_templates=shared)
    return _LOCAL[shared]


def _grade_on_node(name: str, payload: bytes, label: str, spec: dict) -> dict:
    """The Ray task: unpack the submission, grade it with the node's runtime, return the stored form."""
    from grader.catalog import require_hidden_tests
    from grader.grading.options import GradeOptions
    from grader.grading.submission import Context, WorkItem, grade_one
    from grader.packs import catalog_on_node
    from grader.runtimes import get_runtime
    from grader.runtimes.docker import GpuRequest
    from grader.sandbox.limits import Limits

    node = socket.gethostname()
    options = GradeOptions(exercises=spec["exercises"], runtime=spec["node_runtime"], visibility=spec["visibility"],
                           timeout_s=spec["timeout_s"], limits=Limits(**spec["limits"]), seed=spec["seed"])
    catalog = catalog_on_node(spec.get("packs", []))  # the exercise packs shipped with the task, unpacked here
    ctx = Context.of(options, catalog)
    try:
        if spec["node_runtime"] == "docker":
            runtime = get_runtime("docker", **spec["runtime_options"])
        else:
            if options.visibility != "public":
                require_hidden_tests(ctx.selected, "Install torch-grader from its repository on every node, or "
                                                   "use --node-runtime docker.")
            runtime = _node_local_runtime(spec.get("shared_templates", True))
    except GraderError as exc:
        raise RuntimeUnavailable(f"on Ray node {node}: {exc}") from None
    extra: dict = {}
    if runtime.name == "docker":
        import ray

        gpu_ids = [str(i) for i in ray.get_gpu_ids()]
        extra = {"gpus": GpuRequest("ids", tuple(gpu_ids))} if gpu_ids else {}
    with tempfile.TemporaryDirectory(prefix="grader-ray-") as tmp:
        path = Path(tmp) / name
        path.write_bytes(payload)
        item = WorkItem(0, path, label)

        import contextlib

        try:
            graded = grade_one(item, ctx, runtime, (lambda _ex: contextlib.nullcontext(extra)) if extra else None)
        finally:
            if runtime.name != "local":  # the local one is kept for this Ray worker's next task
                runtime.close()
    graded.environment["node"] = node
    return graded.to_dict("")


class RayExecutor:
    """The executor for --runtime ray (the contract of grader.grading.executors)."""

    def __init__(self, ctx):
        self.ray = ray = _import_ray()
        self.ctx = ctx
        self.options = options = ctx.options
        address = options.address or os.environ.get("RAY_ADDRESS") or "auto"
        self._owned = not ray.is_initialized()  # connected here: disconnected after the batch
        try:
            # before the batch's signal handlers: ray.init replaces the driver's SIGTERM handler
            ray.init(address=address, log_to_driver=False, logging_level="WARNING", ignore_reinit_error=True)
        except (ConnectionError, ValueError, RuntimeError) as exc:
            raise RuntimeUnavailable(f"cannot reach the Ray cluster at {address!r} ({exc}): start one with "
                                     f"`ray start --head`, or give its address with --address") from None
        self._cancelled = threading.Event()
        resources = ray.cluster_resources()
        from grader.grading.executors import uses_gpu
        from grader.grading.options import PER_JOB_OVERHEAD

        wants_gpu = resources.get("GPU", 0) > 0 and uses_gpu(ctx.selected)
        self.task = ray.remote(_grade_on_node).options(
            num_cpus=1, num_gpus=1 if wants_gpu else 0, memory=self.options.limits.memory_bytes + PER_JOB_OVERHEAD,
            max_retries=MAX_RETRIES, retry_exceptions=False, name="grade-submission")
        self.in_flight = options.jobs or max(2, int(resources.get("CPU", 1)) * 2)

    def version_tag(self) -> str:
        image = self.options.runtime_options.get("image", "")
        node_runtime = self.options.node_runtime
        return f"ray/{node_runtime}/{image if node_runtime == 'docker' else ''}"

    def cancel(self) -> None:
        self._cancelled.set()

    def _spec(self) -> dict:
        from dataclasses import asdict

        o = self.options
        runtime_options = {k: v for k, v in o.runtime_options.items() if k in ("image", "gpus", "require_gpu")}
        from grader.packs import shipped

        return {"exercises": o.exercises, "node_runtime": o.node_runtime, "visibility": o.visibility,
                "packs": shipped(self.ctx.catalog),  # exercise packs travel with each task (small: no data sets)
                "timeout_s": o.timeout_s, "limits": asdict(o.limits), "seed": o.seed,
                "runtime_options": runtime_options,
                "shared_templates": os.environ.get("GRADER_SHARED_TEMPLATES", "1") != "0"}

    def run(self, items, begun, done) -> None:
        from grader.results import SubmissionResult
        from grader.resultstore import Graded

        ray = self.ray
        spec = self._spec()
        queue = list(items)
        pending: dict = {}  # ObjectRef -> item
        try:
            while (queue or pending) and not self.ctx.stop.is_set():
                while queue and len(pending) < self.in_flight:
                    item = queue.pop(0)
                    try:
                        name, payload = pack(item.path)
                    except (OSError, GraderError) as exc:
                        done(item, Graded(SubmissionResult(item.label, str(item.path), (), error=str(exc))))
                        continue
                    pending[self.task.remote(name, payload, item.label, spec)] = item
                    begun(item)
                if not pending:
                    continue
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.2)
                for ref in ready:
                    item = pending.pop(ref)
                    done(item, self._collect(ref, item))
        finally:
            if pending:
                self.ctx.stop.set()
                for ref in pending:
                    ray.cancel(ref, force=False)  # KeyboardInterrupt in the task: judge killed, container removed
                deadline = time.monotonic() + 20
                left = list(pending)
                while left and time.monotonic() < deadline:
                    _, left = ray.wait(left, num_returns=len(left), timeout=1)
            if self._cancelled.is_set():
                self.ctx.stop.set()
            if self._owned:
                ray.shutdown()

    def _collect(self, ref, item):
        from grader.results import SubmissionResult
        from grader.resultstore import Graded

        ray = self.ray
        try:
            graded = Graded.from_dict(ray.get(ref))
            graded.resumed = False
            graded.submission = _with_path(graded.submission, str(Path(item.path).resolve()))
            return graded
        except ray.exceptions.RayTaskError as exc:  # the task raised: a clear error of this submission
            cause = exc.cause if getattr(exc, "cause", None) is not None else exc
            message = str(cause) if isinstance(cause, GraderError) else f"grading failed on Ray: {cause}"
            return Graded(SubmissionResult(item.label, str(item.path), (), error=message))
        except ray.exceptions.RayError as exc:  # the worker or node was lost, twice
            return Graded(SubmissionResult(item.label, str(item.path), (), error=(
                f"infrastructure error (tried {MAX_RETRIES + 1} times on Ray): {type(exc).__name__}: "
                f"{str(exc).splitlines()[0] if str(exc) else ''}")), infrastructure=True)


def _with_path(sub, path: str):
    from dataclasses import replace

    return replace(sub, path=path)
