"""Submissions for the batch tests, benchmarks and fault injection, cycling through each exercise's
reference solution, stub and known mistakes, so scores differ: small ones of exercise 05 only
(quick: `make_submissions`), and take-homes of the sample submission's three exercises, 05, 10 and
18 (`make_take_homes`: the size of a real interview submission)."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXERCISE = Path("tensors/05_broadcast_bias")
FILE = "broadcast_bias.py"
TAKE_HOME = [(EXERCISE, FILE), (Path("autograd/10_autograd_basics"), "autograd_basics.py"),
             (Path("modules/18_custom_mlp_module"), "custom_mlp_module.py")]


def variants(exercise: Path = EXERCISE, file: str = FILE) -> list[Path]:
    solutions = ROOT / "solutions" / exercise
    return [solutions / file, ROOT / "exercises" / exercise / file,
            *sorted((solutions / "mistakes").glob("*.py"))]


def make_submissions(folder: Path, count: int, exercises: list[tuple[Path, str]] | None = None) -> list[Path]:
    """`count` submission folders sub000, sub001, ... under `folder`, in the exercise layout, each
    with one file of every exercise of `exercises` ((folder, file name) pairs; default: 05 only)."""
    exercises = exercises or [(EXERCISE, FILE)]
    sources = [variants(exercise, file) for exercise, file in exercises]
    paths = []
    for i in range(count):
        sub = Path(folder) / f"sub{i:03d}"
        for (exercise, file), options in zip(exercises, sources):
            target = sub / exercise / file
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(options[i % len(options)], target)
        paths.append(sub)
    return paths


def make_take_homes(folder: Path, count: int) -> list[Path]:
    """`count` submissions of the sample submission's three exercises (05, 10, 18)."""
    return make_submissions(folder, count, TAKE_HOME)


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
