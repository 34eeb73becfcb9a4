"""Interview sessions: named, timed sets of exercises, defined in `exercises/sessions.toml`.

    [fundamentals-45]
    title = "Fundamentals screen"
    minutes = 45
    purpose = "Tensors, autograd and modules: can the candidate read and write everyday PyTorch?"
    exercises = ["05", "10", "18"]      # in the order the candidate meets them

`grader list --sessions` shows them, `grader export --session NAME OUT` writes a candidate bundle of
one (its README gives the session's time and order), and `grader validate` reports a session that
names an exercise the catalog does not have, or one without an interviewer's guide.

    from grader.sessions import load_sessions, session_problems
    sessions = load_sessions(catalog.root)        # name -> Session, in file order
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from grader.catalog import Catalog, Exercise
from grader.errors import ExerciseDefinitionError, GraderError, UsageError
from grader.guides import read_guide

SESSIONS_FILE = "sessions.toml"
_FIELDS = {"title": str, "minutes": int, "purpose": str, "exercises": list}


@dataclass(frozen=True)
class Session:
    name: str
    title: str
    minutes: int
    purpose: str
    exercises: tuple[str, ...]  # exercise refs, in order

    def resolve(self, catalog: Catalog) -> list[Exercise]:
        """The session's exercises, in its order; an unknown one raises the catalog's error."""
        return [catalog.get(ref) for ref in self.exercises]


def sessions_path(root: Path) -> Path:
    return root / "exercises" / SESSIONS_FILE


def load_sessions(root: Path) -> dict[str, Session]:
    """The sessions of the exercise root `root` (none when it has no sessions.toml). Raises
    ExerciseDefinitionError naming the file, the session and the field when one is malformed."""
    path = sessions_path(root)
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ExerciseDefinitionError(f"{path}: invalid TOML: {exc}") from None
    sessions = {}
    for name, table in data.items():
        where = f"{path}: session [{name}]"
        if not isinstance(table, dict):
            raise ExerciseDefinitionError(f"{where} must be a table ([{name}] with title, minutes, purpose, "
                                          f"exercises)")
        unknown = sorted(set(table) - set(_FIELDS))
        if unknown:
            raise ExerciseDefinitionError(f"{where}: unknown field {unknown[0]!r} (known: {', '.join(_FIELDS)})")
        for key, kind in _FIELDS.items():
            value = table.get(key)
            if value is None:
                raise ExerciseDefinitionError(f"{where}: missing field {key!r}")
            if isinstance(value, bool) or not isinstance(value, kind):
                raise ExerciseDefinitionError(f"{where}: field {key!r} must be {kind.__name__}, got {value!r}")
        if table["minutes"] <= 0:
            raise ExerciseDefinitionError(f"{where}: field 'minutes' must be positive, got {table['minutes']}")
        refs = table["exercises"]
        if not refs or not all(isinstance(ref, str) and ref.strip() for ref in refs):
            raise ExerciseDefinitionError(f"{where}: field 'exercises' must list exercise numbers or folder names")
        sessions[name] = Session(name, table["title"], table["minutes"], table["purpose"], tuple(refs))
    return sessions


def get_session(root: Path, name: str) -> Session:
    """The session called `name`; a UsageError listing the sessions when there is none."""
    sessions = load_sessions(root)
    if name not in sessions:
        known = ", ".join(sessions) or f"none: {sessions_path(root)} defines no session"
        raise UsageError(f"unknown session {name!r} (sessions: {known}); see `grader list --sessions`")
    return sessions[name]


def session_problems(catalog: Catalog) -> list[str]:
    """Each session that names an exercise the catalog lacks, or one without an interviewer's guide,
    or whose file cannot be read, in a sentence."""
    try:
        sessions = load_sessions(catalog.root)
    except ExerciseDefinitionError as exc:
        return [str(exc)]
    problems = []
    for session in sessions.values():
        for ref in session.exercises:
            try:
                ex = catalog.get(ref)
            except GraderError as exc:
                problems.append(f"session {session.name!r} names exercise {ref!r}, which cannot be used: {exc}")
                continue
            if read_guide(ex.dir) is None:
                problems.append(f"session {session.name!r} includes {ex.id}, which has no interviewer's guide "
                                f"({ex.dir / 'interviewer.md'})")
    return problems


def planned_minutes(session: Session, catalog: Catalog) -> int | None:
    """The sum of the session's exercises' estimated minutes (their guides), None when one is unknown."""
    total = 0
    for ex in session.resolve(catalog):
        guide = read_guide(ex.dir)
        if guide is None or guide.minutes is None:
            return None
        total += guide.minutes
    return total
