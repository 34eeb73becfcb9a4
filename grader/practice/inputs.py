"""What `grader watch` waits on besides the judge: saves of the candidate's file (watchfiles) and
key presses. Both are file descriptors for one `selectors` loop: nothing polls.

Saves: watchfiles (Rust `notify`: inotify on Linux, FSEvents on macOS) watches the exercise's
folder, not the file, so an editor that saves by writing a temporary file and renaming it over
the original (vim, VS Code, JetBrains "safe write") is seen: the rename shows as the file deleted
and added again. watchfiles groups changes until none came for `step` ms (at most `debounce` ms),
so such a save, or a burst of saves, arrives as one batch: one rerun.
"""

from __future__ import annotations

import os
import sys
import termios
import threading
import tty
from pathlib import Path

import watchfiles

STEP_MS = 50  # a batch ends after this long without a change
DEBOUNCE_MS = 800  # ... or after this long in all


class FileWatcher:
    """Watches one file through its folder; `fileno()` turns readable when it changed (saved,
    replaced by a rename, deleted or renamed away)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="grader-watch-files", daemon=True)
        self.error: str | None = None
        self._thread.start()

    def _run(self) -> None:
        name = self.path.name
        try:
            for _ in watchfiles.watch(self.path.parent, watch_filter=lambda _change, p: Path(p).name == name,
                                      debounce=DEBOUNCE_MS, step=STEP_MS, stop_event=self._stop,
                                      raise_interrupt=False, recursive=False):
                os.write(self._write, b"!")
        except Exception as exc:  # noqa: BLE001 - reported by the loop; `r` still reruns by hand
            self.error = f"watching {self.path.parent} stopped: {exc}"
            os.write(self._write, b"?")

    def fileno(self) -> int:
        return self._read

    def drain(self) -> bool:
        """Consume the notifications; True when the file changed (False: the watcher failed)."""
        try:
            data = os.read(self._read, 4096)
        except BlockingIOError:
            return False
        return b"!" in data

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        for fd in (self._read, self._write):
            try:
                os.close(fd)
            except OSError:
                pass


class Keys:
    """Single key presses from stdin: a terminal is put in cbreak mode (no Enter needed, Ctrl-C
    still interrupts) and restored on close; other stdin (a pipe) is read as it comes."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stdin
        try:
            self.fd: int | None = self.stream.fileno()
        except (OSError, ValueError, AttributeError):
            self.fd = None
        self._saved = None
        if self.fd is not None and os.isatty(self.fd):
            try:
                self._saved = termios.tcgetattr(self.fd)
                tty.setcbreak(self.fd, termios.TCSANOW)  # keep keys typed before the start
            except termios.error:
                self._saved = None

    def read(self) -> str | None:
        """The keys available now; None at end of input."""
        assert self.fd is not None
        try:
            data = os.read(self.fd, 64)
        except BlockingIOError:
            return ""
        except OSError:
            return None
        return data.decode(errors="replace") if data else None

    def close(self) -> None:
        if self._saved is not None and self.fd is not None:
            try:
                termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
            except termios.error:
                pass
            self._saved = None
