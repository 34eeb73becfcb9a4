"""Progress of a batch on stderr: a live rich display on a terminal (done/total, running, failed,
ETA, the score spread so far), or one plain line per finished submission when stderr is not a
terminal, with --quiet, or with NO_COLOR set (CI logs stay readable).

Both reporters take the same calls from grader/batch.py, from any thread: `start(total, resumed)`,
`started(label)`, `finished(label, graded)`, `close()`. A label is the submission's name, an error
quotes its paths: both are printed inert (`grader.reports.safe`: no escape sequence, no line that
starts a GitHub workflow command, no rich markup).
"""

from __future__ import annotations

import os
import statistics
import sys
import threading
import time
from typing import TextIO

from grader.reports import safe
from grader.results import fmt_points
from grader.resultstore import Graded


class _Tally:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.total = 0
        self.done = 0
        self.failed = 0
        self.resumed = 0
        self.running: set[str] = set()
        self.percents: list[float] = []
        self.t0 = time.monotonic()
        self.graded_here = 0

    def start(self, total: int, resumed: list[Graded]) -> None:
        with self.lock:
            self.total, self.t0 = total, time.monotonic()
            for g in resumed:
                self._count(g)
            self.resumed = len(resumed)

    def _count(self, graded: Graded) -> None:
        self.done += 1
        if graded.submission.error:
            self.failed += 1
        else:
            self.percents.append(graded.submission.percent)

    def finish(self, label: str, graded: Graded) -> None:
        with self.lock:
            self.running.discard(label)
            self._count(graded)
            self.graded_here += 1

    def eta_s(self) -> float | None:
        left = self.total - self.done
        if not self.graded_here or left <= 0:
            return None
        return (time.monotonic() - self.t0) / self.graded_here * left

    def spread(self) -> str:
        if not self.percents:
            return "no scores yet"
        p = self.percents
        return f"scores min {min(p):g} % · median {statistics.median(p):g} % · max {max(p):g} %"


def _first_line(text: str) -> str:
    lines = text.splitlines()
    return lines[0][:200] if lines else ""


def _fmt_eta(seconds: float | None) -> str:
    if seconds is None:
        return "ETA -"
    seconds = int(seconds + 0.5)
    return f"ETA {seconds // 60}:{seconds % 60:02d}"


class PlainProgress:
    """One line per finished submission: `[3/8] alice: 42/50 (84 %) in 3.1 s`."""

    def __init__(self, stream: TextIO | None = None):
        self.stream = stream or sys.stderr
        self.tally = _Tally()

    def start(self, total: int, resumed: list[Graded]) -> None:
        self.tally.start(total, resumed)
        if resumed:
            self._line(f"resuming: {len(resumed)} of {total} submissions already graded in --results-dir")

    def started(self, label: str) -> None:
        with self.tally.lock:
            self.tally.running.add(label)

    def finished(self, label: str, graded: Graded) -> None:
        self.tally.finish(label, graded)
        sub = graded.submission
        what = (f"ERROR: {safe.inert(_first_line(sub.error))}" if sub.error else
                f"{fmt_points(sub.score)}/{fmt_points(sub.max_score)} ({sub.percent:g} %)")
        self._line(f"[{self.tally.done}/{self.tally.total}] {safe.inert(label)}: {what} in {graded.duration_s:.1f} s")

    def close(self) -> None:
        t = self.tally
        self._line(f"{t.done}/{t.total} graded, {t.failed} failed" + (f", {t.resumed} resumed" if t.resumed else "")
                   + f"; {t.spread()}")

    def _line(self, text: str) -> None:
        with self.tally.lock:
            print(text, file=self.stream, flush=True)


class LiveProgress:
    """A rich progress bar with the counts, ETA and score spread, redrawn in place on stderr."""

    def __init__(self, console=None):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.console = console or Console(stderr=True)
        self.tally = _Tally()
        self.progress = Progress(TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                 TextColumn("{task.fields[status]}"), console=self.console, transient=False)
        self.task = None

    def start(self, total: int, resumed: list[Graded]) -> None:
        self.tally.start(total, resumed)
        self.task = self.progress.add_task("grading", total=total, completed=len(resumed), status="")
        self.progress.start()
        self._refresh()

    def started(self, label: str) -> None:
        with self.tally.lock:
            self.tally.running.add(label)
        self._refresh()

    def finished(self, label: str, graded: Graded) -> None:
        self.tally.finish(label, graded)
        if graded.submission.error:
            self.progress.console.print(f"[red]{safe.terminal(label)}[/]: "
                                        f"{safe.terminal(_first_line(graded.submission.error))}",
                                        markup=True, highlight=False)
        self._refresh()

    def _refresh(self) -> None:
        t = self.tally
        with t.lock:
            status = (f"running {len(t.running)} · failed {t.failed} · {_fmt_eta(t.eta_s())} · {t.spread()}")
            done = t.done
        if self.task is not None:
            self.progress.update(self.task, completed=done, status=status)

    def close(self) -> None:
        self._refresh()
        self.progress.stop()


def make_progress(quiet: bool = False, stream: TextIO | None = None):
    """LiveProgress on a terminal; PlainProgress with --quiet, NO_COLOR, or stderr not a terminal."""
    stream = stream or sys.stderr
    if quiet or os.environ.get("NO_COLOR") or not stream.isatty() or os.environ.get("TERM") == "dumb":
        return PlainProgress(stream)
    return LiveProgress()
