"""The grader's own exception types and exit codes.

Engine code raises `GraderError` subclasses; only the CLI turns them into messages and exit codes.
"""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    OK = 0  # graded, whatever the score
    ERROR = 1  # grader or infrastructure error
    USAGE = 2  # bad command line or bad input
    UNDER_THRESHOLD = 3  # score under --fail-under (or, for `check`, a public check failed)
    INTERRUPTED = 130  # Ctrl-C or SIGTERM: what finished is reported, the rest is not graded


class GraderError(Exception):
    """Base class: a problem the user can act on. `exit_code` says how the CLI exits."""

    exit_code: ExitCode = ExitCode.ERROR


class UsageError(GraderError):
    """The user asked for something that cannot be done (bad path, unknown exercise...)."""

    exit_code = ExitCode.USAGE


class ExerciseDefinitionError(GraderError):
    """An exercise folder is malformed (bad exercise.toml, missing files)."""


class SubmissionError(UsageError):
    """A submission cannot be opened at all (corrupt archive, path escape, empty)."""


class RuntimeUnavailable(GraderError):
    """The requested runtime cannot run here (no Docker daemon, no image)."""


class StaleImage(GraderError):
    """The grading image was not built from this checkout (its checks may differ)."""

class Interrupted(GraderError):
    """Grading stopped on SIGINT / SIGTERM; `run` holds the submissions that finished."""

    exit_code = ExitCode.INTERRUPTED

    def __init__(self, message: str, run=None):
        super().__init__(message)
        self.run = run
