"""The progress record a bundle exported with `grader export --record-progress` keeps:
`exercises/.grader-progress.jsonl`, one JSON line per public run or hint shown (time, exercise,
event, public checks passed and counted, hints used). Practice mode writes it on the candidate's
machine (`grader.practice.state`); grading reads it from a submission (`read_progress`) for the
HTML report's timeline. Nothing verifies it: the reader caps it and type-checks every field.
"""

from __future__ import annotations

import json
from pathlib import Path

PROGRESS_FILE = ".grader-progress.jsonl"
MAX_PROGRESS_BYTES = 4 << 20  # the reader's cap; a longer log is cut (it is the candidate's file)


def read_progress(folder: Path) -> list[dict]:
    """The progress record found in a submission (`folder` or its exercises/ subfolder), as a list
    of well-formed entries; [] when there is none. The file is the candidate's: capped, and every
    field is type-checked."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    for path in (folder / PROGRESS_FILE, folder / "exercises" / PROGRESS_FILE):
        if path.is_file() and not path.is_symlink():
            break
    else:
        return []
    entries = []
    with open(path, "rb") as fh:
        data = fh.read(MAX_PROGRESS_BYTES)
    for raw in data.splitlines():
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(entry, dict):
            continue
        fields = (entry.get("time"), entry.get("exercise"), entry.get("event"), entry.get("passed"),
                  entry.get("total"), entry.get("hints"))
        if not (all(isinstance(f, str) for f in fields[:3]) and all(type(f) is int for f in fields[3:])):
            continue
        entries.append({"time": fields[0][:40], "exercise": fields[1][:80], "event": fields[2][:10],
                        "passed": fields[3], "total": fields[4], "hints": fields[5]})
    return entries
