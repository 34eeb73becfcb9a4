"""`sub`: what a check sees of the candidate's module.

`sub.f(x)` calls the candidate's `f` in a worker process started for this check (lazily, on first
use) and returns data or a remote handle. Extra attributes, which no exercise stub defines:

- `sub.probe(fn, *args, **kwargs)`: run trusted `fn(*args, **kwargs)` in the worker, next to the
  candidate's code (handles in the arguments become the real objects); the module itself is
  `sub.module` when passed as an argument. Probes observe; they never compute expected values.
- `sub.static`: the parsed source (`uses`, `loops_in`, `tampering`), in the judge.
- `sub.path`, `sub.source`, `sub.scratch` (the worker's scratch folder), `sub.output` (the tail of
  what the worker printed).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from grader.judge.static import StaticView
from grader.sandbox.client import CandidateImportError, Limits, Worker, WorkerFailure, Zygote
from grader.sandbox.codec import Ref
from grader.sandbox.handles import RemoteError, RemoteHandle, call_remote


class SubmissionProblem(AssertionError):
    """The candidate's file is missing, unreadable, or cannot be imported: the check fails."""


class Submission:
    def __init__(self, *, module_name: str, path: Path | None, problem: str | None, zygote: Zygote,
                 limits: Limits, seed: int, timeout_s: float, cuda: bool, import_failures: dict,
                 submission_root: str | None = None, landlock: bool = False, on_sandbox=None):
        self._module_name = module_name
        self._path = path
        self._problem = problem
        self._zygote = zygote
        self._limits = limits
        self._seed = seed
        self._timeout_s = timeout_s
        self._deadline = time.monotonic() + timeout_s
        self._cuda = cuda
        self._import_failures = import_failures  # shared per (candidate, exercise)
        self._submission_root = submission_root
        self._landlock = landlock
        self._on_sandbox = on_sandbox
        self._worker: Worker | None = None
        self._module: RemoteHandle | None = None
        self._static: StaticView | None = None

    # --- the candidate's file, read in the judge ---------------------------------------------------

    def _require_file(self) -> Path:
        if self._problem:
            raise SubmissionProblem(self._problem)
        assert self._path is not None
        return self._path

    @property
    def path(self) -> Path:
        return self._require_file()

    @property
    def source(self) -> str:
        return self.static.source

    @property
    def static(self) -> StaticView:
        if self._static is None:
            path = self._require_file()
            try:
                source = path.read_bytes().decode("utf-8")
            except UnicodeDecodeError as exc:
                raise SubmissionProblem(f"{path.name} is not valid UTF-8 ({exc.reason} at byte {exc.start}): "
                                        f"save it as UTF-8") from None
            view = StaticView(path, source)
            try:
                view.tree  # noqa: B018 - parsing is the point
            except SyntaxError as exc:
                raise SubmissionProblem(f"{path.name} has a syntax error at line {exc.lineno}: {exc.msg}") from None
            self._static = view
        return self._static

    # --- the worker ------------------------------------------------------------------------------

    @property
    def module(self) -> RemoteHandle:
        if self._module is None:
            self.static  # noqa: B018 - syntax and encoding problems are reported without a worker
            key = str(self._path)
            if key in self._import_failures:
                raise SubmissionProblem(self._import_failures[key])
            # The check's time starts with its first remote call, once the fork server is up:
            # its one-off start-up (importing torch) is not the candidate's time.
            self._zygote.ensure_ready()
            self._deadline = time.monotonic() + self._timeout_s
            worker = Worker(self._zygote, str(self._path), self._module_name, self._limits, seed=self._seed,
                            cuda=self._cuda, deadline=self._deadline, time_limit=self._timeout_s,
                            submission_root=self._submission_root, landlock=self._landlock)
            self._worker = worker
            try:
                try:
                    worker.start()
                finally:
                    if self._on_sandbox is not None and worker.sandbox is not None:
                        self._on_sandbox(worker.sandbox)
            except CandidateImportError as exc:
                message = f"importing {self._path.name} raised {exc}"
                tail = _last_lines(exc.traceback, 4)
                self._import_failures[key] = message + (f"\n{tail}" if tail else "")
                raise SubmissionProblem(self._import_failures[key]) from None
            except WorkerFailure as exc:
                self._import_failures[key] = f"importing {self._path.name} failed: {exc}"
                raise SubmissionProblem(self._import_failures[key]) from None
            self._module = RemoteHandle(worker, Ref(0, "module", self._module_name), self._module_name)
        return self._module

    @property
    def scratch(self) -> str:
        self.module  # noqa: B018
        assert self._worker is not None
        return self._worker.scratch

    @property
    def output(self) -> str:
        return self._worker.output if self._worker else ""

    def probe(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        module = self.module
        assert self._worker is not None
        args = tuple(module if a is self else a for a in args)
        name = getattr(fn, "__name__", "probe")
        return call_remote(self._worker, {"op": "probe", "fn": fn}, args, kwargs, what=f"probe {name}()")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        module = self.module
        try:
            return getattr(module, name)
        except RemoteError as exc:
            if exc.remote_type == "AttributeError":
                raise SubmissionProblem(f"{self._module_name}.py defines no `{name}`: "
                                        f"keep the stub's names and signatures") from None
            raise

    def close(self) -> None:
        if self._worker is not None:
            self._worker.kill(detach=True)  # the check is over: how the worker ends changes nothing

    def __repr__(self) -> str:
        return f"<submission {self._module_name} at {self._path}>"


def _last_lines(text: str, n: int) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return "\n".join(lines[-n:])
