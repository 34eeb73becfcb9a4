"""The judge's pytest plugin: one class, registered by `grader.judge.run` and nothing else.

It provides the `sub`, `device` and `seed` fixtures, parametrizes `sub` over the candidates being
graded, seeds every check, enforces time limits and budgets through the worker client, and writes
one JSON line per check (and per candidate file's static flags) as soon as each is known, so that
a judge that dies still leaves every verdict it reached.
"""

from __future__ import annotations

import gc
import json
import os
import random
import time
import traceback
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from grader.catalog import CHECK_KINDS
from grader.judge import source
from grader.judge.explain import details
from grader.judge.proxy import Submission, SubmissionProblem
from grader.judge.static import StaticView
from grader.judge.timelimit import QUICK_KEY, endless_loop_note, watch_limit
from grader.sandbox import namespaces, privileges
from grader.sandbox.client import Limits, Overloaded, WorkerFailure, Zygote
from grader.sandbox.handles import RemoteError

MAX_MESSAGE = 3000
MAX_FLAGS = 50  # static flags per file in a record
MAX_FLAG_TEXT = 300
MAX_RECORD = 256 << 10  # one results line; `runtimes.base.read_records` skips longer lines
MAX_OUTPUT = 2000  # characters of a public check's captured output


def ship_probes_by_value() -> None:
    """Register `grader.probes` and each of its modules (`probes.SUBMODULES`) for pickling by value:
    a probe that uses them carries their code to the worker, which must not supply these helpers."""
    import cloudpickle

    from grader import probes

    for module in (probes, *probes.SUBMODULES):
        cloudpickle.register_pickle_by_value(module)


class JudgePlugin:
    def __init__(self, spec: dict, zygote: Zygote):
        self.spec = spec
        self.zygote = zygote
        self.root = Path(spec["root"])
        self.exercises = {ex["id"]: ex for ex in spec["exercises"]}
        self.capture_output = bool(spec.get("capture_output"))  # asked for by `check` and `watch` only
        self.by_dir = {str(Path(ex["dir"]).resolve()): ex for ex in spec["exercises"]}
        self.candidates = {c["label"]: c for c in spec["candidates"]}
        self.limits = Limits(**spec.get("limits", {}))
        self.seed_value = int(spec.get("seed", 0))
        self.timeout_override = spec.get("timeout_s")
        self.quick = bool(spec.get(QUICK_KEY))  # `grader watch`: short limits (grader.judge.timelimit)
        self.cuda = torch.cuda.is_available()
        from grader.sandbox import landlock

        self.landlock_abi = landlock.abi_version() if spec.get("landlock", True) and \
            os.environ.get("GRADER_LANDLOCK", "1") != "0" else 0
        self.profile = sandbox_profile(zygote)
        self.landlock_protections = landlock.protections(self.landlock_abi, tcp=self.profile == "restricted")
        self.sandbox_reported = False
        self.gpu_noted: set[str] = set()
        self.out = open(spec["results_path"], "a", encoding="utf-8")  # noqa: SIM115 - closed at session end
        self.import_failures: dict[tuple[str, str], dict] = {}
        self.spent: dict[tuple[str, str], float] = {}
        self.reports: dict[str, dict] = {}

    # --- output ----------------------------------------------------------------------------------

    def emit(self, record: dict) -> None:
        """Append one JSON line. A record can never be big enough to cost other verdicts: its
        strings are cut, and a line still over MAX_RECORD is replaced by a failure of that check."""
        line = json.dumps(record)
        if len(line) > MAX_RECORD:
            line = json.dumps(_shrunk(record))
        self.out.write(line + "\n")
        self.out.flush()

    def exercise_of(self, path: Path) -> dict | None:
        return self.by_dir.get(str(Path(path).resolve().parent))

    # --- setup -----------------------------------------------------------------------------------

    def pytest_configure(self, config: pytest.Config) -> None:
        config.addinivalue_line("markers", "check(kind, weight=1, timeout_s=None): a graded check")
        protections = ["a fresh worker process per check", "time limit per check", "memory limit (rlimit and a watchdog over the worker's whole process tree)",
                       "file size and open-file rlimits", "scrubbed environment", "verdicts kept in the judge"]
        protections += self.landlock_protections or ["no Landlock here: the worker can read every file this user can"]
        protections += privileges.protections(sockets=self.profile != "restricted")
        protections += PROFILE_PROTECTIONS[self.profile]
        self.emit({"type": "environment", "torch": torch.__version__, "cuda": torch.version.cuda,
                   "cuda_available": self.cuda, "protections": protections,
                   "gpus": [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())] if self.cuda else [],
                   "numpy": np.__version__})
        for label, cand in self.candidates.items():
            for ex_id, entry in cand["files"].items():
                self.emit_static(label, ex_id, entry)

    def emit_static(self, label: str, ex_id: str, entry: dict) -> None:
        record: dict[str, Any] = {"type": "static", "candidate": label, "exercise": ex_id, "flags": []}
        if entry.get("path") and not entry.get("problem"):
            try:
                path = Path(entry["path"])
                flags = StaticView(path, source.read(path)).tampering()
            except Exception:  # noqa: BLE001 - the file's checks report why it cannot be read or parsed
                flags = []
            record["flags"] = [{"line": f.line, "message": f.message[:MAX_FLAG_TEXT]} for f in flags[:MAX_FLAGS]]
            if len(flags) > MAX_FLAGS:
                record["flags"].append({"line": 0, "message": f"and {len(flags) - MAX_FLAGS} more flags"})
        self.emit(record)

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if "sub" in metafunc.fixturenames:
            ex = self.exercise_of(metafunc.definition.path)
            labels = [label for label, c in self.candidates.items() if ex and ex["id"] in c["files"]]
            metafunc.parametrize("sub", labels, indirect=True, ids=[f"@{label}" for label in labels])
        if "device" in metafunc.fixturenames:
            metafunc.parametrize("device", [
                "cpu",
                pytest.param("cuda", marks=pytest.mark.skipif(not self.cuda, reason="CUDA not available")),
            ])

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # torch, pytest and the collected checks live as long as the session: freeze them, so that
        # the judge's full collections stop walking them (gc showed as 3 % of validate's samples;
        # the saving is within the noise of a 14 s run, but costs nothing)
        gc.collect()
        gc.freeze()

    @pytest.hookimpl(trylast=True)  # after -k has deselected: only what will run is "collected"
    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config, items: list) -> None:
        import cloudpickle

        for module in {id(item.module): item.module for item in items if getattr(item, "module", None)}.values():
            # The worker cannot import test modules (it must not even read them): functions defined
            # in them (probes, lambdas) travel by value.
            try:
                cloudpickle.register_pickle_by_value(module)
            except ValueError:
                pass
        ship_probes_by_value()
        kept, dropped = [], []
        for item in items:
            info = self.describe(item)
            if self._selected(info):
                kept.append(item)
                self.emit({"type": "collected", **info})
            else:
                dropped.append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept

    def _selected(self, info: dict) -> bool:
        """A candidate's file may name the only checks it is graded on (`"only": [names]`: validate
        grades a known mistake on the checks that must catch it); every check otherwise."""
        entry = self.candidates.get(info["candidate"], {}).get("files", {}).get(info["exercise"]) or {}
        only = entry.get("only")
        return only is None or info["name"].split("[", 1)[0] in only

    def describe(self, item: pytest.Item) -> dict:
        ex = self.exercise_of(item.path) or {}
        marker = item.get_closest_marker("check")
        kwargs = dict(marker.kwargs) if marker else {}
        if marker and marker.args:
            kwargs.setdefault("kind", marker.args[0])
        callspec = getattr(item, "callspec", None)
        params = dict(getattr(callspec, "params", {}))
        label = params.pop("sub", None) or next(iter(self.candidates), "")
        name = getattr(item, "originalname", None) or item.name
        ids = [part for part in (callspec.id.split("-") if callspec else []) if not part.startswith("@")]
        if ids:
            name += "[" + "-".join(ids) + "]"
        func = getattr(item, "function", None)
        line = func.__code__.co_firstlineno if func is not None else (item.location[1] or 0) + 1
        return {
            "candidate": label, "exercise": ex.get("id", "?"), "name": name, "nodeid": item.nodeid,
            "kind": kwargs.get("kind"), "weight": float(kwargs.get("weight", 1.0)),
            "timeout_s": kwargs.get("timeout_s"),
            "visibility": "public" if item.path.name == "test_public.py" else "hidden",
            "file": os.path.relpath(item.path, ex.get("root") or self.root), "line": line,  # a pack's: its own root
        }

    # --- fixtures --------------------------------------------------------------------------------

    @pytest.fixture
    def sub(self, request: pytest.FixtureRequest) -> Any:
        item = request.node
        info = item.stash[_INFO]
        ex = self.exercises[info["exercise"]]
        entry = self.candidates[info["candidate"]]["files"][ex["id"]]
        path = Path(entry["path"]) if entry.get("path") else None
        submission = Submission(
            module_name=ex["name"], path=path, problem=entry.get("problem"), zygote=self.zygote,
            limits=self.limits.for_exercise(ex.get("limits", {})), seed=self.seed_value, timeout_s=item.stash[_TIMEOUT], cuda=self.cuda,
            import_failures=self.import_failures.setdefault((info["candidate"], ex["id"]), {}),
            submission_root=self.candidates[info["candidate"]].get("root"), landlock=self.landlock_abi > 0,
            on_sandbox=self.check_sandbox, profile=self.profile, network=ex.get("network", "loopback"),
            on_tamper=lambda message: self.emit({"type": "tampering", "candidate": info["candidate"],
                                                 "exercise": ex["id"], "check": info["name"], "message": message}),
        )
        yield submission
        submission.close()
        item.stash[_OUTPUT] = submission.output  # what the candidate's code printed during this check
        item.stash[_WORKER_CPU] = submission.cpu_seconds

    def note_gpu_required(self, exercise: str) -> None:
        """Say once per exercise that it was not graded for want of a GPU."""
        if exercise in self.gpu_noted:
            return
        self.gpu_noted.add(exercise)
        self.emit({"type": "note", "message": f"{exercise} requires a GPU (gpu = \"required\" in its exercise.toml) and "
                                              f"CUDA is not available here: its checks were not run"})

    def check_sandbox(self, applied: Any) -> None:
        """Record once if a worker did not apply the sandbox the judge expected. What the worker
        says is only compared, never shown: the note is the judge's own words."""
        if self.sandbox_reported or (type(applied) is int and applied == self.landlock_abi):
            return
        self.sandbox_reported = True
        self.emit({"type": "note", "message": "a worker reported that it could not apply its whole sandbox "
                                              f"(Landlock ABI {self.landlock_abi} expected): it ran with the "
                                              "other protections only"})

    @pytest.fixture
    def seed(self) -> int:
        return self.seed_value

    # --- running ---------------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        info = self.describe(item)
        item.stash[_INFO] = info
        item.stash[_PHASES] = {}
        ex = self.exercises.get(info["exercise"], {})
        timeout = self.full_limit(info)
        item.stash[_TIMEOUT] = watch_limit(timeout) if self.quick else timeout
        item.stash[_START] = time.monotonic()
        item.stash[_CPU_START] = time.process_time()
        if info["kind"] not in CHECK_KINDS:
            raise _AuthoringError(f"{info['name']} has no @check(kind, weight) marker with a known kind")
        if ex.get("gpu") == "required" and not self.cuda:
            self.note_gpu_required(info["exercise"])
            pytest.skip(f"needs a GPU: {info['exercise']} declares gpu = \"required\" and CUDA is not available here")
        key = (info["candidate"], info["exercise"])
        budget = ex.get("budget_s")
        if budget and self.spent.get(key, 0.0) >= budget:
            raise SubmissionProblem(f"not run: the exercise's time budget of {budget:g} s was used up "
                                    f"by earlier checks (CPU time: the judge's and the workers')")
        self._seed_all()

    def full_limit(self, info: dict) -> float:
        """A check's CPU time limit: its own, the run's --timeout-s, its exercise's, else 30 s."""
        ex = self.exercises.get(info["exercise"], {})
        return float(info["timeout_s"] or self.timeout_override or ex.get("timeout_s") or 30.0)

    def _seed_all(self) -> None:
        random.seed(self.seed_value)
        np.random.seed(self.seed_value)
        self._seed_torch()
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False

    @pytest.hookimpl(tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> bool | None:
        """Run the check; one stopped by its wall-clock backstop while the machine was overloaded
        (`Overloaded`: the worker waited for a CPU, the candidate's code did not run out of its
        CPU time) is graded again in a fresh worker, once; if it stays so it is reported "not
        graded: machine overloaded" (`classify`), out of the total, never as the candidate's
        failure."""
        sub = pyfuncitem.funcargs.get("sub")
        if not isinstance(sub, Submission) or getattr(pyfuncitem.obj, "__code__", None) is None or \
                pyfuncitem.obj.__code__.co_flags & 0x180:  # coroutines and async generators: pytest's own way
            return None
        args = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        try:
            pyfuncitem.obj(**args)
        except Overloaded:
            sub.restart()
            self._seed_all()
            pyfuncitem.obj(**args)
        return True

    _torch_seeded: int | None = None

    def _seed_torch(self) -> None:
        """torch.manual_seed(seed) before every check. While no accelerator is initialised, the
        accelerators' seeding is only queued (the latest queued seed is applied when one
        initialises), so after the first call only the CPU generator needs it: the full call also
        formats a stack trace for the queue, 0.4 ms a check."""
        accelerated = torch.cuda.is_initialized() or getattr(torch, "xpu", None) is not None and \
            torch.xpu.is_initialized() or torch.backends.mps.is_available()
        if accelerated or self._torch_seeded != self.seed_value:
            torch.manual_seed(self.seed_value)
            self._torch_seeded = self.seed_value
        else:
            torch.default_generator.manual_seed(self.seed_value)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        outcome = yield
        report = outcome.get_result()
        phases = item.stash.setdefault(_PHASES, {})
        if call.excinfo is not None and not report.skipped:
            phases[call.when] = (call.excinfo.value, call.excinfo.tb)
            sub = getattr(item, "funcargs", {}).get("sub")
            item.stash[_LAST_CALL] = getattr(getattr(sub, "_worker", None), "last_call", None)
        elif report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            phases[call.when] = ("skip", reason.removeprefix("Skipped: "))

    def pytest_runtest_logfinish(self, nodeid: str, location: tuple) -> None:
        item = self._current
        if item is None:
            return
        self._current = None
        info = item.stash.get(_INFO, None) or self.describe(item)
        phases = item.stash.get(_PHASES, {})
        elapsed = time.monotonic() - item.stash.get(_START, time.monotonic())
        key = (info["candidate"], info["exercise"])
        # the budget counts CPU time (the judge's own and its workers'), which load does not change
        charged = time.process_time() - item.stash.get(_CPU_START, time.process_time()) + item.stash.get(_WORKER_CPU, 0.0)
        self.spent[key] = self.spent.get(key, 0.0) + charged
        outcome, message, line = "passed", "", None
        for when in ("setup", "call", "teardown"):
            if when not in phases:
                continue
            value, tb = phases[when]
            if value == "skip":
                outcome, message = "not_run", tb
                break
            outcome, message, line = classify(value, tb, when, item.path)
            if not self.capture_output:  # a report: the candidate's file as the submission names it
                message = _relative_frames(message, self.candidates.get(info["candidate"], {}).get("root"))
            if self.quick and isinstance(value, WorkerFailure):
                message = endless_loop_note(message, item.stash.get(_TIMEOUT, 0.0), self.full_limit(info),
                                            info["exercise"])
            if info["visibility"] == "public":  # hidden checks' values and inputs stay hidden
                extra = details(value, item.stash.get(_LAST_CALL, None))
                message += f"\n{extra}" if extra else ""
            break
        # What the candidate's code printed helps the candidate running its own public checks
        # (`grader check`, `grader watch`); in a grading run's reports it would only be a way to
        # put forged verdicts and text in front of the interviewer, so it stays out of them.
        output = item.stash.get(_OUTPUT, "") if info["visibility"] == "public" and self.capture_output else ""
        self.emit({"type": "check", **info, "outcome": outcome, "message": message[:MAX_MESSAGE],
                   "duration_s": round(elapsed, 4), "line": line or info["line"],
                   "output": output[-MAX_OUTPUT:] if output.strip() else ""})
        while self.zygote.incidents:
            incident = self.zygote.incidents.pop(0)
            self.emit({"type": "note", "message": f"{incident} (during {info['exercise']} {info['name']} "
                                                  f"of {info['candidate']})"})

    _current: pytest.Item | None = None

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None):
        self._current = item
        yield

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        reason = session.shouldfail  # set only by -x / --maxfail, which the user asked for
        if isinstance(reason, str) and reason:
            self.emit({"type": "stopped", "reason": reason})
        self.emit({"type": "finished", "exitstatus": int(exitstatus)})
        self.out.close()


PROFILE_PROTECTIONS = {
    "namespaces": namespaces.protections(),
    "container": ["the container's network (none: loopback only) and IPC: sockets allowed in the worker"],
    "restricted": ["no private namespaces here: the worker may open no socket (CUDA, DataLoader workers "
                   "and gloo cannot run)"],
}


def sandbox_profile(zygote: Zygote) -> str:
    """How workers are walled off from the host (see `grader.sandbox.worker_setup.enter_sandbox`): in the
    container, by the container; on this machine, by private namespaces where the kernel lets
    us create them ($GRADER_NAMESPACES=0 turns them off), else by refusing every socket."""
    if zygote.attached:
        return "container"
    if os.environ.get("GRADER_NAMESPACES", "1") != "0" and namespaces.available() is None:
        return "namespaces"
    return "restricted"


class _AuthoringError(Exception):
    """A test in an exercise is malformed (not the candidate's fault)."""


_INFO = pytest.StashKey[dict]()
_PHASES = pytest.StashKey[dict]()
_TIMEOUT = pytest.StashKey[float]()
_START = pytest.StashKey[float]()
_OUTPUT = pytest.StashKey[str]()
_LAST_CALL = pytest.StashKey[object]()
_CPU_START = pytest.StashKey[float]()  # the judge's own CPU time when the check began
_WORKER_CPU = pytest.StashKey[float]()  # the CPU the check's workers used (grader.sandbox.cputime)


def classify(exc: BaseException, tb: Any, when: str, test_path: Path) -> tuple[str, str, int | None]:
    """(outcome, message, line in the test file) for an exception raised by a check."""
    line = None
    for frame, lineno in traceback.walk_tb(tb):
        if Path(frame.f_code.co_filename) == Path(test_path):
            line = lineno
    if isinstance(exc, SubmissionProblem):
        return "failed", str(exc), line
    if isinstance(exc, Overloaded):
        return "not_run", f"not graded: machine overloaded (graded twice): {exc}", line
    if isinstance(exc, WorkerFailure):
        return "failed", str(exc), line
    if isinstance(exc, RemoteError):
        # where in the candidate's file it happened (the message is already above)
        tail = innermost_frame(exc.remote_where)
        message = str(exc)
        if tail and exc.remote_type not in ("NotImplementedError",):
            message += f"\n{tail}"
        return "failed", message, line
    if isinstance(exc, _AuthoringError):
        return "error", str(exc), line
    if when != "call":
        return "error", f"{type(exc).__name__} during {when}: {exc}", line
    if isinstance(exc, AssertionError):
        text = str(exc).strip() or "assertion failed"
        if not text.startswith("assert ") and "\nassert " in text:
            # `assert cond, "message"`: the author's message is what the candidate needs; pytest's
            # introspection of the judge's expressions is noise (and may show hidden values).
            text = text.split("\nassert ", 1)[0]
        return "failed", text, line
    return "failed", f"{type(exc).__name__}: {exc}", line


MAX_FRAME_LINES = 8  # of the candidate's innermost frame: its File line, its code and Python's carets


def innermost_frame(where: str) -> str:
    """The candidate's innermost frame, whole, from a traceback's formatted frames: its
    `File "...", line N, in f` line (the file:line a candidate clicks), its code and the carets
    under it (Python 3.11 adds a caret line, so "the last two lines" would lose the File line)."""
    lines = [ln for ln in where.rstrip().splitlines() if ln.strip()]
    starts = [i for i, ln in enumerate(lines) if ln.lstrip().startswith('File "')]
    frame = lines[starts[-1]:] if starts else lines[-2:]
    return "\n".join(frame[:MAX_FRAME_LINES])


def _relative_frames(message: str, root: str | None) -> str:
    """`File "<root>/exercises/x.py"` -> `File "exercises/x.py"`: the same in every runtime (a
    container mounts the submission elsewhere) and never a temporary folder that is gone."""
    if not root:
        return message
    return message.replace(f'File "{root.rstrip(os.sep)}{os.sep}', 'File "')


def _shrunk(record: dict) -> dict:
    """A record that fits in a results line: long strings cut; a check whose record is still too
    big fails (only that check)."""
    out = {k: (v[:2000] if isinstance(v, str) else v) for k, v in record.items() if k != "flags"}
    if "flags" in record:
        out["flags"] = [{"line": 0, "message": "static flags dropped: too large for a results line"}]
    if len(json.dumps(out)) > MAX_RECORD:
        out = {k: v for k, v in out.items() if not isinstance(v, (list, dict))}
    if out.get("type") == "check":
        out.update(outcome="failed", message="the result of this check was too large to record")
    return out
