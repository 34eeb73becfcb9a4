"""`grader image build`: the grading image, built through the Docker SDK.

The build context is assembled here: docker/Dockerfile, a wheelhouse with every Python dependency
(filled with `pip download` on the host, plus a wheel of the grader), and grader-root/ with the
constraints, the exercises (hidden checks included) and the reference solutions. The image is
labelled with a hash of everything that goes into it; a rebuild is skipped when nothing changed.
"""

from __future__ import annotations

import fcntl
import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from grader.errors import GraderError, RuntimeUnavailable, UsageError

DEFAULT_TAG = "torch-grader:latest"
CONTEXT_LABEL = "torch-grader.context"
SOURCES_LABEL = "torch-grader.sources"  # the grader, exercises and solutions only (no base image)


def default_base_image(root: Path) -> str:
    match = re.search(r"^ARG BASE_IMAGE=(\S+)", (root / "docker" / "Dockerfile").read_text(), re.MULTILINE)
    return match.group(1) if match else "pytorch/pytorch:latest"


@dataclass(frozen=True)
class BuildResult:
    tag: str
    image_id: str
    skipped: bool
    context_hash: str


def _sources(root: Path) -> list[Path]:
    files = [root / "pyproject.toml", root / "constraints.txt", root / "docker" / "Dockerfile"]
    for folder in ("grader", "exercises", "solutions"):
        files += sorted(p for p in (root / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return files


def context_hash(root: Path, base_image: str) -> str:
    digest = hashlib.sha256(base_image.encode())
    for path in _sources(root):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


def sources_hash(root: Path) -> str:
    """What a grading image built from `root` grades with: the grader, exercises and solutions."""
    digest = hashlib.sha256()
    for path in _sources(root):
        if path.is_file():
            digest.update(str(path.relative_to(root)).encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


def image_freshness(image_labels: dict, root: Path, packs: list | None = None) -> str | None:
    """None when an image with these labels was built from the checkout at `root`; otherwise why
    not. A checkout without solutions (a candidate bundle) cannot be compared: the image is the
    authority there, and None is returned. The exercise packs in use (`packs`; None: the root's own
    and those of --pack / $GRADER_PACKS) must be in the image as they are here (grader.packs)."""
    from grader.packs import active_packs, pack_freshness

    why = pack_freshness(image_labels or {}, active_packs(root) if packs is None else packs)
    if why is not None:
        return why
    if not (root / "solutions").is_dir() or not (root / "docker" / "Dockerfile").is_file():
        return None
    built = (image_labels or {}).get(SOURCES_LABEL)
    if built is None:
        return "it carries no sources label (built by an older grader), so it cannot be compared with this checkout"
    if built != sources_hash(root):
        return "it was built from other exercises, solutions or grader code than this checkout's"
    return None


def runtime_requirements(root: Path) -> list[str]:
    """The grader's dependencies and its `exercises` extra (what checks use beyond torch)."""
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    return [*project["dependencies"], *project.get("optional-dependencies", {}).get("exercises", [])]


def fill_wheelhouse(root: Path, wheelhouse: Path, log: Callable[[str], None] = print, refresh: bool = False) -> None:
    """Every runtime dependency as a wheel (torch pinned by constraints.txt), and the grader.

    Dependencies the wheelhouse already satisfies are not asked of the package index again (that
    took 10 s of every rebuild): the image keeps the versions it was first built with until a
    requirement changes or `refresh` (`grader image build --force`) asks the index for newer ones."""
    wheelhouse.mkdir(parents=True, exist_ok=True)
    for old in wheelhouse.glob("torch_grader-*.whl"):
        old.unlink()
    download = [sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:", "-d", str(wheelhouse),
                "-c", str(root / "constraints.txt"), *runtime_requirements(root)]

    def dependencies() -> None:
        if not refresh and any(wheelhouse.glob("*.whl")):
            try:
                _run([*download, "--no-index", "--find-links", str(wheelhouse)])
                return
            except GraderError:  # a requirement the wheelhouse lacks: ask the index
                pass
        log(f"filling {wheelhouse} with pip download")
        _run(download)

    # the dependencies (mostly waiting on the index) beside the grader's own wheel
    with ThreadPoolExecutor(2) as pool:
        steps = [pool.submit(dependencies),
                 pool.submit(_run, [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheelhouse),
                                    str(root)])]
        for step in steps:
            step.result()
    shutil.copy(root / "constraints.txt", wheelhouse / "constraints.txt")


def _run(cmd: list[str]) -> None:
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise GraderError(f"{' '.join(cmd[:5])} ... failed:\n{result.stderr[-2000:]}")


def docker_client():
    try:
        import docker

        client = docker.from_env(timeout=600)
        client.ping()
        return client
    except Exception as exc:  # noqa: BLE001 - any failure to reach the daemon means the same to the user
        raise RuntimeUnavailable(
            f"Docker daemon not reachable ({exc.__class__.__name__}: {exc}): start it (e.g. `dockerd &`), "
            f"set DOCKER_HOST, or use --runtime local") from None


def _base_torch(client, base_image: str) -> str | None:
    """The torch version already installed in the base image, if any."""
    try:
        out = client.containers.run(base_image, ["python3", "-c", "import torch; print(torch.__version__)"],
                                    remove=True, network_mode="none", entrypoint=[])
        return out.decode().strip().split("+")[0]
    except Exception:  # noqa: BLE001
        return None


def build_image(*, root: Path, base_image: str | None = None, tag: str = DEFAULT_TAG, force: bool = False,
                log: Callable[[str], None] = print, packs: list | None = None) -> BuildResult:
    """Build the grading image `tag` from the checkout at `root`, unless an image of that tag was
    built from the same context (then it is reused). One build at a time per checkout: a second
    process (tests started while .ci/run still builds, another terminal) waits for the first and
    then finds the image up to date. `packs` (exercise pack folders; None: --pack / $GRADER_PACKS,
    and `root` itself when it is a pack) go in too, hidden checks and solutions included."""
    from grader.packs import image_packs

    root, packs = image_packs(root, packs)
    if not (root / "docker" / "Dockerfile").is_file() or not (root / "solutions").is_dir():
        raise UsageError(f"{root} has no docker/Dockerfile or solutions/: the grading image is built from the "
                         f"grader's own repository (which holds the hidden checks and reference solutions), not "
                         f"from a candidate bundle. Candidates: check your work with `grader check`")
    wheelhouse = root / "docker" / "wheelhouse"
    wheelhouse.mkdir(parents=True, exist_ok=True)
    with open(wheelhouse / ".build.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if this process dies
        return _build_image(root, wheelhouse, base_image, tag, force, log, packs)


def _build_image(root: Path, wheelhouse: Path, base_image: str | None, tag: str, force: bool,
                 log: Callable[[str], None], packs: list = ()) -> BuildResult:
    import docker
    from grader.packs import copy_into_image, pack_labels

    client = docker_client()
    base_image = base_image or default_base_image(root)
    digest = context_hash(root, base_image)
    labels = pack_labels(packs)
    if labels:  # the packs' hashes make part of the context
        digest = hashlib.sha256((digest + "".join(f"{k}={v}" for k, v in sorted(labels.items()))).encode()).hexdigest()[:32]
    try:
        existing = client.images.get(tag)
        if not force and existing.labels.get(CONTEXT_LABEL) == digest:
            log(f"{tag} is up to date ({digest}): nothing to rebuild")
            return BuildResult(tag, existing.id, True, digest)
    except docker.errors.ImageNotFound:
        pass
    try:
        client.images.get(base_image)
    except docker.errors.ImageNotFound:
        log(f"base image {base_image} is not here: the daemon will pull it (offline: docker/build-offline-base.sh)")
    with ThreadPoolExecutor(1) as pool:  # asking the base for its torch (a container, 2 s) meanwhile
        base_torch = pool.submit(_base_torch, client, base_image)
        fill_wheelhouse(root, wheelhouse, log, refresh=force)
        pinned = next((line.split("==")[1].strip() for line in (root / "constraints.txt").read_text().splitlines()
                       if line.startswith("torch==")), None)
        skip_torch = pinned is not None and base_torch.result() == pinned.split("+")[0]
    with tempfile.TemporaryDirectory(prefix="grader-image-") as tmp:
        ctx = Path(tmp)
        shutil.copy(root / "docker" / "Dockerfile", ctx / "Dockerfile")
        # The dependencies and the grader apart: the layer that installs the dependencies (40 s)
        # stays in Docker's cache while they do not change, and a change to the grader rebuilds
        # only the layer of its own wheel (see docker/Dockerfile).
        (ctx / "wheelhouse").mkdir()
        (ctx / "grader-wheel").mkdir()
        for wheel in sorted(wheelhouse.iterdir()):
            if wheel.name.startswith("."):
                continue  # the build lock
            if skip_torch and wheel.name.startswith("torch-"):
                continue  # the base already has the pinned torch: do not ship 200 MB again
            shutil.copy(wheel, ctx / ("grader-wheel" if wheel.name.startswith("torch_grader-") else "wheelhouse") / wheel.name)
        (ctx / "wheelhouse" / "requirements.txt").write_text("\n".join(runtime_requirements(root)) + "\n")
        gr = ctx / "grader-root"
        gr.mkdir()
        shutil.copy(root / "constraints.txt", gr / "constraints.txt")
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
        shutil.copytree(root / "exercises", gr / "exercises", ignore=ignore)
        shutil.copytree(root / "solutions", gr / "solutions", ignore=ignore)
        copy_into_image(packs, gr, log)  # grader-root/packs/<name>: read by the judge only, like the above
        log(f"building {tag} from {base_image}")
        try:
            image, _ = client.images.build(path=str(ctx), tag=tag, buildargs={"BASE_IMAGE": base_image},
                                           labels={CONTEXT_LABEL: digest, SOURCES_LABEL: sources_hash(root), **labels},
                                           rm=True, forcerm=True, pull=False)
        except docker.errors.BuildError as exc:
            tail = "".join(str(chunk.get("stream", chunk.get("error", ""))) for chunk in exc.build_log)[-3000:]
            raise GraderError(f"building {tag} failed: {exc.msg}\n{tail}") from None
        except docker.errors.APIError as exc:
            raise GraderError(f"building {tag} failed: {exc.explanation or exc}") from None
    log(f"built {tag} ({image.short_id})")
    return BuildResult(tag, image.id, False, digest)
