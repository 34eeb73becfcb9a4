"""Judge side of the sandbox: starts the zygote, forks workers, enforces time, memory and output limits.

Everything a worker does wrong — hang, crash, exit, flood its output, blow its memory, send garbage
— surfaces here as a `WorkerFailure` whose message says what happened, and the worker is killed.
"""

from __future__ import annotations

import math
import os
import select
import signal
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

from grader.sandbox import codec
from grader.sandbox.cputime import CpuSample, Machine, cores, machine, tree_cpu, waiting_threads
from grader.sandbox.handles import RemoteHandle
from grader.sandbox.limits import BACKSTOP_EXTRA_S, BACKSTOP_FACTOR, GiB, Limits, MiB, backstop_s  # noqa: F401 - re-exported
from grader.sandbox.protocol import ChannelClosed, ChannelTimeout, MessageTooLarge, recv_msg, send_msg
from grader.sandbox.requests import dumps
from grader.sandbox.treemem import tree_memory
from grader.sandbox.zygote import kill_session
from grader.sandbox.zygote_client import Zygote, scrubbed_env  # noqa: F401 - re-exported


class WorkerFailure(Exception):
    """The worker hung, crashed, exited or broke a limit; it has been killed."""


class Overloaded(WorkerFailure):
    """The check reached its wall-clock backstop while the worker was waiting for a CPU (the
    machine, not the candidate, was slow): the check is graded again, and reported as not graded
    if it stays so (grader.judge.plugin)."""


# How long a check may last on the wall clock for a CPU time limit (`backstop_s`, in
# grader.sandbox.limits: the CLI's runtimes read it without importing torch).
# At the backstop, the machine was overloaded when the worker's threads spent at least this share
# of the wall time waiting for a CPU (runnable, not running).
OVERLOADED_WAIT_SHARE = 0.25
# ...and only when the wait was the machine's doing, not the tree's own: a tree with more runnable
# threads than cores waits on itself, and a submission could turn any check it would fail into "not
# graded" that way (threads woken together, sleeping between). The machine was the cause when other
# processes kept at least this share of its CPUs busy meanwhile, or when the worker's CPU cgroup
# throttled it (its quota: a slow machine) while no more of its threads waited than the quota's cores.
OTHERS_BUSY_SHARE = 0.5
CPU_READ_EVERY_S = 0.1  # how often the judge reads the worker tree's CPU time while it waits


class CandidateImportError(Exception):
    """The candidate's module raised while being imported (syntax error, exception, sys.exit)."""

    def __init__(self, type_name: str, message: str, traceback: str):
        super().__init__(f"{type_name}: {message}")
        self.type_name, self.message, self.traceback = type_name, message, traceback


_SIGNAL_MEANING = {
    signal.SIGSEGV: "segmentation fault",
    signal.SIGKILL: "killed",
    signal.SIGABRT: "aborted",
    signal.SIGBUS: "bus error",
    signal.SIGFPE: "floating-point exception",
    signal.SIGXFSZ: "file size limit exceeded",
    signal.SIGXCPU: "CPU time limit exceeded",
    signal.SIGILL: "illegal instruction",
}


def describe_exit(status: dict) -> str:
    if status.get("signal"):
        sig = status["signal"]
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        meaning = _SIGNAL_MEANING.get(sig)
        return f"was killed by {name}" + (f" ({meaning})" if meaning else "")
    if status.get("exit") is not None:
        return f"exited with status {status['exit']}"
    if status.get("zygote_lost"):
        return f"ended (its fork server {status['zygote_lost']})"
    return "ended"


def oom_kills() -> int | None:
    """The OOM-kill counter of our memory cgroup (a container's limit), if the kernel exposes it."""
    for path in ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"):
        try:
            with open(path) as fh:
                for line in fh:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            continue
    return None


class _OutputDrain(threading.Thread):
    """Reads the worker's stdout+stderr, keeps the tail, and flags a flood.

    `settle` takes in what is in the pipe now, so a check that is over need not wait for the end
    of the file, which comes only once the killed worker's exit has taken its address space down
    (milliseconds per check); the thread reads on until then, in the background."""

    def __init__(self, fd: int, cap: int):
        super().__init__(daemon=True)
        self.fd, self.cap = fd, cap
        self.total = 0
        self.tail = bytearray()
        self.flooded = False
        self.closed = False
        self._lock = threading.Lock()
        os.set_blocking(fd, False)

    def _take(self) -> bool:
        """Read what is there (the lock held); False at the end of the file."""
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not chunk:
                return False
            self.total += len(chunk)
            self.tail += chunk
            del self.tail[:-8192]
            if self.total > self.cap:
                self.flooded = True

    def run(self) -> None:
        poller = select.poll()
        poller.register(self.fd, select.POLLIN)
        while True:
            poller.poll()  # readable, or the end of the file (which stays readable)
            with self._lock:
                if not self._take():
                    self.closed = True
                    os.close(self.fd)  # here only: `settle` never closes what this thread polls
                    return

    def settle(self) -> None:
        """Take in everything written to the pipe so far (all the output of a check whose answer
        has come), without waiting for the end of the file."""
        with self._lock:
            if not self.closed:
                self._take()

    def text(self, limit: int = 2000) -> str:
        with self._lock:
            return bytes(self.tail[-limit:]).decode("utf-8", errors="replace")


@dataclass
class Worker:
    """One worker process running one candidate module."""

    zygote: Zygote
    candidate: str
    module_name: str
    limits: Limits
    seed: int = 0
    cuda: bool = False
    submission_root: str | None = None
    landlock: bool = False  # ask the worker to sandbox itself with Landlock
    profile: str = "restricted"  # namespaces | container | restricted (see worker_setup.enter_sandbox)
    role: str = "worker"  # or "verifier": a worker that imports no submission (see grader.sandbox.verifier)
    network: str = "loopback"  # the exercise's: none (Unix sockets only) | loopback (IP too, on its own loopback)
    sandbox: Any = None  # what the worker reported: the Landlock ABI applied, or why it failed
    deadline: float | None = None  # monotonic: the check's wall-clock backstop (`backstop_s`)
    time_limit: float | None = None  # CPU seconds (see `cpu_used`); None: the deadline alone
    pid: int | None = None  # the fork server's child: what it kills and reaps
    process: int | None = None  # the process running the candidate's code (see zygote.Workers)
    dead: str | None = None
    scratch: str = ""
    _sock: socket.socket | None = None
    _drain: _OutputDrain | None = None
    _oom_before: int | None = None
    _tree_asked: float = 0.0  # when the fork server was last asked for the tree's memory (container)
    _tree_seen: tuple[int, int] | None = None
    # the CPU the worker's process tree used (grader.sandbox.cputime), read from outside by the
    # judge: what the time limit counts, and what the exercise's budget is charged
    cpu_used: CpuSample = CpuSample()
    _machine_start: Machine | None = None  # the machine at the first CPU reading, and the tree's CPU then
    _cpu_at_start: float = 0.0
    _cpu_read: float = 0.0
    _cores: int = 0
    def make_handle(self, ref: codec.Ref) -> RemoteHandle:
        return RemoteHandle(self, ref, ref.type_name)

    def start(self) -> None:
        self._oom_before = oom_kills()
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        out_r, out_w = os.pipe()
        config = {"candidate": self.candidate, "module_name": self.module_name, "seed": self.seed,
                  "rlimits": self.limits.rlimits(self.cuda), "submission_root": self.submission_root,
                  "landlock": self.landlock, "profile": self.profile, "network": self.network, "role": self.role, "shm_bytes": self.limits.memory_bytes}
        forking = time.monotonic()
        try:
            self.pid = self.zygote.fork(config, [theirs.fileno(), out_w])
        finally:
            theirs.close()
            os.close(out_w)
            if self.deadline is not None:
                # The fork server's time (a replacement starting after a worker killed or stopped
                # the previous one takes seconds) is not the candidate's.
                self.deadline += time.monotonic() - forking
        self._sock = mine
        self._drain = _OutputDrain(out_r, self.limits.output_bytes)
        self._drain.start()
        first = self._receive(what="importing the submission")
        self.sandbox = first.get("sandbox")
        if "import_error" in first:
            err = first["import_error"]
            self.kill()
            raise CandidateImportError(err["type"], err["message"], err["traceback"])
        self.scratch = str(first.get("scratch", ""))

    @property
    def output(self) -> str:
        return self._drain.text() if self._drain else ""

    def _watch(self) -> None:
        if self._drain is not None and self._drain.flooded:
            raise _Violation(f"output limit exceeded: the worker wrote more than "
                             f"{self.limits.output_bytes // MiB} MiB to stdout/stderr")
        if self.pid is not None:
            root = self._process()
            used, count = tree_memory(root, self.zygote.pid, others=self.zygote.live - {root})
            if used is None:
                return
            if self.zygote.attached:
                # in the container the judge is another user than the workers: the kernel hides
                # the children's smaps_rollup from it (each would count 0); the fork server, the
                # workers' user and their subreaper, reads them. The worker's own resident size,
                # which the judge reads itself, is a floor the fork server cannot lower.
                now = time.monotonic()
                if now - self._tree_asked >= 0.25:
                    self._tree_asked = now
                    seen, seen_count = self.zygote.tree_memory(self.pid)
                    if seen is not None:
                        self._tree_seen = (seen, seen_count)
                if self._tree_seen is not None:
                    used, count = max(used, self._tree_seen[0]), max(count, self._tree_seen[1])
            if used > self.limits.memory_bytes:
                raise _Violation(f"memory limit {self.limits.memory_bytes / GiB:.1f} GiB exceeded "
                                 f"(resident {used / GiB:.1f} GiB over the worker's process tree of {count} "
                                 f"process{'es' if count > 1 else ''})")
            if count > self.limits.processes:
                raise _Violation(f"process limit exceeded: {count} processes (the limit is {self.limits.processes})")
            if self.time_limit is not None and time.monotonic() - self._cpu_read >= CPU_READ_EVERY_S:
                self.read_cpu()
                if self._over_cpu_limit():
                    raise _CpuLimit()

    def read_cpu(self) -> CpuSample:
        """The CPU the worker's tree has used so far (the last reading where it is gone)."""
        if self.pid is not None:
            sample = tree_cpu(self._process(), self.zygote.pid, others=self.zygote.live - {self._process()})
            if sample is not None:
                self.cpu_used = CpuSample(max(sample.total_s, self.cpu_used.total_s),
                                          max(sample.busiest_s, self.cpu_used.busiest_s),
                                          max(sample.waiting_s, self.cpu_used.waiting_s))
                if self._machine_start is None:
                    self._machine_start, self._cpu_at_start = machine(self._process()), self.cpu_used.total_s
        self._cpu_read = time.monotonic()
        return self.cpu_used

    def _over_cpu_limit(self) -> bool:
        if self.time_limit is None:
            return False
        if not self._cores:
            self._cores = cores()
        used = self.cpu_used
        return used.busiest_s >= self.time_limit or used.total_s >= self.time_limit * self._cores

    def _process(self) -> int:
        """The process whose memory is the worker's: in private namespaces, the fork server's child
        is a waiter and the worker its child (asked of the fork server until it knows; the
        waiter until then, which counts the worker among its descendants)."""
        assert self.pid is not None
        if self.process is None:
            self.process = self.zygote.process(self.pid) if self.profile == "namespaces" else self.pid
        return self.process or self.pid

    def _receive(self, what: str) -> dict:
        assert self._sock is not None
        try:
            raw = recv_msg(self._sock, self.deadline, poll=self._watch)
            self._watch()
            answer = codec.decode(raw, self.make_handle, self.deadline)
            if not isinstance(answer, dict):
                raise codec.CodecError("answer is not a dict")
            error = answer.get("error")
            if isinstance(error, dict) and error.get("type") == "MemoryError":
                error["message"] = (f"out of memory: the worker's memory limit is "
                                    f"{self.limits.memory_bytes / GiB:.1f} GiB. {error.get('message', '')}").strip()
            return answer
        except _CpuLimit:
            self._fail(f"time limit {self.time_limit:g} s exceeded while {what}")
        except (ChannelTimeout, codec.DecodeTimeout):
            self._backstop(what)
        except _Violation as exc:
            self._fail(f"{exc} while {what}")
        except ChannelClosed:
            status = self.kill()
            if "SIGKILL" in status and (oom_kills() or 0) > (self._oom_before or 0):
                status += " (out of memory: the container's memory limit was reached)"
            self._fail(f"the worker {status} while {what}", already_dead=True)
        except (codec.CodecError, MessageTooLarge) as exc:
            self._fail(f"the worker sent malformed data ({exc}) while {what}")
        raise AssertionError("unreachable")

    def _backstop(self, what: str) -> None:
        """The wall clock ran out before the CPU time limit: the worker slept or blocked (its
        failure), or waited for a CPU on an overloaded machine (nobody's: `Overloaded`)."""
        limit = f" {self.time_limit:g} s" if self.time_limit else ""
        if self.time_limit is None or self.pid is None:
            self._fail(f"time limit{limit} exceeded while {what}")
        used = self.read_cpu()
        wall = backstop_s(self.time_limit)
        if (used.waiting_s >= OVERLOADED_WAIT_SHARE * wall and not self._over_cpu_limit()
                and self._machine_was_busy(used, wall)):
            self.kill()
            self.dead = "machine overloaded"
            raise Overloaded(f"the machine was overloaded: in {wall:.0f} s the worker ran {used.effective_s(cores()):.1f} s "
                             f"and waited {used.waiting_s:.0f} s for a CPU while {what}")
        if used.waiting_s >= OVERLOADED_WAIT_SHARE * wall:
            self._fail(f"time limit{limit} exceeded while {what} (after {wall:.0f} s on the wall clock the worker had "
                       f"used {used.effective_s(cores()):.1f} s of CPU, and its own processes waited {used.waiting_s:.1f} s "
                       f"for a CPU: they competed with each other, not with the rest of the machine)")
        self._fail(f"time limit{limit} exceeded while {what} (after {wall:.0f} s on the wall clock the worker had "
                   f"used {used.effective_s(cores()):.1f} s of CPU: it was sleeping or blocked)")

    def _machine_was_busy(self, used: CpuSample, wall: float) -> bool:
        """Whether what the worker's threads waited for was taken by others (see OTHERS_BUSY_SHARE)."""
        start = self._machine_start
        if start is None or self.pid is None:
            return False
        process = self._process()
        now = machine(process)
        interval = max(1e-6, now.at - start.at)
        if now.busy_s is not None and start.busy_s is not None:
            others = (now.busy_s - start.busy_s) - (used.total_s - self._cpu_at_start)
            if others >= OTHERS_BUSY_SHARE * interval * (os.cpu_count() or 1):
                return True
        if now.quota is None or now.throttled_s is None or start.throttled_s is None:
            return False
        throttled = now.throttled_s - start.throttled_s
        waiters = waiting_threads(process, self.zygote.pid, others=self.zygote.live - {process}, min_s=0.05 * wall)
        return throttled >= OVERLOADED_WAIT_SHARE * interval and waiters <= max(1, math.ceil(now.quota))

    def _fail(self, reason: str, already_dead: bool = False) -> None:
        if not already_dead:
            self.kill()
        self.dead = reason
        raise WorkerFailure(f"worker killed: {reason}" if not already_dead else reason)

    def request(self, req: dict, what: str) -> dict:
        if self.dead:
            raise WorkerFailure(f"the worker is no longer running ({self.dead})")
        assert self._sock is not None
        try:
            send_msg(self._sock, dumps(req))
        except OSError:
            status = self.kill()
            self._fail(f"the worker {status} before {what}", already_dead=True)
        return self._receive(what)

    def kill(self, detach: bool = False) -> str:
        """Kill the worker and everything in its session; answer how it ended. `detach`: the
        caller does not need to know (a check that is over): the fork server reaps it while the
        judge goes on."""
        if self.pid is None:
            return "never started"
        if self.time_limit is not None:
            self.read_cpu()  # the last reading before it is gone: what the check is charged
        pid, process, self.pid, self.process = self.pid, self.process, None, None
        status = self.zygote.wait(pid, detach=detach)  # the zygote kills the worker's session, then reaps it
        if status.get("zygote_lost"):
            kill_session(pid)
            if process and process != pid:
                kill_session(process)
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self._drain is not None:
            if detach:
                self._drain.settle()
            else:
                self._drain.join(timeout=2)
        return describe_exit(status)


class _Violation(Exception):
    pass


class _CpuLimit(Exception):
    """The worker's tree used its CPU time limit."""
