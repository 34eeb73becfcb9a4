"""`sub`: what a check sees of the candidate's module.

`sub.f(x)` calls the candidate's `f` in a worker process started for this check (lazily, on first
use) and returns data or a remote handle. Extra attributes, which no exercise stub defines:

- `sub.probe(fn, *args, **kwargs)`: run trusted `fn(*args, **kwargs)` in the worker, next to the
  candidate's code (handles in the arguments become the real objects); the module itself is
  `sub.module` when passed as an argument. Probes observe; they never compute expected values.
- `sub.read_file(path)` / `sub.write_file(path, data)`: bytes of a file in the worker's scratch
  folder (size-capped) / a file put there; `sub.verify(fn, *args)`: run trusted `fn` in the
  verifier worker, which never imports the submission, on such bytes; plain data back.
- `sub.measure_memory(fn, *args)`: (result, peak growth of the worker's resident memory in bytes)
  for one call, measured from outside the worker (its fork server reads /proc).
- `sub.static`: the parsed source (`uses`, `loops_in`, `tampering`), in the judge.
- `sub.path`, `sub.source`, `sub.scratch` (the worker's scratch folder), `sub.output` (the tail of
  what the worker printed).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from grader.judge import canary
from grader.judge import source as source_module
from grader.judge.static import StaticView
from grader.sandbox.client import CandidateImportError, Limits, Worker, WorkerFailure, Zygote, backstop_s
from grader.sandbox.codec import Ref
from grader.sandbox.cputime import CpuSample, cores
from grader.sandbox.handles import RemoteError, RemoteHandle, call_remote, remote_exception


class SubmissionProblem(AssertionError):
    """The candidate's file is missing, unreadable, or cannot be imported: the check fails."""


class Submission:
    def __init__(self, *, module_name: str, path: Path | None, problem: str | None, zygote: Zygote,
                 limits: Limits, seed: int, timeout_s: float, cuda: bool, import_failures: dict,
                 submission_root: str | None = None, landlock: bool = False, on_sandbox=None, on_tamper=None,
                 profile: str = "restricted", network: str = "loopback"):
        self._module_name = module_name
        self._path = path
        self._problem = problem
        self._zygote = zygote
        self._limits = limits
        self._seed = seed
        self._timeout_s = timeout_s  # CPU seconds of the worker's tree; the wall clock has a backstop
        self._deadline = time.monotonic() + backstop_s(timeout_s)
        self._cuda = cuda
        self._import_failures = import_failures  # shared per (candidate, exercise)
        self._submission_root = submission_root
        self._landlock = landlock
        self._on_sandbox = on_sandbox
        self._on_tamper = on_tamper  # called with a message when tampering is detected
        self._profile = profile
        self._network = network
        self._worker: Worker | None = None
        self._verifier: Worker | None = None
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
                view = _parsed(path, source_module.read(path))
            except source_module.SourceProblem as exc:
                raise SubmissionProblem(str(exc)) from None
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
            self._deadline = time.monotonic() + backstop_s(self._timeout_s)
            worker = Worker(self._zygote, str(self._path), self._module_name, self._limits, seed=self._seed,
                            cuda=self._cuda, deadline=self._deadline, time_limit=self._timeout_s,
                            submission_root=self._submission_root, landlock=self._landlock,
                            profile=self._profile, network=self._network)
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
        """Run trusted `fn(*args, **kwargs)` in the worker and return its answer (data). Canaries
        (`grader.judge.canary`) travel with it: a wrong one fails the check and zeroes the exercise."""
        return self._probe(fn, args, kwargs)[0]

    def timed(self, fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
        """`probe`, and the seconds it took, measured by the judge's own clock around the request
        (the worker's answer and its decoding included; the canaries not). A worker can only make
        this longer, never shorter: perf checks use it, never a clock read inside the worker."""
        answer, seconds, _ = self._probe(fn, args, kwargs)
        return answer, seconds

    def cpu_timed(self, fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
        """`probe`, and the CPU seconds the worker's process tree spent on it, read by the judge
        from /proc before and after (grader.sandbox.cputime): the busiest thread's time or the
        whole tree's over the cores, whichever is longer, i.e. about what an idle machine's wall
        clock shows, whatever the load. A perf check with an absolute limit uses this, never
        `timed` (wall time moves with the load); the worker can only make it longer."""
        answer, _, used = self._probe(fn, args, kwargs, cpu=True)
        return answer, used.effective_s(cores())

    @property
    def cpu_seconds(self) -> float:
        """The CPU the check's workers used, as `cpu_timed` counts it (what the exercise's time
        budget is charged, with the judge's own)."""
        return sum(w.cpu_used.effective_s(cores()) for w in (self._worker, self._verifier) if w is not None)

    def restart(self) -> None:
        """End the check's workers: the next remote call starts a fresh one (a check graded again)."""
        self.close()
        self._worker = self._verifier = self._module = None

    def _probe(self, fn: Any, args: tuple, kwargs: dict, cpu: bool = False) -> tuple[Any, float, CpuSample | None]:
        module = self.module
        assert self._worker is not None
        args = tuple(module if a is self else a for a in args)
        what = f"probe {getattr(fn, '__name__', 'probe')}()"
        before, after = canary.schedule()
        for _ in range(before):
            self._canary(fn, canary.plan_for(canary.template(fn)), args, kwargs, what)
        cpu_before = self._worker.read_cpu() if cpu else None
        start = time.perf_counter()
        try:
            answer = call_remote(self._worker, {"op": "probe", "fn": fn}, args, kwargs, what=what)
        except RemoteError as exc:
            if exc.remote_type == "TamperingDetected":
                self._tampered(f"the worker's own guard found replaced functions ({str(exc)[:300]})")
            raise
        seconds = time.perf_counter() - start
        used = None
        if cpu_before is not None:
            cpu_after = self._worker.read_cpu()
            used = CpuSample(cpu_after.total_s - cpu_before.total_s, cpu_after.busiest_s - cpu_before.busiest_s)
        canary.remember(fn, answer)
        twin = canary.plan_for(answer)
        for _ in range(after):
            self._canary(fn, twin, args, kwargs, what)
            twin = canary.flipped(twin[0])
        return answer, seconds, used

    def _canary(self, real: Any, planned: tuple[Any, Any], args: tuple, kwargs: dict, what: str) -> None:
        plan, expected = planned
        try:
            got = call_remote(self._worker, {"op": "probe", "fn": canary.disguised(real, plan)}, args, kwargs,
                              what=what)
        except RemoteError as exc:
            if exc.remote_type == "MemoryError":
                raise
            self._tampered(f"a canary probe raised {exc.remote_type}")
        if not canary.same(got, expected):
            self._tampered("a canary probe (a question whose answer the judge knows, sent like this check's own "
                           "probes) came back wrong")

    def _tampered(self, why: str) -> None:
        message = (f"tampering detected: {why}. The worker's torch, numpy or request handling was changed, so "
                   f"nothing observed in it can be trusted: this exercise scores 0")
        if self._on_tamper is not None:
            self._on_tamper(message)
        raise canary.CanaryMismatch(message)

    def measure_memory(self, fn: Any, *args: Any, count_held: bool = False, **kwargs: Any) -> tuple[Any, int]:
        """Call `fn` (the candidate's, e.g. `sub.pairwise_sq_dists`) and return (its result, the
        memory the call needed, in bytes): the growth of the worker's resident memory at its peak
        during the call, plus what every process it started wrote (their page faults: children
        that have exited by the end count too) and what its live descendants hold beyond what
        they held before.

        `count_held`: count the memory held before the call as well, i.e. the worker's peak above
        a worker that has done nothing (its fork server's resident size), and all its
        descendants hold. Use it where a solution needs no memory kept from earlier (a pure
        function): memory touched at import and released inside the call (ballast), or a buffer
        filled in place, would otherwise hide what the call writes.

        Measured from outside the worker: its fork server resets the peak-RSS mark
        (/proc/PID/clear_refs) right before the call and reads VmHWM right after, so nothing the
        candidate patches in the worker changes the figure. It includes decoding the arguments
        and encoding the result."""
        self.module  # noqa: B018 - the worker exists
        assert self._worker is not None and self._worker.pid is not None
        before = self._zygote.peak_memory(self._worker.pid, reset=True)
        if "error" in before:
            raise RuntimeError(f"memory could not be measured: {before['error']}")
        result = fn(*args, **kwargs)
        after = self._zygote.peak_memory(self._worker.pid) if self._worker.pid is not None else {"error": "worker gone"}
        if "error" in after:
            raise RuntimeError(f"memory could not be measured: {after['error']}")
        children = max(0, after["child_faults"] - before["child_faults"])
        if count_held:
            own = after["hwm"] - min(before["base"], after["base"])
            held = max(before["others"], after["others"])
        else:
            own = after["hwm"] - before["rss"]
            held = max(0, after["others"] - before["others"])
        return result, max(0, own) + held + children

    def read_file(self, path: str, max_bytes: int = 64 << 20) -> bytes:
        """The bytes of a file the candidate's code wrote, `path` relative to the worker's scratch
        folder (its working directory); refused past `max_bytes`. Parse them only in the
        verifier (`sub.verify`), never in the judge."""
        self.module  # noqa: B018
        assert self._worker is not None
        answer = self._worker.request({"op": "read_file", "path": str(path), "max_bytes": int(max_bytes)},
                                      what=f"reading {path}")
        if "error" in answer:
            raise remote_exception(answer["error"], f"reading {path}")
        if not isinstance(answer["ok"], bytes):
            raise SubmissionProblem(f"reading {path} did not give bytes")
        return answer["ok"]

    def write_file(self, path: str, data: bytes) -> None:
        """Put a file in the worker's scratch folder (for the candidate's code to load)."""
        self.module  # noqa: B018
        assert self._worker is not None
        answer = self._worker.request({"op": "write_file", "path": str(path), "data": bytes(data)},
                                      what=f"writing {path}")
        if "error" in answer:
            raise remote_exception(answer["error"], f"writing {path}")

    def verify(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """Run trusted `fn(*args, **kwargs)` in the verifier worker: forked from the clean fork
        server, it never imports the submission, so loading candidate-made bytes there
        (`torch.load(..., weights_only=True)`, `torch.jit.load`, `onnx.load`) runs nothing next to
        the hidden checks. Returns plain data; started on first use, one per check."""
        what = f"verifier {getattr(fn, '__name__', 'function')}()"
        if self._verifier is None:
            self._zygote.ensure_ready()
            verifier = Worker(self._zygote, "", "", self._limits, seed=self._seed, cuda=self._cuda,
                              deadline=self._deadline, time_limit=self._timeout_s, landlock=self._landlock,
                              profile=self._profile, network="none", role="verifier")
            verifier.start()
            self._verifier = verifier
        answer = self._verifier.request({"op": "verify", "fn": fn, "args": args, "kwargs": kwargs}, what=what)
        if "error" in answer:
            raise remote_exception(answer["error"], what)
        return answer["ok"]

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
        if self._verifier is not None:
            self._verifier.kill(detach=True)

    def __repr__(self) -> str:
        return f"<submission {self._module_name} at {self._path}>"


_VIEWS: OrderedDict[tuple[str, str], StaticView] = OrderedDict()
MAX_VIEWS = 256  # a judge grades each check over every candidate in turn: keep them all parsed


def _parsed(path: Path, source: str) -> StaticView:
    """The parsed view of `source` (the file's text as read now), parsed once per judge rather
    than once per check: keyed by the text, so a file changed between checks is parsed again."""
    key = (str(path), source)
    view = _VIEWS.get(key)
    if view is None:
        view = StaticView(path, source)
        view.tree  # noqa: B018 - parsing is the point (a syntax error raises here, and is not kept)
        _VIEWS[key] = view
        if len(_VIEWS) > MAX_VIEWS:
            _VIEWS.popitem(last=False)
    else:
        _VIEWS.move_to_end(key)
    return view


def _last_lines(text: str, n: int) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return "\n".join(lines[-n:])
