"""Accepted equivalent mutants of one exercise: `solutions/<track>/<id>/equivalent_mutants.toml`.

    [[equivalent]]
    id = "426deac05c"                            # the mutant's id, as `grader mutate` prints it
    change = "return grad.detach() -> return grad"  # for people reading the file
    reason = "autograd.grad without create_graph returns a tensor with no graph"

Each entry needs an id and a one-line reason. An entry whose mutant no longer exists, or that
a check now kills, is reported stale.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from grader.errors import ExerciseDefinitionError

FILE_NAME = "equivalent_mutants.toml"


@dataclass(frozen=True)
class Equivalent:
    id: str
    reason: str
    change: str = ""


def load(solutions_dir: Path) -> dict[str, Equivalent]:
    """The accepted equivalent mutants by id; an empty dict when the file does not exist."""
    path = solutions_dir / FILE_NAME
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ExerciseDefinitionError(f"{path}: not valid TOML: {exc}") from exc
    entries = data.get("equivalent", [])
    unknown = set(data) - {"equivalent"}
    if unknown or not isinstance(entries, list):
        raise ExerciseDefinitionError(f"{path}: expected only [[equivalent]] tables, found {sorted(unknown)}")
    out: dict[str, Equivalent] = {}
    for n, entry in enumerate(entries, 1):
        where = f"{path}: [[equivalent]] #{n}"
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) or not entry["id"].strip():
            raise ExerciseDefinitionError(f"{where} needs id = \"<mutant id>\"")
        reason = entry.get("reason")
        if not isinstance(reason, str) or not reason.strip() or "\n" in reason.strip():
            raise ExerciseDefinitionError(f"{where} ({entry['id']}) needs a one-line reason = \"...\"")
        extra = set(entry) - {"id", "reason", "change"}
        if extra:
            raise ExerciseDefinitionError(f"{where} has unknown fields {sorted(extra)}: use id, change, reason")
        out[entry["id"].strip()] = Equivalent(entry["id"].strip(), reason.strip(), str(entry.get("change", "")))
    return out
