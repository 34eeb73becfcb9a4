"""Runtimes: where the judge runs. `local` (subprocesses here) and `docker` (one container per
submission). Pick one with `get_runtime(name)`."""

from __future__ import annotations

from grader.runtimes.base import JudgeJob, JudgeOutput, Runtime


def get_runtime(name: str, **options) -> Runtime:
    if name == "local":
        from grader.runtimes.local import LocalRuntime

        return LocalRuntime(**options)
    from grader.errors import UsageError

    raise UsageError(f"unknown runtime {name!r}: use local")


__all__ = ["JudgeJob", "JudgeOutput", "Runtime", "get_runtime"]
