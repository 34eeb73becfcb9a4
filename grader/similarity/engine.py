"""The similarity engine (see `grader.similarity`): collect each submission's files, fingerprint
them, and score every pair that shares a fingerprint."""

from __future__ import annotations

from collections import defaultdict
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from grader import notebooks
from grader.catalog import Catalog, Exercise
from grader.errors import GraderError, UsageError
from grader.notebooks import LineMap
from grader.similarity.fingerprint import fingerprint, matches
from grader.submissions import locate, opened, submission_name

REFERENCE = "reference solution"  # the label of the exercise's reference, where the checkout has it
COMMON_FRACTION = 0.5  # fingerprints shared by more than this fraction of the files are idioms, not copying
COMMON_MIN = 10  # ... but never below this many files (small classes keep every fingerprint)
MAX_SOURCE_BYTES = 1 << 20


@dataclass(frozen=True)
class Source:
    submission: str
    exercise: str
    shown: str  # the file as shown to people (a notebook: its path; the text is its code cells)
    text: str
    linemap: LineMap | None = None  # notebooks: generated line -> cell and line


@dataclass(frozen=True)
class Pair:
    exercise: str
    a: str  # submission labels, a < b in input order
    b: str
    score: float  # Dice coefficient of the fingerprint sets, 0..1
    shared: int  # fingerprints in common
    size_a: int  # fingerprints of each file (stub and common idioms removed)
    size_b: int

    def to_dict(self) -> dict:
        return {"exercise": self.exercise, "a": self.a, "b": self.b, "score": round(self.score, 4),
                "shared": self.shared, "fingerprints_a": self.size_a, "fingerprints_b": self.size_b}


@dataclass
class SimilarityReport:
    exercises: list[Exercise]
    submissions: list[str]
    sources: dict[str, dict[str, Source]]  # exercise id -> submission -> its file
    pairs: list[Pair]  # every pair at or above `threshold`, best first
    threshold: float
    problems: list[str] = field(default_factory=list)  # files that could not be compared
    failed: dict[str, str] = field(default_factory=dict)  # submission -> why nothing of it was compared
    reference: list[Pair] = field(default_factory=list)  # (submission, REFERENCE) at or above threshold
    references: dict[str, Source] = field(default_factory=dict)  # exercise id -> its reference solution
    _fingerprints: dict = field(default_factory=dict, repr=False)

    @property
    def compared(self) -> list[str]:
        """The submissions that were compared (at least one file read), in input order."""
        return [label for label in self.submissions if label not in self.failed]

    def pairs_above(self, threshold: float | None = None) -> list[Pair]:
        limit = self.threshold if threshold is None else threshold
        return [p for p in self.pairs if p.score >= limit]

    def regions(self, pair: Pair) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """The matching regions of a pair: (start, end) character ranges in each file's text,
        without the stub's own lines."""
        fa, fb = self._fingerprints[pair.exercise][pair.a], self._fingerprints[pair.exercise][pair.b]
        ra, rb = matches(fa, fb)
        stub = _stub_lines(next(ex for ex in self.exercises if ex.id == pair.exercise))
        return (without_lines(self.source(pair.exercise, pair.a).text, ra, stub),
                without_lines(self.source(pair.exercise, pair.b).text, rb, stub))

    def source(self, exercise: str, label: str) -> Source:
        """A submission's file for `exercise`, or the exercise's reference solution (`REFERENCE`)."""
        return self.references[exercise] if label == REFERENCE else self.sources[exercise][label]

    def to_dict(self) -> dict:
        per = []
        for ex in self.exercises:
            mine = [p for p in self.pairs if p.exercise == ex.id]
            per.append({"id": ex.id, "files": len(self.sources.get(ex.id, {})), "pairs_above": len(mine),
                        "max_score": round(max((p.score for p in mine), default=0.0), 4)})
        return {"tool": "torch-grader similarity", "method": "copydetect winnowing, Dice of fingerprint sets",
                "threshold": self.threshold, "submissions": self.submissions, "compared": self.compared,
                "not_compared": [{"submission": label, "reason": why} for label, why in self.failed.items()],
                "exercises": per, "pairs": [p.to_dict() for p in self.pairs],
                "reference_matches": [p.to_dict() for p in self.reference], "problems": self.problems}


def _stub_lines(ex: Exercise) -> set[str]:
    return {line.strip() for line in ex.stub.read_text(encoding="utf-8").splitlines() if line.strip()}


def without_lines(text: str, ranges: list[tuple[int, int]], skip: set[str]) -> list[tuple[int, int]]:
    """`ranges` of `text` minus its lines that are in `skip` (the stub's own lines: a match found
    next to them can reach into them, since k-grams cross line ends) and minus blank edges."""
    out = []
    for start, end in ranges:
        pos = start
        for line in text[start:end].splitlines(keepends=True):
            line_start = text.rfind("\n", 0, pos) + 1
            line_end = text.find("\n", pos)
            full = text[line_start:line_end if line_end >= 0 else len(text)]
            piece_end = pos + len(line)
            if full.strip() not in skip and line.strip():
                lead = len(line) - len(line.lstrip())
                out.append((pos + lead, pos + len(line.rstrip())))
            pos = piece_end
    merged: list[tuple[int, int]] = []
    for start, end in sorted(out):
        if merged and start <= merged[-1][1] + 1 and "\n" not in text[merged[-1][1]:start].strip(" \t"):
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def compare(paths: list[str | Path], *, exercises: list[str] | None = None, threshold: float = 0.5,
            root: Path | None = None) -> SimilarityReport:
    """Score every pair of submissions per exercise. `exercises`: refs (None: every exercise that
    some submission has a file for). Pairs scoring at least `threshold` are kept."""
    if len(paths) < 2:
        raise UsageError("similarity needs at least two submissions")
    catalog = Catalog.load(root)
    selected = catalog.select(exercises)
    labels, sources, problems, failed = collect([Path(p) for p in paths], selected, explicit=bool(exercises))
    pairs: list[Pair] = []
    reference: list[Pair] = []
    references: dict[str, Source] = {}
    fingerprints: dict[str, dict] = {}
    used = []
    for ex in selected:
        mine = dict(sources.get(ex.id, {}))
        if not mine:
            continue
        fingerprints[ex.id] = {label: fingerprint(src.text, boilerplate=stub_hashes(ex))
                               for label, src in mine.items()}
        order = [label for label in labels if label in mine]
        found = score_pairs(ex.id, order, fingerprints[ex.id], threshold)  # a pair needs two files
        ref = _reference(ex)  # only where this checkout has the reference solution (never in a bundle)
        if ref is not None:
            references[ex.id] = ref
            fingerprints[ex.id][REFERENCE] = fingerprint(ref.text, boilerplate=stub_hashes(ex))
            reference += [p for p in score_pairs(ex.id, [*order, REFERENCE], fingerprints[ex.id], threshold)
                          if p.b == REFERENCE]
        if len(mine) >= 2 or any(p.exercise == ex.id for p in reference):
            used.append(ex)
        pairs += found
    pairs.sort(key=lambda p: (-p.score, p.exercise, p.a, p.b))
    reference.sort(key=lambda p: (-p.score, p.exercise, p.a))
    return SimilarityReport(exercises=used, submissions=labels, sources=sources, pairs=pairs, threshold=threshold,
                            problems=problems, failed=failed, reference=reference, references=references,
                            _fingerprints=fingerprints)


def _reference(ex: Exercise) -> Source | None:
    """The exercise's reference solution as a source to compare with, when this checkout has it."""
    try:
        path = ex.reference
        if not path.is_file() or path.stat().st_size > MAX_SOURCE_BYTES:
            return None
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, AttributeError):
        return None
    try:
        shown = str(path.relative_to(ex.solutions_dir.parent.parent.parent))
    except ValueError:
        shown = path.name
    return Source(REFERENCE, ex.id, shown, text)


def collect(paths: list[Path], selected: list[Exercise], explicit: bool
            ) -> tuple[list[str], dict[str, dict[str, Source]], list[str], dict[str, str]]:
    """Each submission's file per exercise (notebooks as their code cells), read once. Also
    returns the files that could not be compared (`problems`) and, as `grader grade` reports a
    submission it cannot grade, each submission of which nothing could be compared, and why
    (not found, an unreadable archive, no exercise file, only binary files)."""
    labels: list[str] = []
    sources: dict[str, dict[str, Source]] = defaultdict(dict)
    problems: list[str] = []
    failed: dict[str, str] = {}
    for path in paths:
        label = _unique(submission_name(path), [*labels, REFERENCE])
        labels.append(label)
        mine: list[str] = []  # this submission's problems
        try:
            with ExitStack() as stack:
                root = stack.enter_context(opened(path))
                files = locate(root, selected, explicit)
                files, _ = notebooks.prepare(root, files, selected, stack)
                for ex_id, cand in files.items():
                    if cand.path is None:
                        mine.append(f"{ex_id}: {cand.problem}")
                        continue
                    shown = cand.notebook.shown if cand.notebook else (
                        str(cand.path.relative_to(root)) if root.is_dir() else cand.path.name)
                    if cand.path.stat().st_size > MAX_SOURCE_BYTES:
                        mine.append(f"{ex_id}: the file is over {MAX_SOURCE_BYTES >> 20} MiB: skipped")
                        continue
                    data = cand.path.read_bytes()
                    try:
                        text = data.decode("utf-8")
                    except UnicodeDecodeError:
                        text = None
                    if text is None or "\0" in text:  # what the judge would refuse to import
                        mine.append(f"{ex_id}: {shown} is not Python source (binary, or not UTF-8 text)")
                        continue
                    notebook = cand.notebook
                    sources[ex_id][label] = Source(label, ex_id, shown, text, notebook.linemap if notebook else None)
                if not files:
                    failed[label] = (f"no exercise files found (looked for e.g. {selected[0].layout_path}); name "
                                     f"the exercises with --exercises, or check the layout")
        except GraderError as exc:
            failed[label] = str(exc)
        if label not in failed and not any(label in found for found in sources.values()):
            failed[label] = f"no file could be compared ({'; '.join(mine)})" if mine else "no file could be compared"
        if label not in failed:
            problems += [f"{label}: {problem}" for problem in mine]
    return labels, dict(sources), problems, failed


def _unique(label: str, used: list[str]) -> str:
    candidate, n = label, 2
    while candidate in used:
        candidate, n = f"{label}-{n}", n + 1
    return candidate


_STUB_CACHE: dict[str, np.ndarray] = {}


def stub_hashes(ex: Exercise) -> np.ndarray:
    """The stub's fingerprints: boilerplate, removed from every candidate's file."""
    key = str(ex.stub)
    if key not in _STUB_CACHE:
        stub = fingerprint(ex.stub.read_text(encoding="utf-8"))
        _STUB_CACHE[key] = np.array(sorted(stub.hashes), dtype=np.int64)
    return _STUB_CACHE[key]


def score_pairs(exercise: str, labels: list[str], fps: dict, threshold: float) -> list[Pair]:
    """Dice scores of every pair of `labels` sharing a fingerprint, through an inverted index;
    fingerprints held by more than COMMON_FRACTION of the files are ignored as idioms."""
    n = len(labels)
    if n < 2:
        return []
    sets = [set(int(h) for h in fps[label].hashes) for label in labels]
    postings: dict[int, list[int]] = defaultdict(list)
    for i, hashes in enumerate(sets):
        for h in hashes:
            postings[h].append(i)
    cap = max(COMMON_MIN, int(n * COMMON_FRACTION))
    common = {h for h, docs in postings.items() if len(docs) > cap}
    sizes = np.array([len(s - common) for s in sets], dtype=np.float64)
    shared = np.zeros((n, n), dtype=np.int32)
    for h, docs in postings.items():
        if 2 <= len(docs) and h not in common:
            idx = np.array(docs)
            shared[np.ix_(idx, idx)] += 1
    total = sizes[:, None] + sizes[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        dice = np.where(total > 0, 2.0 * shared / total, 0.0)
    rows, cols = np.nonzero(np.triu(dice >= max(threshold, 1e-9), k=1))
    return [Pair(exercise, labels[i], labels[j], float(dice[i, j]), int(shared[i, j]), int(sizes[i]), int(sizes[j]))
            for i, j in zip(rows, cols)]
