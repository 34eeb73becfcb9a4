"""`grader watch`: rerun an exercise's public checks at every save of the candidate's file.

    from grader.practice.watch import watch
    code = watch(root, exercise="05", plain=False)    # 0 after `q`, 130 after Ctrl-C

One `selectors` loop waits on three things and never polls: saves (watchfiles, see
`grader.practice.inputs`), keys (h hint, l list, n next, r rerun, q quit) and the warm judge
(`grader.practice.server`). A save while a rerun is in progress cancels it and starts a new one.
Results are rendered by `render_result`, the renderer of `grader check`; state (status per
exercise) is recorded as `grader check` records it.

In a terminal the screen is redrawn at each event; in plain mode (stdout not a terminal, or
--plain) each rerun prints one block and nothing is redrawn.
"""

from __future__ import annotations

import selectors
import signal
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from grader.catalog import Catalog, Exercise
from grader.errors import GraderError, UsageError
from grader.practice import views
from grader.practice.hints import next_hint
from grader.practice.inputs import FileWatcher, Keys
from grader.practice.session import JudgeUnavailable, RerunJob, WarmJudge
from grader.practice.state import PracticeState, public_counts, records_progress
from grader.results import GradeRun
from grader.sandbox.limits import Limits

KEYS_LINE = "h hint · l list · n next unsolved · r rerun · q quit"
LIST_PROMPT = "Type an exercise's number (e.g. 05) or name and Enter to switch to it"


def render_result(run: GradeRun, console: Console) -> None:
    """How a rerun's result is shown: exactly as `grader check` shows it (one function to swap)."""
    from grader.reports.terminal import render_checks

    render_checks(run, console)


class Interrupted(Exception):
    """SIGTERM or SIGHUP: leave as after Ctrl-C."""


class Watch:
    def __init__(self, root: Path, catalog: Catalog, ex: Exercise, console: Console, plain: bool,
                 timeout_s: float | None = None, limits: Limits | None = None, keys_stream=None):
        self.root, self.catalog, self.ex, self.console, self.plain = root, catalog, ex, console, plain
        self.timeout_s, self.limits = timeout_s, limits
        self.state = PracticeState(root)
        self.keys = Keys(keys_stream)
        self.sel = selectors.DefaultSelector()
        self.judge: WarmJudge | None = None
        self.watcher: FileWatcher | None = None
        self.job: RerunJob | None = None  # the rerun in progress
        self.pending: str | None = None  # why a rerun is wanted as soon as the judge can take it
        self.result: GradeRun | None = None
        self.body: str | None = None  # instead of a result: a syntax error, a missing file...
        self.notes: list[str] = []  # hints, offers, messages under the result
        self.mode = "watch"  # or "list"
        self.typed = ""
        self.quit = False
        self.reruns = 0

    # --- setup and teardown ----------------------------------------------------------------------

    def run(self) -> int:
        previous = {sig: signal.signal(sig, self._interrupt) for sig in (signal.SIGTERM, signal.SIGHUP)}
        try:
            self._start_judge()
            if self.keys.fd is not None:
                self.sel.register(self.keys.fd, selectors.EVENT_READ, "keys")
            self._watch_file()
            if self.plain:
                self._intro()
            self.request("started")
            self.draw()
            while not self.quit:
                self._step()
            return 0
        except (KeyboardInterrupt, Interrupted):
            return 130
        finally:
            self.close()
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _interrupt(self, signum, frame) -> None:
        raise Interrupted()

    def close(self) -> None:
        self.keys.close()
        if self.watcher is not None:
            self.watcher.close()
        if self.judge is not None:
            self.judge.close()
        if self.job is not None:
            self.job.discard()

    def _start_judge(self) -> None:
        if self.judge is not None:
            try:
                self.sel.unregister(self.judge.fileno())
            except (KeyError, ValueError):
                pass
            self.judge.close()
        self.judge = WarmJudge.start()
        self.sel.register(self.judge.fileno(), selectors.EVENT_READ, "judge")

    def _watch_file(self) -> None:
        if self.watcher is not None:
            self.sel.unregister(self.watcher.fileno())
            self.watcher.close()
        self.watcher = FileWatcher(self.ex.stub)
        self.sel.register(self.watcher.fileno(), selectors.EVENT_READ, "file")

    # --- the loop --------------------------------------------------------------------------------

    def _step(self) -> None:
        timeout = None
        if self.job is not None:
            timeout = max(0.1, self.job.started + self.job.job.wall_limit() - time.monotonic())
        events = self.sel.select(timeout)
        if not events and self.job is not None:
            self.judge.cancel()
            self.body = (f"the checks ran past their wall-clock limit of {self.job.job.wall_limit():g} s and were "
                         f"stopped; save again to rerun")
            self.draw()
        for key, _ in events:
            if key.data == "keys":
                self._on_keys()
            elif key.data == "file":
                if self.watcher.drain():
                    self.request("file saved")
                elif self.watcher.error:
                    self.notes.append(self.watcher.error + " (press r to rerun by hand)")
                    self.draw()
            elif key.data == "judge":
                self._on_judge()

    def request(self, why: str) -> None:
        """Rerun now, or as soon as the judge can (cancelling a rerun in progress)."""
        self.notes = [n for n in self.notes if not n.startswith("Hint ")]
        shown = self.shown_as()
        if not self.ex.stub.is_file():
            self.body, self.result = views.missing_file_text(self.ex, shown), None
            self._cancel_running()
            return self._emit_block(why)
        error = views.syntax_error_text(self.ex.stub, shown)
        if error:
            self.body, self.result = error, None
            self._cancel_running()
            return self._emit_block(why)
        self.pending = why
        if self.job is not None:
            self.judge.cancel()  # the judge answers "cancelled"; the new rerun starts then
        elif self.judge.ready:
            self._submit()
        self.draw()

    def _cancel_running(self) -> None:
        self.pending = None
        if self.job is not None:
            self.judge.cancel()

    def _submit(self) -> None:
        why, self.pending = self.pending, None
        self.job = RerunJob.build(self.catalog, self.ex, self.timeout_s, self.limits, why=why or "")
        try:
            self.judge.submit(self.job)
        except JudgeUnavailable as exc:
            self._judge_lost(str(exc))

    def _on_judge(self) -> None:
        try:
            events = self.judge.read_events()
        except JudgeUnavailable as exc:
            return self._judge_lost(str(exc))
        for event in events:
            kind = event.get("event")
            if kind == "ready" and self.pending and self.job is None:
                self._submit()
            elif kind == "cancelled":
                if self.job is not None:
                    self.job.discard()
                    self.job = None
                if self.pending:
                    self._submit()
            elif kind == "done" and self.job is not None:
                self._finished(self.job)
        self.draw()

    def _judge_lost(self, why: str) -> None:
        """The warm judge itself stopped: report it, start a new one, rerun."""
        if self.job is not None:
            self.job.discard()
            self.job = None
        self.notes.append(f"{why.splitlines()[0]}: restarting it")
        self._start_judge()
        self.pending = self.pending or "judge restarted"

    def _finished(self, job: RerunJob) -> None:
        self.job = None
        self.result, self.body = job.result(), None
        self.reruns += 1
        job.discard()
        counts = public_counts(self.result, self.ex.id)
        if counts:
            self.state.record_result(self.ex.id, *counts)
        if counts and counts[0] == counts[1] and counts[1]:
            states = self.state.load()
            nxt = views.next_unsolved(self.catalog, states, after=self.ex)
            if nxt is None:
                self.notes.append(views.completion_text(self.root, self.catalog))
            else:
                self.notes.append(f"✓ {self.ex.id} passes all its public checks. Next unsolved: {nxt.id} "
                                  f"(press n to go on)")
        self._emit_block(job.why)

    # --- keys ------------------------------------------------------------------------------------

    def _on_keys(self) -> None:
        keys = self.keys.read()
        if keys is None:  # end of input (a pipe): keep watching
            self.sel.unregister(self.keys.fd)
            return
        for key in keys:
            if self.quit:
                return
            if self.mode == "list":
                self._list_key(key)
            elif key == "q":
                self.quit = True
            elif key == "r":
                self.request("rerun (r)")
            elif key == "h":
                self._hint()
            elif key == "n":
                self._next()
            elif key == "l":
                self.mode, self.typed = "list", ""
                self.draw()
                if self.plain:
                    self._plain_list()

    def _list_key(self, key: str) -> None:
        """An exercise is picked as everywhere else: by its number (05, 5), its folder name or a
        unique prefix of it, then Enter. Before anything is typed, l and Esc go back, q quits."""
        if key == "\x1b" or (key == "l" and not self.typed):
            self.mode, self.typed = "watch", ""
        elif key == "q" and not self.typed:
            self.quit = True
            return
        elif key in ("\x7f", "\b"):
            self.typed = self.typed[:-1]
        elif key in ("\r", "\n"):
            ref, self.typed = self.typed.strip(), ""
            if ref:
                self.mode = "watch"
                try:
                    return self.switch(self.catalog.get(ref))
                except GraderError:
                    shown = ", ".join(f"{ex.number:02d}" for ex in self.catalog.exercises[:12])
                    more = ", ..." if len(self.catalog.exercises) > 12 else ""
                    self.notes.append(f"no exercise {ref!r} in this bundle: press l and type one of {shown}{more} "
                                      f"(or its name), then Enter")
                    return self._emit_note()
        elif key.isprintable() and (key.isalnum() or key in "_-/") and len(self.typed) < 80:
            self.typed += key
        self.draw()

    def _hint(self) -> None:
        try:
            text = next_hint(self.root, self.ex, again="press h again")
        except GraderError as exc:
            text = f"no hints: {exc}"
        self.notes = [n for n in self.notes if not n.startswith("Hint ")]
        self.notes.append(text)
        self._emit_note()

    def _next(self) -> None:
        nxt = views.next_unsolved(self.catalog, self.state.load(), after=self.ex)
        if nxt is None:
            self.notes.append(views.completion_text(self.root, self.catalog))
            return self._emit_note()
        self.switch(nxt)

    def switch(self, ex: Exercise) -> None:
        self.ex, self.notes, self.result, self.body = ex, [], None, None
        self._watch_file()
        self.request(f"switched to {ex.id}")

    # --- output ----------------------------------------------------------------------------------

    def shown_as(self) -> str:
        try:
            return str(self.ex.stub.relative_to(Path.cwd()))
        except ValueError:
            return str(self.ex.stub)

    def _intro(self) -> None:
        self.console.print(f"grader watch: {len(self.catalog.exercises)} exercises in {self.root}. "
                           f"Save your file to rerun its public checks. Keys: {KEYS_LINE}.", markup=False,
                           soft_wrap=True)
        if records_progress(self.root):
            self.console.print(self._progress_notice(), markup=False, soft_wrap=True)

    def _progress_notice(self) -> str:
        return ("This bundle records your progress: every rerun and hint adds a line (time, exercise, public "
                "score, hints used) to exercises/.grader-progress.jsonl, submitted with your files and shown to the "
                "interviewer as a timeline (recorded on your machine, not verified).")

    def _header(self) -> None:
        ex = self.ex
        self.console.print(f"[bold]grader watch[/] · [bold]{ex.id}[/] {escape(ex.title)} "
                           f"({ex.difficulty}, {ex.points:g} points)")
        self.console.print(f"Your file: {escape(self.shown_as())}")
        self.console.print(views.progress_line(self.catalog, self.state.load()), markup=False)

    def _emit_block(self, why: str) -> None:
        """Plain mode: one block per rerun. Terminal: redraw."""
        if not self.plain:
            return self.draw()
        stamp = time.strftime("%H:%M:%S")
        self.console.print(f"--- {self.ex.id} · {why} · {stamp} ---", markup=False)
        self._body()
        self.console.print(views.progress_line(self.catalog, self.state.load()), markup=False)
        for note in self.notes:
            self.console.print(note, markup=False)
        self.notes = [n for n in self.notes if n.startswith("Hint ")]

    def _emit_note(self) -> None:
        if not self.plain:
            return self.draw()
        for note in self.notes:
            self.console.print(note, markup=False)
        self.notes = []

    def _body(self) -> None:
        if self.body:
            self.console.print(self.body, markup=False, highlight=False)
        elif self.result is not None:
            render_result(self.result, self.console)

    def _plain_list(self) -> None:
        from grader.reports.terminal import columns

        rows = [views.STATUS_HEADER] + views.status_rows(self.catalog, self.state.load())
        self.console.print(columns(rows), markup=False, highlight=False)
        self.console.print(f"{LIST_PROMPT} (Esc or l: back).", markup=False)

    def draw(self) -> None:
        """Terminal mode: the whole screen, redrawn."""
        if self.plain:
            return
        self.console.clear()
        self._header()
        if records_progress(self.root):
            self.console.print(self._progress_notice(), markup=False, style="dim")
        self.console.print()
        if self.mode == "list":
            from grader.reports.terminal import columns

            rows = [views.STATUS_HEADER] + views.status_rows(self.catalog, self.state.load())
            self.console.print(columns(rows), markup=False, highlight=False)
            self.console.print(f"\n{LIST_PROMPT} (Esc: back): {self.typed}", markup=False)
            return
        if self.job is not None or (self.pending and self.result is None and self.body is None):
            self.console.print(f"[dim]running the public checks of {self.ex.id} ...[/]")
        self._body()
        for note in self.notes:
            self.console.print()
            self.console.print(note, markup=False)
        self.console.print()
        self.console.print(f"[dim]{KEYS_LINE} · watching {escape(self.ex.stub.name)} for saves[/]")


def watch(root: Path, exercise: str | None = None, plain: bool = False, console: Console | None = None,
          timeout_s: float | None = None, limits: Limits | None = None) -> int:
    """Watch `exercise` (a ref; None: the first unsolved) of the tree at `root` until q (0) or
    Ctrl-C (130). Raises UsageError for an unknown exercise."""
    catalog = Catalog.load(root, allow_missing_stub=True)
    if not catalog.exercises:
        problems = "; ".join(catalog.problems.values()) or "no exercise folders"
        raise UsageError(f"no exercise can be watched under {root / 'exercises'}: {problems}")
    if exercise:
        ex = catalog.get(exercise)
    else:
        ex = views.next_unsolved(catalog, PracticeState(root).load()) or catalog.exercises[0]
    console = console or Console(highlight=False)
    if plain:
        console.soft_wrap = True  # one block per rerun, lines as long as they are: editors and tests read them
    return Watch(root, catalog, ex, console, plain, timeout_s, limits).run()
