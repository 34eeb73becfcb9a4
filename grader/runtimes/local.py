"""The local runtime: the judge and its workers are subprocesses on this machine.

It contains crashes and cannot be fooled into a forged score (verdicts stay in the judge), but it
does not hide files from the worker: use it for one's own code and for trusted grading.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path

from grader.runtimes import template_pool
from grader.runtimes.base import JudgeJob, JudgeOutput, RecordTail, Runtime, read_records, thread_env
from grader.runtimes.template import JudgeTemplate, TemplateUnavailable
from grader.sandbox.cleanup import remove_tree
from grader.sandbox.libc import libc

MAX_LOG = 20000


KEPT_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "CUDA_VISIBLE_DEVICES", "CUBLAS_WORKSPACE_CONFIG",
            "OMP_NUM_THREADS", "MKL_NUM_THREADS", "GRADER_ROOT", "GRADER_LANDLOCK", "GRADER_NAMESPACES",
            "GRADER_HUGEPAGES", "VIRTUAL_ENV", "SYSTEMROOT")


def judge_env() -> dict[str, str]:
    """The judge gets only what it needs: no tokens or secrets of the user's environment can reach
    a report or a worker (which gets a further scrubbed copy)."""
    env = {k: v for k, v in os.environ.items() if k in KEPT_ENV}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(thread_env())  # read by OpenMP when the template (or a fresh judge) imports torch
    return env


try:  # looked up before any fork: the child of a threaded parent must not dlopen
    _PRCTL = libc().prctl
except (OSError, AttributeError):  # not Linux
    _PRCTL = None


def _die_with_parent() -> None:
    """In the judge, before exec: SIGKILL it when the thread that started it goes (the CLI killed,
    a Ray worker lost with its node), so no judge or fork server outlives its grader."""
    if _PRCTL is not None:
        _PRCTL(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG


@contextlib.contextmanager
def _removed(folder: str):
    """Remove `folder` on the way out, whatever workers left in it (a 3000-level folder chain
    defeats shutil.rmtree); a cleanup that fails is said on stderr, never raised: the report comes
    first."""
    try:
        yield
    finally:
        left = remove_tree(folder)
        if left:
            print(f"warning: {left}", file=sys.stderr)


class LocalRuntime(Runtime):
    """One judge process (in its own session, with its fork server and workers) per `run` call;
    `run` may be called from several threads at once (batch grading)."""

    name = "local"

    def __init__(self, python: str | None = None, shared_templates: bool = False):
        self.python = python or sys.executable
        # judges forked from the machine's shared template (grader.runtimes.template_shared), as on a
        # Ray node, instead of this process's own
        self.shared_templates = shared_templates
        self._running: set[subprocess.Popen] = set()
        self._lock = threading.Lock()
        self._cancelled = False
        self._templates: dict[tuple, JudgeTemplate] = {}  # held from grader.runtimes.template_pool
        self._warned = False
        self.many = False  # more than one judge will be started (expect_jobs)
        weakref.finalize(self, _release_all, self._templates)

    def expect_jobs(self, count: int) -> None:
        """With more than one, the judge template warms up and collapses its memory before the
        first judge, once for all of them (grader.runtimes.template)."""
        self.many = self.many or count > 1

    def cancel(self) -> None:
        self._cancelled = True  # before the lock, which a judge being started holds while its template starts
        try:
            starting = list(self._templates.values())
        except RuntimeError:  # changed meanwhile: a judge starting now sees _cancelled
            starting = []
        for template in starting:  # still importing torch: stop waiting for it (a Ctrl-C is answered now)
            getattr(template, "abort_start", lambda: None)()
        with self._lock:
            running = list(self._running)
        for proc in running:
            _kill_group(proc)

    def _start_judge(self, spec: dict, spec_path: Path, tmp: Path, log, scratch: Path, notes: list[str]):
        """`python -m grader.judge SPEC`, forked from the judge template when there is one (see
        grader.runtimes.template), else started as a fresh interpreter, with a note in `notes`
        saying why (the report carries it: on a Ray node this process's stderr is only the
        worker's log)."""
        env = judge_env()
        if os.environ.get("GRADER_JUDGE_TEMPLATE", "1") != "0" and sys.platform == "linux":
            try:
                from grader.judge.run import warm_ups

                template = self._template(env)
                try:
                    return template.fork(str(spec_path), str(tmp), log.name, str(scratch),
                                         warm_ups(spec), many=self.many)
                except TemplateUnavailable:
                    self._drop(template)  # no later job waits on it again
                    raise
            except TemplateUnavailable as exc:  # slower, not different: say so (once on stderr)
                if self._cancelled:  # it was stopped by cancel(): start nothing
                    raise _Cancelled() from None
                warning = f"judges started as fresh interpreters (slower): {exc}"[:1000]
                notes.append(warning)
                if not self._warned:
                    self._warned = True
                    print(f"warning: {warning}", file=sys.stderr)
        return subprocess.Popen([self.python, "-m", "grader.judge", str(spec_path)], stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                cwd=tmp, start_new_session=True, preexec_fn=_die_with_parent)

    def _template(self, env: dict[str, str]) -> JudgeTemplate:
        """The judge template for this environment (a test that changes the environment gets
        another), taken from the process's pool on first use (grader.runtimes.template_pool: the
        runtimes of one process share it). Called under `self._lock`."""
        key = tuple(sorted(env.items()))
        template = self._templates.get(key)
        if template is None or not template.alive():
            if template is not None:  # killed (by a worker where no Landlock scopes signals): a new one
                template_pool.discard(template)
            template = self._templates[key] = template_pool.acquire(self.python, env, shared=self.shared_templates)
        return template

    def _drop(self, template: JudgeTemplate) -> None:
        """`template` failed: out of this runtime and the pool. Called under `self._lock`."""
        for key, held in list(self._templates.items()):
            if held is template:
                del self._templates[key]
        template_pool.discard(template)

    def close(self) -> None:
        """Hand the judge templates back to the process's pool (grading with this runtime is
        over): another runtime takes them over, or they end once idle (GRADER_TEMPLATE_IDLE_S)."""
        with self._lock:
            templates = dict(self._templates)
            self._templates.clear()
        _release_all(templates)

    def run(self, job: JudgeJob) -> JudgeOutput:
        with tempfile.TemporaryDirectory(prefix="grader-local-", ignore_cleanup_errors=True) as tmp, _removed(tmp):
            results = Path(tmp) / "results.jsonl"
            scratch = Path(tmp) / "scratch"
            scratch.mkdir()
            spec_path = Path(tmp) / "spec.json"
            spec = job.spec(str(results), str(scratch))
            spec_path.write_text(json.dumps(spec))
            log_path = Path(tmp) / "judge.log"
            error = None
            fallback: list[str] = []
            with open(log_path, "wb") as log:
                with self._lock:
                    if self._cancelled:
                        return JudgeOutput(records=[], error="grading was interrupted", infrastructure=True)
                    try:
                        proc = self._start_judge(spec, spec_path, Path(tmp), log, scratch, fallback)
                    except _Cancelled:
                        return JudgeOutput(records=[], error="grading was interrupted", infrastructure=True)
                    self._running.add(proc)
                try:
                    code = _wait(proc, job, results)
                except subprocess.TimeoutExpired:
                    _kill_group(proc)
                    code = None
                    error = f"the judge ran past its wall-clock limit of {job.wall_limit():g} s and was killed"
                except BaseException:  # KeyboardInterrupt, a cancelled Ray task: never leave the judge behind
                    _kill_group(proc)
                    raise
                finally:
                    with self._lock:
                        self._running.discard(proc)
            log_text = log_path.read_bytes()[-MAX_LOG:].decode(errors="replace")
            records = read_records(results)
            if error is None and code not in (0, 1) and not any(r.get("type") == "finished" for r in records):
                error = f"the judge exited with status {code} before finishing"
            elif error is None and code not in (0, 1, 5):
                error = f"the judge exited with status {code}"
            # killed by a signal from outside (the judge's own limits end workers, never the judge)
            killed = code is not None and code < 0 and not any(r.get("type") == "finished" for r in records)
            env = next((r for r in records if r.get("type") == "environment"), {})
            notes = fallback + [r["message"] for r in records if r.get("type") == "note"]
            return JudgeOutput(records=records, error=error, log=log_text, notes=notes,
                               protections=list(env.get("protections", [])), infrastructure=killed)


class _Cancelled(Exception):
    """The runtime was cancelled while a judge was being started."""


def _release_all(templates: dict) -> None:
    for template in list(templates.values()):
        template_pool.release(template)
    templates.clear()


def _wait(proc: subprocess.Popen, job: JudgeJob, results: Path) -> int:
    """Wait for the judge (up to the job's wall limit), handing each record to `job.on_record`
    as it is written (progress), when the job asks for them."""
    if job.on_record is None:
        return proc.wait(timeout=job.wall_limit())
    tail = RecordTail(results)
    deadline = time.monotonic() + job.wall_limit()
    while True:
        try:
            code = proc.wait(timeout=0.25)
        except subprocess.TimeoutExpired:
            code = None
        for record in tail.poll():
            job.on_record(record)
        if code is not None:
            return code
        if time.monotonic() > deadline:
            raise subprocess.TimeoutExpired(proc.args, job.wall_limit())


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill the judge's process group (the judge and its fork server; workers die with the fork
    server) and reap the judge."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
