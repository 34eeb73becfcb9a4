"""`grader new`: scaffold an exercise and its solutions folder, in the shape docs/authoring.md gives.

    from grader.scaffold import scaffold
    made = scaffold("attention_mask", track="modules", root=Path("acme-pack"))
    made.exercise_dir        # acme-pack/exercises/modules/04_attention_mask (numbered after the root's last)

Every file holds placeholders marked `TODO(grader new)`; `grader validate` reports each file that
still holds one (`scaffold_problems`), besides what it finds anyway in a new exercise (an empty
`tests` list, an interviewer's guide without minutes or follow-up questions, a reference that
raises NotImplementedError, no known mistakes), so a fresh scaffold is "incomplete" (exit 3), each
gap said in a sentence. Nothing is written when the name is taken or `root` is not an exercise
root (a folder with pack.toml, or with exercises/ and solutions/): UsageError, exit 2.
"""

from __future__ import annotations

import keyword
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from grader.errors import UsageError

MARKER = "TODO(grader new)"
_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
_FOLDER_RE = re.compile(r"^(\d\d)_([a-z0-9_]+)$")
DEFAULT_TRACK = "general"

# what each file needs, said when it still holds the scaffold's placeholder
_WHAT = {
    "README.md": "write the question, the task (the exact contract), a worked example, the things to think about "
                 "and the graders' notes with the per-check table",
    "stub": "give the exercise's signatures, each with a docstring of at most two sentences on what it returns",
    "test_public.py": "write 2-4 example checks (the worked example) that candidates run with `grader check`",
    "test_hidden.py": "write a hidden check for every promise of the task, each failing when that promise alone "
                      "is broken",
    "hints.md": "write one to three hints, from the concept to the trap, with no line of the solution",
    "interviewer.md": "write the interviewer's guide: minutes, what it reveals, 3-5 follow-up questions, signals, "
                      "how to read the score, what each hint gives away",
    "reference": "write the reference solution (it must score 100 %)",
}


@dataclass(frozen=True)
class Scaffold:
    """What `scaffold` made."""

    id: str  # NN_name
    track: str
    root: Path
    exercise_dir: Path
    solutions_dir: Path
    files: tuple[Path, ...]
    pack: str | None = None  # the pack's name when `root` is a pack


def exercise_root(root: Path | None = None) -> Path:
    """The exercise root to scaffold into: `root` (default: the discovered one, `grader.roots`),
    which must hold a valid pack.toml, or both exercises/ and solutions/. UsageError otherwise."""
    from grader.pack_manifest import PACK_FILE, load_pack

    if root is None:
        from grader.roots import discover_root

        root = discover_root()
    root = Path(root).expanduser()
    if not root.is_dir():
        raise UsageError(f"{root}: no such folder: give an exercise root (a pack folder holding pack.toml, or a "
                         f"checkout holding exercises/ and solutions/)")
    root = root.resolve()
    if (root / PACK_FILE).is_file():
        load_pack(root)  # a malformed pack.toml is the user's to fix first (PackError, exit 2)
        return root
    if (root / "exercises").is_dir() and (root / "solutions").is_dir():
        return root
    missing = " and ".join(name for name in ("exercises/", "solutions/") if not (root / name).is_dir())
    raise UsageError(f"{root} is not an exercise root: it has no {PACK_FILE} and no {missing} (a candidate bundle has "
                     f"no solutions/). Scaffold into the grader's checkout or a pack: make one with a pack.toml "
                     f"(name, version, torch) beside exercises/ and solutions/, see docs/authoring.md, 'Packs'")


def _folders(root: Path) -> list[Path]:
    return sorted(f for base in ("exercises", "solutions") for f in (root / base).glob("*/*")
                  if f.is_dir() and _FOLDER_RE.match(f.name))


def next_number(root: Path) -> int:
    """One more than the highest exercise number under `root` (1 for an empty root)."""
    numbers = [int(_FOLDER_RE.match(f.name).group(1)) for f in _folders(root)]
    return max(numbers, default=0) + 1


def default_track(root: Path) -> str:
    """The track of the root's last exercise (DEFAULT_TRACK for an empty root)."""
    folders = [f for f in _folders(root) if f.parent.parent.name == "exercises"]
    if not folders:
        return DEFAULT_TRACK
    return max(folders, key=lambda f: (int(f.name[:2]), f.name)).parent.name


def _check_name(name: str, what: str) -> None:
    if not _NAME_RE.match(name) or keyword.iskeyword(name):
        hint = " without its number (grader new numbers it)" if _FOLDER_RE.match(name) else ""
        raise UsageError(f"{what} {name!r} is not usable: give it{hint} in lowercase letters, digits and '_', starting "
                         f"with a letter (it names the stub module, e.g. attention_mask)")
    if what == "exercise name" and name.startswith("test"):
        raise UsageError(f"exercise name {name!r} starts with 'test', which names check files: choose another")


def scaffold(name: str, track: str | None = None, root: Path | None = None) -> Scaffold:
    """Write exercises/<track>/<NN_name>/ and solutions/<track>/<NN_name>/ under `root` (see the
    module docstring). Raises UsageError, having written nothing, when it cannot."""
    from grader.pack_manifest import pack_of_root

    name = name.strip()
    _check_name(name, "exercise name")
    root = exercise_root(root)
    track = (track or default_track(root)).strip()
    _check_name(track, "track")
    taken = [f for f in _folders(root) if _FOLDER_RE.match(f.name).group(2) == name]
    if taken:
        raise UsageError(f"an exercise named {name!r} exists already ({taken[0]}): choose another name; nothing "
                         f"was written")
    number = next_number(root)
    if number > 99:
        raise UsageError(f"{root} already has an exercise numbered 99: exercise folders are numbered NN_name, so "
                         f"start a pack of its own")
    ex_id = f"{number:02d}_{name}"
    ex_dir = root / "exercises" / track / ex_id
    sol_dir = root / "solutions" / track / ex_id
    for folder in (ex_dir, sol_dir):
        if folder.exists():
            raise UsageError(f"{folder} exists already: nothing was written")
    pack = pack_of_root(root)
    files = _files(name, track, number, pack.name if pack else None)
    created: list[Path] = []
    try:
        for rel, text in files.items():
            base, rest = rel.split("/", 1)
            path = (ex_dir if base == "exercise" else sol_dir) / rest
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            created.append(path)
    except OSError as exc:
        for folder in (ex_dir, sol_dir):
            shutil.rmtree(folder, ignore_errors=True)
        raise UsageError(f"could not write the exercise under {root} ({exc}): nothing was kept") from None
    return Scaffold(ex_id, track, root, ex_dir, sol_dir, tuple(created), pack.name if pack else None)


def scaffold_problems(ex) -> list[str]:
    """Each file of exercise `ex` that still holds the scaffold's placeholder, in a sentence saying
    what to write there."""
    files = [(ex.dir / "README.md", "README.md"), (ex.stub, "stub"), (ex.public_tests, "test_public.py"),
             (ex.hidden_tests, "test_hidden.py"), (ex.dir / "hints.md", "hints.md"),
             (ex.dir / "interviewer.md", "interviewer.md"), (ex.reference, "reference")]
    problems = []
    for path, kind in files:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        line = next((i for i, text in enumerate(lines, 1) if MARKER in text), None)
        if line is not None:
            problems.append(f"{path}:{line}: still holds the scaffold's placeholder ({MARKER}): {_WHAT[kind]}.")
    return problems


# --- the files ------------------------------------------------------------------------------------

def _files(name: str, track: str, number: int, pack: str | None) -> dict[str, str]:
    ex_id = f"{number:02d}_{name}"
    nn = f"{number:02d}"
    title = name.replace("_", " ").capitalize()
    ref = f"{pack}/{nn}" if pack else nn
    values = {"name": name, "track": track, "nn": nn, "id": ex_id, "title": title, "ref": ref, "M": MARKER}
    return {rel.format(**values): text.format(**values) for rel, text in _TEMPLATES.items()}


_TEMPLATES: dict[str, str] = {}

_TEMPLATES["exercise/README.md"] = """\
# {nn} {title}

## The question

{M}: what an interviewer would ask aloud, in a few sentences. No lecture that explains the answer.

## Your task

{M}: the exact, observable contract. Implement `{name}(x)` in `{name}.py`:

- inputs, outputs, shapes, dtypes and devices;
- edge cases and the errors raised;
- what must hold afterwards (inputs untouched, train/eval mode, memory bounds, a forbidden API).

Precise enough that every hidden check follows from it; it never names the one call that is the answer.

## Worked example

```python
>>> {name}(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
...  # {M}: the result
```

## Things to think about

- {M}: the traps, as questions (the hints draw on these).

## Notes for graders

| check | kind | promise it enforces |
|---|---|---|
| `test_matches_reference` | value | {M}: the promise |
| `test_input_untouched` | state | "leaves its input untouched" |
| `test_no_python_loops` | api | "vectorised: no Python loop" |
"""

_TEMPLATES["exercise/exercise.toml"] = """\
title = "{title}"
track = "{track}"
difficulty = "medium"         # easy | medium | hard  (points default to 10 | 20 | 30)
gpu = "no"                    # required | optional | no
sources = []                  # where the question comes from, e.g. ["000#5"]
tests = []                    # interviewer-only: what the exercise tests, its traps in a few words each

[api]
forbidden = []                # informative; enforce it in an `api` check
"""

_TEMPLATES["exercise/{name}.py"] = '''\
"""{title}."""

import torch


def {name}(x: torch.Tensor) -> torch.Tensor:
    """{M}: what it returns, in at most two sentences."""
    raise NotImplementedError
'''

_TEMPLATES["exercise/test_public.py"] = '''\
"""Public checks of {id}: 2-4 examples that candidates run with `grader check {ref}` (shipped to them:
never call reference() here). {M}: check the README's worked example."""

import torch

from grader.testing import assert_shape, check


@check("shape")
def test_example_shape(sub):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert_shape(sub.{name}(x), (2, 2))
'''

_TEMPLATES["exercise/test_hidden.py"] = '''\
"""Hidden checks of {id} (never shipped): one per promise of the README's task, each failing when that
promise alone is broken (docs/authoring.md, "Promise coverage"). {M}: replace these examples, one of each
kind of helper, with the checks of this exercise."""

import torch

from grader.testing import assert_close, check, reference

ref = reference(__file__)  # the reference solution, loaded in the judge (trusted)


# 1. A plain value check: the candidate's function runs in the worker, the comparison in the judge.
@check("value", weight=2)
def test_matches_reference(sub, device):  # `device`: cpu, and cuda where there is one
    x = torch.randn(5, 3, device=device)
    assert_close(sub.{name}(x), ref.{name}(x))


# 2. A probe: runs in the worker on the real objects, and returns plain data. It observes; the expected
#    value is computed in the judge, and the answer is checked before the side effect.
@check("state")
def test_input_untouched(sub):
    def observe(mod, x):
        before = x.clone()
        out = mod.{name}(x)
        return out, torch.equal(x, before)

    x = torch.randn(5, 3)
    out, untouched = sub.probe(observe, sub, x)
    assert_close(out, ref.{name}(x))
    assert untouched, "{name} modified its input in place"


# 3. A static check: the candidate's parsed source, in the judge. require_implemented first (the stub
#    earns nothing), then the value (credit for *how* goes only to a function that computes the right thing).
@check("api")
def test_no_python_loops(sub):
    sub.static.require_implemented("{name}")
    x = torch.randn(5, 3)
    assert_close(sub.{name}(x), ref.{name}(x))
    loops = sub.static.loops_in("{name}")
    assert not loops, f"{name} uses a Python loop (line {{loops[0][0] if loops else 0}}): vectorise it"


# 4. Memory and time, measured from outside the worker (never time inside a probe: its clock is the
#    candidate's). sub.cpu_timed gives the CPU time the worker spent, whatever the machine's load; sub.timed
#    (the judge's wall clock) is right only as an upper bound or in a ratio of two calls (docs/authoring.md).
# @check("perf")
# def test_memory_bound(sub):
#     x = torch.randn(1000, 1000)
#     out, used = sub.measure_memory(sub.{name}, x, count_held=True)
#     assert_close(out, ref.{name}(x))
#     assert used < 3 * x.numel() * x.element_size(), f"{name} used {{used}} bytes"
#
# @check("perf", timeout_s=60)
# def test_fast_enough(sub):
#     def run(mod, x):
#         return mod.{name}(x)
#
#     x = torch.randn(4096, 256)
#     out, seconds = sub.cpu_timed(run, sub, x)
#     assert_close(out, ref.{name}(x))
#     assert seconds < 1.0, f"{name} took {{seconds:.2f}} s of CPU for 4096 x 256 (at most 1 s)"
'''

_TEMPLATES["exercise/hints.md"] = """\
# Hints: {nn} {title}

## Hint 1
{M}: the concept: what to read about, which rule applies.

## Hint 2
Narrower: where this exercise applies it, and a small experiment that shows it.

## Hint 3
The trap: what the obvious answer gets wrong, in words (never a line of the solution).
"""

_TEMPLATES["exercise/interviewer.md"] = """\
# Interviewer's guide: {nn} {title}

## Time
{M}: "About N minutes for a competent candidate", and how you estimated it (reading, lines to write, checks).

## What it reveals
What the exercise tells apart.

## Follow-up questions
(3 to 5 numbered questions, each with a short model answer: `1. **A question** A short answer.`)

## Strong and weak signals
- Strong: ...
- Weak: ...

## Reading the score
Which checks are the core, which are edges, what a typical partial score means.

## What the hints give away
- Hint 1: ...
"""

_TEMPLATES["solution/{name}.py"] = '''\
"""Reference solution of {id}: `grader validate {ref}` requires it to score 100 %."""

import torch


def {name}(x: torch.Tensor) -> torch.Tensor:
    raise NotImplementedError("{M}: the reference solution")
'''

_TEMPLATES["solution/mistakes/README.md"] = """\
# Known mistakes of {id}

One complete, plausible wrong answer per file (`<what_it_gets_wrong>.py`, at least two). Each module's
docstring explains the mistake and ends with a line naming the checks that must catch it:

    Caught by: test_matches_reference

`grader validate` requires every named check to fail for it, and no other check to be needed.
"""

_TEMPLATES["solution/alternatives/README.md"] = """\
# Other correct answers to {id}

Other correct solutions (another API, another algorithm), one per file: each must score 100 %, which
catches a check stricter than the contract.
"""
