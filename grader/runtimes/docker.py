"""The docker runtime: one container per submission, from the grading image.

The container has no network, a read-only root, tmpfs for /tmp and the workers' scratch,
`cap_drop ALL` (plus SETUID/SETGID/CHOWN for the entry point to start the judge and the fork server
as two unprivileged users), `no-new-privileges`, and memory, pids and CPU limits. The submission is
mounted read-only; the judge writes results to a mounted folder that the CLI reads back as
size-capped JSON lines (never unpickled). A wall-clock limit is enforced from here by killing the
container; OOM kills are detected; logs are capped; containers are labelled and always removed.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from grader.errors import RuntimeUnavailable, UsageError
from grader.image import DEFAULT_TAG, docker_client
from grader.runtimes.base import Candidate, JudgeJob, JudgeOutput, Runtime, read_records, thread_env

LABEL = "torch-grader"
IMAGE_ROOT = "/opt/grader"
MAX_LOG = 20000
MAX_RESULTS = 64 << 20


@dataclass(frozen=True)
class GpuRequest:
    """--gpus: auto (a GPU when the daemon can give one), none, all, or device ids ("0,1")."""

    mode: str  # auto | none | all | ids
    ids: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> GpuRequest:
        text = (text or "auto").strip()
        if text in ("auto", "none", "all"):
            return cls(text)
        ids = tuple(part.strip() for part in text.split(","))
        if not all(part.isdigit() for part in ids):
            raise UsageError(f"invalid --gpus {text!r}: use auto, none, all, or device ids such as 0 or 0,1")
        return cls("ids", ids)

    def device_requests(self) -> list:
        import docker

        if self.mode == "none":
            return []
        if self.mode == "ids":
            return [docker.types.DeviceRequest(device_ids=list(self.ids), capabilities=[["gpu"]])]
        return [docker.types.DeviceRequest(count=-1, capabilities=[["gpu"]])]


def _gpu_unavailable(exc: Exception) -> bool:
    text = str(exc).lower()
    return "could not select device driver" in text or "nvidia" in text or "gpu" in text


def build_command(image: str | None) -> str:
    """The command that builds `image`: `grader image build`, with its --tag when not the default."""
    return "grader image build" if not image or image == DEFAULT_TAG else f"grader image build --tag {image}"


class DockerRuntime(Runtime):
    name = "docker"

    def __init__(self, image: str = DEFAULT_TAG, gpus: str = "auto", require_gpu: bool = False,
                 container_memory: str | None = None, cpus: float = 2.0, pids: int = 512,
                 scratch_size: str = "1g", run_id: str | None = None, allow_stale_image: bool = False):
        self.image = image
        self.gpus = GpuRequest.parse(gpus)
        self.require_gpu = require_gpu
        self.container_memory = container_memory
        self.cpus = cpus
        self.pids = pids
        self.scratch_size = scratch_size
        self.run_id = run_id or uuid.uuid4().hex[:12]  # labels every container of this runtime
        self.allow_stale_image = allow_stale_image
        self._cancelled = threading.Event()
        self.client = docker_client()
        import docker

        try:
            self.labels = self.client.images.get(image).labels or {}
        except docker.errors.ImageNotFound:
            raise RuntimeUnavailable(f"grading image {image!r} not found: build it with `{build_command(image)}` "
                                     f"(see docs/grading.md, 'Grading in Docker'), or use --runtime local") from None
        if require_gpu and self.gpus.mode == "none":
            raise UsageError("--require-gpu contradicts --gpus none")

    def check_image(self, root: Path) -> str | None:
        """Refuse an image not built from the checkout at `root` (its checks would differ from the
        ones here), unless allowed: then return a note for the report."""
        from grader.errors import StaleImage
        from grader.image import image_freshness

        why = image_freshness(self.labels, root)
        if why is None:
            return None
        if not self.allow_stale_image:
            raise StaleImage(f"grading image {self.image!r} is stale: {why}. Rebuild it with "
                             f"`{build_command(self.image)}`, "
                             f"or pass --allow-stale-image to grade with it anyway")
        return f"graded with a stale image ({self.image}): {why}"

    # --- one container per candidate --------------------------------------------------------------

    def run(self, job: JudgeJob, gpus: GpuRequest | None = None) -> JudgeOutput:
        """`gpus` overrides the runtime's --gpus for this job (batch grading pins one GPU per job)."""
        outputs = [self._run_guarded(job, cand, gpus or self.gpus) for cand in job.candidates]
        records = [r for out in outputs for r in out.records]
        errors = [out.error for out in outputs if out.error]
        notes = sorted({n for out in outputs for n in out.notes})
        return JudgeOutput(records=records, error="; ".join(errors) or None,
                           log="\n".join(out.log for out in outputs)[-MAX_LOG:], notes=notes,
                           protections=outputs[0].protections if outputs else [],
                           infrastructure=any(out.infrastructure for out in outputs))

    def cancel(self) -> None:
        """Remove every container of this runtime (its run label), from any thread."""
        self._cancelled.set()
        import docker

        for container in self.client.containers.list(all=True, filters={"label": f"{LABEL}.run={self.run_id}"}):
            try:
                container.remove(force=True)
            except docker.errors.APIError:
                pass

    def _run_guarded(self, job: JudgeJob, cand: Candidate, gpus: GpuRequest) -> JudgeOutput:
        """`_run_one`, with a container removed from outside (or by `cancel`) reported as an
        infrastructure error of this candidate instead of an exception."""
        import docker

        if self._cancelled.is_set():
            return JudgeOutput(records=[], error="grading was interrupted", infrastructure=True)
        try:
            return self._run_one(job, cand, gpus)
        except docker.errors.NotFound as exc:
            return JudgeOutput(records=[], error=f"the grading container disappeared while it ran ({exc})",
                               infrastructure=True)

    def _mounts(self, cand: Candidate) -> tuple[dict, callable]:
        """Bind mounts for the submission, and the host -> container path map."""
        root = Path(cand.root) if cand.root else None
        volumes: dict[str, dict] = {}
        if root is not None and root.is_dir():
            volumes[str(root)] = {"bind": "/submission", "mode": "ro"}
            for ex_id, entry in cand.files.items():  # modules generated from notebooks live outside it
                if entry.get("path") and not entry["path"].startswith(str(root) + os.sep):
                    volumes[entry["path"]] = {"bind": f"/generated/{ex_id}/{Path(entry['path']).name}", "mode": "ro"}
        else:  # a single file (or files without a common root): mount each file alone
            for ex_id, entry in cand.files.items():
                if entry.get("path"):
                    volumes[entry["path"]] = {"bind": f"/submission/{ex_id}/{Path(entry['path']).name}", "mode": "ro"}
        return volumes, root

    def _path_maps(self, job: JudgeJob, cand: Candidate) -> tuple[dict, Callable[[str], str], Callable[[str], str]]:
        """The submission's bind mounts, the host -> container map of its paths, and the map of the
        catalog's paths (always into the image's own copy)."""
        from grader.packs import image_path

        volumes, sub_root = self._mounts(cand)
        host_root = str(job.root)
        packs = {str(ex.pack.path): image_path(ex.pack) for ex in job.exercises if ex.pack is not None}

        def path_map(path: str) -> str:
            # The submission first: it may sit inside the grader's checkout (`grader grade solutions`).
            for host, mount in volumes.items():
                if path == host:
                    return mount["bind"]
            if sub_root is not None and path.startswith(str(sub_root) + os.sep):
                return "/submission" + path[len(str(sub_root)):]
            if path.startswith(host_root + os.sep):
                return IMAGE_ROOT + path[len(host_root):]
            if path == host_root:
                return IMAGE_ROOT
            return path

        def grader_map(path: str) -> str:
            # The checks always come from the image: in a candidate bundle the catalog's folders
            # lie inside the submission, whose copy has the public checks only. An exercise pack's
            # are in the image's /opt/grader/packs/<name> (`grader image build --pack`).
            for host, inside in packs.items():
                if path == host or path.startswith(host + os.sep):
                    return inside + path[len(host):]
            if path == host_root or path.startswith(host_root + os.sep):
                return IMAGE_ROOT + path[len(host_root):]
            return path_map(path)

        return volumes, path_map, grader_map

    def _run_one(self, job: JudgeJob, cand: Candidate, gpus: GpuRequest) -> JudgeOutput:
        import docker

        volumes, path_map, grader_map = self._path_maps(job, cand)
        with tempfile.TemporaryDirectory(prefix=f"grader-docker-{self.run_id}-") as tmp:
            out_dir = Path(tmp) / "out"
            out_dir.mkdir()
            # Only this candidate's exercises: a judge given an exercise none of its candidates has
            # (another submission's) used to stop at collection, leaving every check "not graded".
            mine = [ex for ex in job.exercises if ex.id in cand.files]
            single = JudgeJob(root=job.root, exercises=mine, candidates=[cand], test_files=job.test_files,
                              limits=job.limits, timeout_s=job.timeout_s, seed=job.seed, pytest_args=job.pytest_args,
                              capture_output=job.capture_output)
            spec = single.spec("/out/results.jsonl", "/scratch", path_map=path_map, grader_map=grader_map)
            spec.update({"host_uid": os.getuid(), "host_gid": os.getgid()})
            (out_dir / "spec.json").write_text(json.dumps(spec))
            volumes = {**volumes, str(out_dir): {"bind": "/out", "mode": "rw"}}
            memory = self.container_memory or f"{int(job.limits.memory_bytes / (1 << 20)) + 2048}m"
            kwargs = dict(
                image=self.image, command=["/out/spec.json"], detach=True, network_mode="none", read_only=True,
                tmpfs={"/tmp": "rw,nosuid,nodev,size=512m,mode=1777",
                       "/scratch": f"rw,nosuid,nodev,size={self.scratch_size},uid=10002,gid=10002,mode=0700"},
                cap_drop=["ALL"], cap_add=["SETUID", "SETGID", "CHOWN"], security_opt=["no-new-privileges"],
                mem_limit=memory, memswap_limit=memory, pids_limit=self.pids, nano_cpus=int(self.cpus * 1e9),
                # DataLoader workers share batches through /dev/shm (64 MB by default); its pages
                # count against the container's memory limit like any other
                shm_size=f"{max(256, int(job.limits.memory_bytes / (1 << 20)))}m", ipc_mode="private",
                volumes=volumes, labels={LABEL: "1", f"{LABEL}.run": self.run_id,
                                         f"{LABEL}.candidate": cand.label[:60]},
                # GRADER_LANDLOCK=0 turns the workers' Landlock off, as on hosts without it (tests
                # use it to check the container's own walls)
                environment={**{k: os.environ[k] for k in ("CUDA_VISIBLE_DEVICES", "GRADER_LANDLOCK") if os.environ.get(k)},
                             **thread_env()},
                user="0:0", log_config=docker.types.LogConfig(type="json-file", config={"max-size": "1m"}),
            )
            notes: list[str] = []
            requests = gpus.device_requests()
            container = None
            try:
                try:
                    container = self.client.containers.create(device_requests=requests, **kwargs)
                    container.start()
                except docker.errors.APIError as exc:
                    if container is not None:
                        container.remove(force=True)
                        container = None
                    if not requests or not _gpu_unavailable(exc):
                        raise
                    if self.require_gpu or self.gpus.mode != "auto":
                        raise RuntimeUnavailable(
                            f"GPUs were requested but the daemon cannot provide them ({exc.explanation or exc}): "
                            f"install the NVIDIA Container Toolkit and restart dockerd, or use --gpus none") from None
                    notes.append("no GPU available to Docker: graded on CPU")
                    container = self.client.containers.create(device_requests=[], **kwargs)
                    container.start()
                error = self._wait(container, job.wall_limit())
                container.reload()
                state = container.attrs["State"]
                if state.get("OOMKilled"):
                    notes.append("the container reached its memory limit and the kernel's OOM killer ended a process")
                    error = error or f"the container was OOM-killed (memory limit {memory})"
                log = container.logs(tail=200).decode(errors="replace")[-MAX_LOG:]
                code = state.get("ExitCode")
                records = read_records(out_dir / "results.jsonl", max_bytes=MAX_RESULTS)
                # killed from outside (docker kill, a daemon restart): not the candidate's doing
                killed = (error is None and code in (137, 143) and not state.get("OOMKilled")
                          and not any(r.get("type") == "finished" for r in records))
                if error is None and code not in (0, 1, 5):
                    error = f"the grading container exited with status {code}"
            finally:
                if container is not None:
                    left = _remove(container)
                    if left:
                        notes.append(left)
        env = next((r for r in records if r.get("type") == "environment"), {})
        if self.require_gpu and not env.get("cuda_available"):
            error = error or "--require-gpu: the container saw no CUDA device"
        notes += [r["message"] for r in records if r.get("type") == "note"]
        inner = [p for p in env.get("protections", []) if not p.startswith("no Landlock")]
        return JudgeOutput(records=records, error=error, log=log, notes=notes, infrastructure=killed, protections=[
            "container per submission", "no network", "read-only root", "cap_drop ALL", "no-new-privileges",
            f"memory {memory}", f"pids {self.pids}", f"cpus {self.cpus:g}", "judge and worker as separate users",
            "hidden checks unreadable by the worker", *inner])

    def _wait(self, container, limit: float) -> str | None:
        """Wait until the container exits (the daemon answers at once: no polling delay); kill it at
        the wall-clock limit (`wait(timeout=)` only stops waiting, it does not stop the container)."""
        import requests

        deadline = time.monotonic() + limit
        while True:
            remaining = deadline - time.monotonic()
            if remaining > 0:
                try:
                    container.wait(timeout=max(1.0, remaining))
                    return None
                except (requests.exceptions.ReadTimeout, requests.exceptions.ConnectionError):
                    pass
            container.reload()
            if container.status in ("exited", "dead"):
                return None
            if time.monotonic() > deadline:
                container.kill()
                return f"the grading container ran past its wall-clock limit of {limit:g} s and was killed"


def _remove(container, attempts: int = 5) -> str | None:
    """Remove a container of ours, retrying what a busy daemon refuses (a kill that has not yet
    seen the exit, a removal already in progress, a slow answer); None once it is gone, else a
    note saying which container is left and how to remove it."""
    import requests

    import docker

    why = ""
    for attempt in range(attempts):
        try:
            container.remove(force=True)
        except docker.errors.NotFound:
            return None
        except (docker.errors.APIError, requests.exceptions.RequestException) as exc:
            why = str(exc)
        try:
            container.reload()
        except docker.errors.NotFound:
            return None
        except (docker.errors.APIError, requests.exceptions.RequestException) as exc:
            why = why or str(exc)
        time.sleep(0.5 * (attempt + 1))
    return (f"container {container.name} could not be removed ({why[:200] or 'still present'}): "
            f"remove it with `docker rm -f {container.name}`")


def daemon_and_image_available(image: str = DEFAULT_TAG) -> dict | None:
    """For the default runtime of `grade`: the image's labels when a daemon answers and the image
    exists, else None."""
    try:
        client = docker_client()
        return client.images.get(image).labels or {}
    except Exception:  # noqa: BLE001
        return None


def leftover_containers(run_id: str | None = None) -> list[str]:
    """Containers of ours (of one run, given its id) still present: there must be none after a run."""
    client = docker_client()
    label = f"{LABEL}.run={run_id}" if run_id else LABEL
    return [c.name for c in client.containers.list(all=True, filters={"label": label})]
