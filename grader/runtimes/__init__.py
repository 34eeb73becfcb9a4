"""Runtimes: where the judge runs. `local` (subprocesses here) and `docker` (one container per
submission). Pick one with `get_runtime(name)`."""

from __future__ import annotations

from grader.runtimes.base import JudgeJob, JudgeOutput, Runtime


def get_runtime(name: str, **options) -> Runtime:
    if name == "local":
        from grader.runtimes.local import LocalRuntime

        return LocalRuntime(**options)
    if name == "docker":
        from grader.runtimes.docker import DockerRuntime

        return DockerRuntime(**options)
    from grader.errors import UsageError

    raise UsageError(f"unknown runtime {name!r}: use local or docker")


def resolve_runtime(name: str, image: str | None = None, root=None, allow_stale_image: bool = False) -> tuple[str, str | None]:
    """`auto` -> docker when a daemon answers and the grading image exists (and, given the
    checkout's `root`, was built from it), else local (with a warning to show). Returns (runtime
    name, warning or None)."""
    if name != "auto":
        return name, None
    if root is not None and _candidate_bundle(root):
        # the grading image holds another tree's hidden checks: only an explicit --runtime docker
        # grades with them; the local runtime says that the hidden checks are not here (exit 2)
        return "local", None
    from grader.image import DEFAULT_TAG
    from grader.runtimes.docker import build_command, daemon_and_image_available

    labels = daemon_and_image_available(image or DEFAULT_TAG)
    if labels is not None:
        from grader.image import image_freshness

        stale = None if root is None or allow_stale_image else image_freshness(labels, root)
        if stale is None:
            return "docker", None
        return "local", (f"the grading image {image or DEFAULT_TAG} is stale ({stale}): grading on the local "
                         f"runtime, which does not hide hidden checks or solutions from the submission "
                         f"(rebuild the image with `{build_command(image)}`)")
    return "local", ("no Docker daemon with the grading image here: grading on the local runtime, which does "
                     "not hide hidden checks or solutions from the submission (build the image with "
                     f"`{build_command(image)}`)")


def _candidate_bundle(root) -> bool:
    """A tree made by `grader export`: no solutions/ and no test_hidden.py (grader.roots.Root.is_bundle)."""
    from pathlib import Path

    root = Path(root)
    return not (root / "solutions").is_dir() and next((root / "exercises").glob("*/*/test_hidden.py"), None) is None


__all__ = ["JudgeJob", "JudgeOutput", "Runtime", "get_runtime"]
