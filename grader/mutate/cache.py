"""The results cache of `grader mutate`, and stopping its judges on Ctrl-C.

One JSON file per exercise under the cache folder. Entries are keyed by a hash of the graded
source; the file carries a fingerprint of everything else a verdict depends on (the exercise's
checks and metadata, the grader's version), and a changed fingerprint empties it.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
from pathlib import Path

from grader import __version__
from grader.catalog import Exercise


def fingerprint(ex: Exercise) -> str:
    h = hashlib.sha256(__version__.encode())
    for path in sorted(ex.dir.glob("*")):
        if path.is_file() and path.suffix in (".py", ".toml") and path != ex.stub:
            h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


class ResultCache:
    def __init__(self, folder: Path):
        self.dir = Path(folder).resolve()  # mutant files are read by judges running elsewhere
        self._data: dict[str, dict] = {}
        self._dirty: set[str] = set()

    def _file(self, ex: Exercise) -> Path:
        return self.dir / f"{ex.id.replace('/', '--')}.json"  # a pack's exercise may be acme/03_x

    def _entries(self, ex: Exercise) -> dict:
        if ex.id not in self._data:
            fp, entries = fingerprint(ex), {}
            try:
                stored = json.loads(self._file(ex).read_text(encoding="utf-8"))
                if stored.get("fingerprint") == fp and isinstance(stored.get("results"), dict):
                    entries = stored["results"]
            except (OSError, ValueError):
                pass
            self._data[ex.id] = {"fingerprint": fp, "results": entries}
        return self._data[ex.id]["results"]

    @staticmethod
    def key(source: str) -> str:
        return hashlib.sha256(source.encode()).hexdigest()[:20]

    def get(self, ex: Exercise, source: str) -> dict | None:
        return self._entries(ex).get(self.key(source))

    def put(self, ex: Exercise, source: str, entry: dict) -> None:
        self._entries(ex)[self.key(source)] = {k: v for k, v in entry.items() if k != "diff"}
        self._dirty.add(ex.id)

    def save(self) -> None:
        """Write the changed files (atomically: a Ctrl-C mid-write leaves the old file)."""
        for ex_id in sorted(self._dirty):
            self.dir.mkdir(parents=True, exist_ok=True)
            target = self.dir / f"{ex_id.replace('/', '--')}.json"
            tmp = target.with_suffix(".tmp")
            tmp.write_text(json.dumps(self._data[ex_id], indent=0, sort_keys=True), encoding="utf-8")
            os.replace(tmp, target)
        self._dirty.clear()


def kill_child_judges() -> list[int]:
    """Kill the process groups of this process's own children (the judges the local runtime
    started, each in its own session), so an interrupted run leaves nothing behind."""
    me, killed = os.getpid(), []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == me:
            pid = int(entry.name)
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    continue
            killed.append(pid)
    return killed
