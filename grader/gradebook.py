"""What an interviewer grading a batch needs beyond the reports: every submission graded on the
same exercises, and one candidate-facing report per submission (`--feedback-dir`). The gradebook
CSV (`--csv`) is a report: `grader.reports.csv_report`.

- `same_exercises`: in a batch (more than one submission, no `--exercises`), the exercises asked
  of every submission are those found in any of them; an exercise a submission lacks scores 0 of
  its points, with a note, and its checks are those the others were graded on (so the overview
  ranks every candidate over the same points). One submission alone keeps only what it holds.
- `write_feedback`: `<name>.html` and `<name>.md` per submission, in the candidate's form
  (`grader.reports.audience`: hidden checks only in aggregate), named after the submission with
  a file name that is safe everywhere and unique in the folder.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from grader.errors import UsageError
from grader.results import CheckResult, ExerciseResult, GradeRun, SubmissionResult

_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)), *(f"LPT{i}" for i in range(1, 10))}


# --- the same exercises for every submission of a batch ---------------------------------------------

def same_exercises(subs: list[SubmissionResult], order: list[str] | None = None) -> list[SubmissionResult]:
    """`subs` with every exercise found in any of them asked of each (see the module docstring).
    `order`: exercise ids in the catalogue's order (the others after them, as found)."""
    templates: dict[str, ExerciseResult] = {}
    for sub in subs:
        for ex in sub.exercises:
            best = templates.get(ex.id)
            if best is None or (bool(best.problem), -len(best.checks)) > (bool(ex.problem), -len(ex.checks)):
                templates[ex.id] = ex  # one graded normally, with the most checks, says what is asked
    rank = {ex_id: i for i, ex_id in enumerate(order or [])}
    found = list(templates)
    ids = sorted(found, key=lambda i: (rank.get(i, len(rank)), found.index(i)))
    out = []
    for sub in subs:
        have = {ex.id for ex in sub.exercises}
        if have >= set(ids):
            out.append(sub)
            continue
        why = ("not graded: the submission could not be opened (see its error)" if sub.error else
               "not in this submission: every submission of the batch is graded on the exercises found in any "
               "of them, so this one scores 0 of its points")
        added = {i: missing_exercise(templates[i], why) for i in ids if i not in have}
        exercises = [ex for ex in sub.exercises] + list(added.values())
        exercises.sort(key=lambda ex: ids.index(ex.id) if ex.id in ids else len(ids))
        out.append(dataclasses.replace(sub, exercises=tuple(exercises)))
    return out


def missing_exercise(template: ExerciseResult, why: str) -> ExerciseResult:
    """An exercise a submission does not answer: the checks `template` was graded on, each failed
    with `why` (those that could not run here stay not run), 0 of the same points."""
    checks = tuple(CheckResult(name=c.name, kind=c.kind, weight=c.weight, visibility=c.visibility,
                               outcome="not_run" if c.outcome == "not_run" else "failed", message=why,
                               duration_s=0.0, file=c.file, line=c.line, score=0.0,
                               max_score=0.0 if c.outcome == "not_run" else c.max_score)
                   for c in template.checks)
    return dataclasses.replace(template, file=None, checks=checks, problem=why, flags=())


def archive_paths(exercises: tuple[ExerciseResult, ...], unpacked: str, archive: str) -> tuple[ExerciseResult, ...]:
    """`exercises` with the temporary folder an archive was unpacked to (gone after grading) named
    as the archive in messages: `File "/tmp/grader-submission-x/alice/f.py"` becomes
    `File "/subs/alice.zip/f.py"`, as Python names a file inside a zip it imports from."""
    if not unpacked or unpacked == archive:
        return exercises

    def fix(text: str) -> str:
        return text.replace(unpacked, archive) if unpacked in text else text

    out = []
    for ex in exercises:
        checks = tuple(dataclasses.replace(c, message=fix(c.message), output=fix(c.output)) for c in ex.checks)
        flags = tuple(dataclasses.replace(f, message=fix(f.message)) for f in ex.flags)
        out.append(dataclasses.replace(ex, checks=checks, flags=flags, problem=fix(ex.problem) if ex.problem else
                                       ex.problem))
    return tuple(out)


# --- feedback for each candidate -------------------------------------------------------------------

def file_stems(names: list[str]) -> list[str]:
    """A file name stem per submission name: letters, digits, `.`, `_` and `-` only (others become
    `_`), no leading dot or dash, no device name, at most 80 characters, unique even on a file
    system that ignores case (`-2`, `-3`... added)."""
    used: set[str] = set()
    stems = []
    for name in names:
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", name).lstrip(".-")[:80].rstrip(".") or "submission"
        if stem.split(".")[0].upper() in _RESERVED:
            stem = "_" + stem
        candidate, n = stem, 2
        while candidate.lower() in used:
            candidate, n = f"{stem}-{n}", n + 1
        used.add(candidate.lower())
        stems.append(candidate)
    return stems


def plan_feedback(folder: Path, submissions: list[Path]) -> Path:
    """Check, before grading, that `--feedback-dir` can be written and is no submission's folder."""
    from grader.outputs import probe_writable

    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--feedback-dir {folder} is a file: give a folder (it is created if missing)")
    resolved = folder.resolve()
    for sub in submissions:
        sub_resolved = Path(sub).resolve()
        if sub_resolved.is_dir() and (resolved == sub_resolved or resolved.is_relative_to(sub_resolved)):
            raise UsageError(f"--feedback-dir {folder} is inside the submission {sub}: its files would join the "
                             f"submission; write feedback elsewhere")
    probe_writable("--feedback-dir", folder / ".grader-feedback-probe")
    return folder


def feedback_runs(run: GradeRun) -> list[tuple[str, GradeRun]]:
    """(file stem, the candidate's form of a run of that submission alone) for every submission."""
    from grader.reports.audience import for_audience

    out = []
    extra = {k: v for k, v in run.extra.items() if k not in ("partial", "progress", "guides")}
    for stem, sub in zip(file_stems([s.name for s in run.submissions]), run.submissions):
        progress = run.extra.get("progress", {}).get(sub.name)
        one = dataclasses.replace(run, submissions=(sub,), extra=extra | ({"progress": {sub.name: progress}}
                                                                           if progress else {}))
        out.append((stem, for_audience(one, "candidate")))
    return out


def write_feedback(run: GradeRun, folder: Path) -> tuple[list[Path], list[str]]:
    """Write `<stem>.html` and `<stem>.md` per submission into `folder`; return the files written
    and one message per file that could not be written."""
    from grader.reports import html, markdown

    written, failures = [], []
    for stem, one in feedback_runs(run):
        for suffix, render in ((".html", html.render), (".md", markdown.render)):
            path = folder / f"{stem}{suffix}"
            try:
                folder.mkdir(parents=True, exist_ok=True)
                path.write_text(render(one), encoding="utf-8")
                written.append(path)
            except OSError as exc:
                failures.append(f"could not write --feedback-dir {path}: {exc.strerror or exc}")
            except Exception as exc:  # noqa: BLE001 - one candidate's page costs only itself
                failures.append(f"could not write --feedback-dir {path}: {type(exc).__name__}: {exc}")
    return written, failures
