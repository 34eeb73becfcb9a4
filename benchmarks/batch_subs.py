"""Small submissions for the batch tests, benchmarks and fault injection: exercise 05 only (quick),
cycling through the reference solution, the stub and the known mistakes, so scores differ."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXERCISE = Path("tensors/05_broadcast_bias")
FILE = "broadcast_bias.py"


def variants() -> list[Path]:
    solutions = ROOT / "solutions" / EXERCISE
    return [solutions / FILE, ROOT / "exercises" / EXERCISE / FILE,
            *sorted((solutions / "mistakes").glob("*.py"))]


def make_submissions(folder: Path, count: int) -> list[Path]:
    """`count` submission folders sub000, sub001, ... under `folder`, in the exercise layout."""
    sources = variants()
    paths = []
    for i in range(count):
        sub = Path(folder) / f"sub{i:03d}"
        target = sub / EXERCISE / FILE
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sources[i % len(sources)], target)
        paths.append(sub)
    return paths


def strip_timings(run) -> list[dict]:
    """A run's submissions as dicts without what legitimately differs between runs (timings)."""
    subs = []
    for s in run.submissions:
        d = s.to_dict()
        for e in d["exercises"]:
            for c in e["checks"]:
                c.pop("duration_s")
        subs.append(d)
    return subs
