"""Judge templates shared by every local runtime of a process, and ended once idle.

    from grader.runtimes import template_pool
    template = template_pool.acquire(python, env)   # the one for (python, env), started if needed
    ...                                              # fork judges from it (grader.runtimes.template)
    template_pool.release(template)                  # back to the pool: ended after it idles
    template_pool.discard(template)                  # broken (killed, stopped): ended now

A template costs an interpreter, imports of torch, pytest and the judge, and later the warm-ups
and the huge-page collapse it does for its judges: 2.5-4 CPU-s. Each `grade()`, `validate()` or
batch makes a local runtime of its own and closes it when done, so a program that grades again and
again (a service, a Ray worker, a notebook, the grader's own test suite: 77 runtimes) paid that for
every call. Closing a runtime now hands its template back; the next runtime of the process with the
same interpreter and judge environment takes it over, warm. What a template holds is the judge's
own code, never a job's: it reads no spec, exercise or submission (grader.runtimes.template), so a
later job learns nothing from an earlier one through it, and each judge and fork server is forked
fresh from it as before.

A template nobody holds is ended after GRADER_TEMPLATE_IDLE_S seconds (default 60; 0 ends it as
soon as it is handed back, as before the pool), or sooner when more than MAX_IDLE (2) are idle
(the oldest first), and with the process in any case: at a normal exit `close_idle()` ends the
idle ones, and any other exits when its control socket closes. `close_idle()` ends every idle
one now. A forked child of the process starts with an empty pool: the templates are its
parent's.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from dataclasses import dataclass

from grader.runtimes.template import JudgeTemplate

DEFAULT_IDLE_S = 60.0
# a machine's shared template (a Ray node's, grader.runtimes.template_shared) serves a grading
# service rather than one program: kept longer, so that the batches of a busy cluster find it warm
SHARED_IDLE_S = 300.0
MAX_IDLE = 2  # templates kept idle at once (another judge environment, e.g. another TMPDIR, makes another)


@dataclass
class _Entry:
    template: JudgeTemplate
    key: tuple
    users: int = 1
    idle_since: float = 0.0


_LOCK = threading.Lock()
_POOL: dict[tuple, _Entry] = {}
_REAPER: threading.Thread | None = None
_WAKE = threading.Event()


def idle_seconds(default: float = DEFAULT_IDLE_S) -> float:
    """How long a template nobody holds is kept (GRADER_TEMPLATE_IDLE_S, else `default`)."""
    try:
        return max(0.0, float(os.environ.get("GRADER_TEMPLATE_IDLE_S", default)))
    except ValueError:
        return default


def acquire(python: str, env: dict[str, str], shared: bool = False) -> JudgeTemplate:
    """The pool's template for this interpreter and judge environment, held until `release`d:
    an idle or busy one that is alive, else a new one (started, not yet ready). `shared`: a
    connection to the machine's shared template for them (grader.runtimes.template_shared: the
    processes of a Ray node share one), started there if none runs."""
    key = (python, tuple(sorted(env.items())), shared)
    dead = None
    with _LOCK:
        entry = _POOL.get(key)
        if entry is not None and entry.template.alive():
            entry.users += 1
            return entry.template
        if entry is not None:
            dead = entry.template
        if shared:
            from grader.runtimes.template_shared import SharedTemplate

            template = SharedTemplate(python, env, idle_s=idle_seconds(SHARED_IDLE_S))
        else:
            template = JudgeTemplate(python, env)
        _POOL[key] = _Entry(template, key)
    if dead is not None:
        dead.close()
    return template


def _entry_of(template: JudgeTemplate) -> _Entry | None:
    return next((e for e in _POOL.values() if e.template is template), None)


def release(template: JudgeTemplate) -> None:
    """Hand `template` back. Ended now when it is dead, not the pool's, or the idle time is 0;
    else kept for the next runtime and ended once it has been idle that long (in a forked child,
    whose pool is empty, `JudgeTemplate.close` leaves the parent's template alone)."""
    idle = idle_seconds()
    with _LOCK:
        entry = _entry_of(template)
        if entry is not None:
            entry.users = max(0, entry.users - 1)
            if entry.users:
                return
            if idle > 0 and template.alive():
                entry.idle_since = time.monotonic()
                # a few idle at most (each holds a warmed-up interpreter's memory): the oldest go
                idlers = sorted((e for e in _POOL.values() if e.users == 0), key=lambda e: e.idle_since)
                doomed = [_POOL.pop(e.key).template for e in idlers[:-MAX_IDLE]]
                _start_reaper()
            else:
                del _POOL[entry.key]
                doomed = [template]
        else:
            doomed = [template]
    for old in doomed:
        old.close()


def discard(template: JudgeTemplate) -> None:
    """`template` failed (it did not fork a judge, it was killed): out of the pool and ended, so
    that no later runtime waits on it."""
    with _LOCK:
        entry = _entry_of(template)
        if entry is not None:
            del _POOL[entry.key]
    template.close()


def close_idle() -> int:
    """End every template that no runtime holds now; how many."""
    with _LOCK:
        idle = [key for key, entry in _POOL.items() if entry.users == 0]
        doomed = [_POOL.pop(key).template for key in idle]
    for template in doomed:
        template.close()
    return len(doomed)


def _start_reaper() -> None:  # under _LOCK
    global _REAPER
    if _REAPER is None or not _REAPER.is_alive():
        _REAPER = threading.Thread(target=_reap, name="grader-template-reaper", daemon=True)
        _REAPER.start()
    else:
        _WAKE.set()  # a template's time may now come sooner (the idle time is read again)


def _reap() -> None:
    """End idle templates as their time comes; stop when none is idle."""
    global _REAPER
    while True:
        idle = idle_seconds()
        now = time.monotonic()
        with _LOCK:
            due = [key for key, e in _POOL.items() if e.users == 0 and now - e.idle_since >= idle]
            doomed = [_POOL.pop(key).template for key in due]
            waits = [e.idle_since + idle - now for e in _POOL.values() if e.users == 0]
            if not waits and not doomed:
                _REAPER = None
                return
        for template in doomed:
            template.close()
        if waits:
            _WAKE.wait(max(0.05, min(waits)))
            _WAKE.clear()


def _forget_in_child() -> None:
    """After os.fork: the templates are the parent's (and the lock may have been held by a thread
    that does not exist here)."""
    global _LOCK, _POOL, _REAPER, _WAKE
    _LOCK = threading.Lock()
    _POOL = {}
    _REAPER = None
    _WAKE = threading.Event()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)
# A program that ends (the CLI, a test run) ends its idle templates before it goes, as a runtime's
# close() did before the pool, rather than leaving each to notice its control socket close.
atexit.register(close_idle)
