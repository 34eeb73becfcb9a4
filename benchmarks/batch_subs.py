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
