"""The exercise catalog: discovery of `exercises/<track>/<NN_name>/` folders and their `exercise.toml`.

An exercise folder holds README.md, exercise.toml, the stub `<name>.py`, test_public.py and
test_hidden.py. Its reference solution and known mistakes live in `solutions/<track>/<NN_name>/`.
A candidate bundle (`grader export`) ships no test_hidden.py: such an exercise loads with
`has_hidden_tests` False, and what needs the hidden checks says so (`require_hidden_tests`).
The catalog is one primary root's exercises and those of the exercise packs in use (`union`; a
pack.toml and the packs in use: `grader.pack_manifest`; what else packs do: `grader.packs`).
"""

from __future__ import annotations

import os
import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader.errors import ExerciseDefinitionError, UsageError
from grader.pack_manifest import Pack, PackError, check_unique, load_packs, pack_of_root

DIFFICULTY_POINTS = {"easy": 10, "medium": 20, "hard": 30}
GPU_POLICIES = ("required", "optional", "no")
NETWORK_POLICIES = ("none", "loopback")
CHECK_KINDS = ("shape", "dtype", "value", "grad", "device", "mode", "api", "state", "perf")
DEFAULT_TIMEOUT_S = 30.0
EXERCISE_DIR_RE = re.compile(r"^(\d\d)_([a-z0-9_]+)$")


@dataclass(frozen=True)
class Exercise:
    """One exercise, as declared by its folder and exercise.toml."""

    id: str  # folder name, e.g. "05_broadcast_bias"
    number: int
    name: str  # stub module name, e.g. "broadcast_bias"
    track: str
    title: str
    difficulty: str
    points: float
    gpu: str
    timeout_s: float  # per check
    budget_s: float  # per exercise, all checks together
    sources: tuple[str, ...]
    forbidden_apis: tuple[str, ...]
    required_apis: tuple[str, ...]
    dir: Path
    solutions_dir: Path
    has_hidden_tests: bool = True  # False in a candidate bundle, which ships only the public checks
    network: str = "loopback"  # loopback: IP sockets on the worker's own loopback (gloo); none: Unix sockets only
    limits: dict[str, int] = field(default_factory=dict)  # [limits], as Limits fields (bytes, counts)
    tests: tuple[str, ...] = ()  # what the exercise tests (its traps, a few words each): interviewer-only
    pack: Pack | None = None  # the exercise pack it comes from (grader.packs); None: the built-in catalogue

    @property
    def stub(self) -> Path:
        return self.dir / f"{self.name}.py"

    @property
    def reference(self) -> Path:
        return self.solutions_dir / f"{self.name}.py"

    @property
    def mistakes(self) -> list[Path]:
        folder = self.solutions_dir / "mistakes"
        return sorted(folder.glob("*.py")) if folder.is_dir() else []

    @property
    def public_tests(self) -> Path:
        return self.dir / "test_public.py"

    @property
    def hidden_tests(self) -> Path:
        return self.dir / "test_hidden.py"

    @property
    def layout_path(self) -> str:
        """Where the candidate file sits in a submission that follows the exercise layout."""
        return f"{self.track}/{self.dir.name}/{self.name}.py"


# --- exercise.toml schema -------------------------------------------------------------------------

@dataclass(frozen=True)
class _Field:
    type: type | tuple[type, ...]
    required: bool = True
    choices: tuple[str, ...] | None = None
    item_type: type | None = None


_SCHEMA: dict[str, _Field] = {
    "title": _Field(str),
    "track": _Field(str),
    "difficulty": _Field(str, choices=tuple(DIFFICULTY_POINTS)),
    "points": _Field((int, float), required=False),
    "gpu": _Field(str, choices=GPU_POLICIES),
    "timeout_s": _Field((int, float), required=False),
    "budget_s": _Field((int, float), required=False),
    "sources": _Field(list, item_type=str),
    # what the exercise tests (its traps): interviewer-only; `grader validate` requires it
    # (grader.content), grading does not
    "tests": _Field(list, required=False, item_type=str),
    "api": _Field(dict, required=False),
    "network": _Field(str, required=False, choices=NETWORK_POLICIES),
    "limits": _Field(dict, required=False),
}
# [limits]: name in exercise.toml -> (Limits field, multiplier)
_LIMITS: dict[str, tuple[str, int]] = {"memory_mb": ("memory_bytes", 1 << 20),
                                       "file_size_mb": ("file_size_bytes", 1 << 20),
                                       "processes": ("processes", 1)}
_LIMITS_SCHEMA: dict[str, _Field] = {name: _Field(int, required=False) for name in _LIMITS}
_API_SCHEMA: dict[str, _Field] = {
    "forbidden": _Field(list, required=False, item_type=str),
    "required": _Field(list, required=False, item_type=str),
}


def _validate_table(table: dict, schema: dict[str, _Field], where: Path, prefix: str = "") -> None:
    for key in table:
        if key not in schema:
            known = ", ".join(sorted(schema))
            raise ExerciseDefinitionError(f"{where}: unknown field '{prefix}{key}' (known fields: {known})")
    for key, spec in schema.items():
        name = f"{prefix}{key}"
        if key not in table:
            if spec.required:
                raise ExerciseDefinitionError(f"{where}: missing required field '{name}'")
            continue
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, spec.type):
            expected = spec.type.__name__ if isinstance(spec.type, type) else " or ".join(t.__name__ for t in spec.type)
            raise ExerciseDefinitionError(
                f"{where}: field '{name}' must be {expected}, got {type(value).__name__} {value!r}"
            )
        if spec.choices and value not in spec.choices:
            raise ExerciseDefinitionError(
                f"{where}: field '{name}' must be one of {', '.join(spec.choices)}, got {value!r}"
            )
        if spec.item_type:
            for item in value:
                if not isinstance(item, spec.item_type):
                    raise ExerciseDefinitionError(
                        f"{where}: every item of '{name}' must be {spec.item_type.__name__}, got {item!r}"
                    )
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value <= 0:
            raise ExerciseDefinitionError(f"{where}: field '{name}' must be positive, got {value!r}")


def load_exercise(folder: Path, solutions_root: Path, allow_missing_stub: bool = False,
                  pack: Pack | None = None) -> Exercise:
    """Read and validate one exercise folder. Raises ExerciseDefinitionError naming the file and field.
    `allow_missing_stub`: load it even when its stub is gone (practice mode offers `grader reset`).
    `pack`: the exercise pack it belongs to (None: the built-in catalogue)."""
    match = EXERCISE_DIR_RE.match(folder.name)
    if not match:
        raise ExerciseDefinitionError(f"{folder}: exercise folders are named NN_name (e.g. 05_broadcast_bias)")
    toml_path = folder / "exercise.toml"
    try:
        data = tomllib.loads(toml_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ExerciseDefinitionError(f"{toml_path}: missing (every exercise needs an exercise.toml)") from None
    except tomllib.TOMLDecodeError as exc:
        raise ExerciseDefinitionError(f"{toml_path}: invalid TOML: {exc}") from None
    _validate_table(data, _SCHEMA, toml_path)
    api = data.get("api", {})
    _validate_table(api, _API_SCHEMA, toml_path, prefix="api.")
    limits = data.get("limits", {})
    _validate_table(limits, _LIMITS_SCHEMA, toml_path, prefix="limits.")
    track = data["track"]
    if folder.parent.name != track:
        raise ExerciseDefinitionError(
            f"{toml_path}: field 'track' is {track!r} but the folder sits in track folder {folder.parent.name!r}"
        )
    number, name = int(match.group(1)), match.group(2)
    timeout_s = float(data.get("timeout_s", DEFAULT_TIMEOUT_S))
    exercise = Exercise(
        id=folder.name,
        number=number,
        name=name,
        track=track,
        title=data["title"],
        difficulty=data["difficulty"],
        points=float(data.get("points", DIFFICULTY_POINTS[data["difficulty"]])),
        gpu=data["gpu"],
        timeout_s=timeout_s,
        budget_s=float(data.get("budget_s", max(60.0, 4 * timeout_s))),
        sources=tuple(data["sources"]),
        forbidden_apis=tuple(api.get("forbidden", ())),
        required_apis=tuple(api.get("required", ())),
        dir=folder,
        solutions_dir=solutions_root / track / folder.name,
        has_hidden_tests=(folder / "test_hidden.py").is_file(),
        network=data.get("network", "loopback"),
        limits={_LIMITS[k][0]: v * _LIMITS[k][1] for k, v in limits.items()},
        tests=tuple(data.get("tests", ())),
        pack=pack,
    )
    if not exercise.stub.is_file() and not allow_missing_stub:
        others = sorted(p.name for p in folder.glob("*.py") if not p.name.startswith("test_"))
        found = f" (found {', '.join(others)})" if others else ""
        raise StubMissing(f"{folder}: missing {exercise.stub.name}{found}: the checks import your code from "
                          f"{exercise.stub.name}; rename your file back to {exercise.stub.name}")
    for required in (exercise.public_tests, folder / "README.md"):
        if not required.is_file():
            raise ExerciseDefinitionError(f"{folder}: missing {required.name}")
    return exercise


class StubMissing(UsageError):
    """The exercise's stub file is gone (renamed by a candidate): the user's to fix, exit 2."""


def require_hidden_tests(exercises: list[Exercise], what_next: str) -> None:
    """Raise a UsageError naming the exercises that have no test_hidden.py (a candidate bundle)."""
    missing = [ex.id for ex in exercises if not ex.has_hidden_tests]
    if missing:
        raise UsageError(
            f"hidden checks are not available here: {', '.join(missing)} "
            f"{'has' if len(missing) == 1 else 'have'} no test_hidden.py (a candidate bundle ships only the "
            f"public checks). {what_next}"
        )


# --- the catalog ----------------------------------------------------------------------------------

def root_origin(root: Path) -> str:
    """Why `root` is the exercise root, for people who wonder which exercises they are using."""
    # the order of `grader.roots.discover_root`: the tree you are in, $GRADER_ROOT, the install tree
    if Path.cwd().resolve().is_relative_to(root):
        return "the tree you are in"
    if os.environ.get("GRADER_ROOT") and Path(os.environ["GRADER_ROOT"]).resolve() == root:
        return "from GRADER_ROOT"
    if Path(__file__).resolve().parent.parent == root:
        return "the grader's own checkout"
    return "given"


def default_root() -> Path:
    """The folder holding exercises/ (and solutions/): see `grader.roots` for the discovery rule
    (the enclosing bundle or checkout, then $GRADER_ROOT, then the install tree)."""
    from grader.roots import discover_root

    return discover_root()


def scan_root(root: Path, allow_missing_stub: bool = False,
              pack: Pack | None = None) -> tuple[list[Exercise], dict[str, str], set[str]]:
    """The exercises under `root`/exercises (by number), the folders that could not be loaded (name ->
    why) and those whose stub is missing."""
    exercises, problems, renamed = [], {}, set()
    ex_root = root / "exercises"
    tracks = sorted(p for p in ex_root.iterdir() if p.is_dir()) if ex_root.is_dir() else []
    for track in tracks:
        for folder in sorted(p for p in track.iterdir() if p.is_dir() and EXERCISE_DIR_RE.match(p.name)):
            try:
                exercises.append(load_exercise(folder, root / "solutions", allow_missing_stub, pack))
            except (ExerciseDefinitionError, StubMissing) as exc:
                # one malformed exercise must not stop the others from being listed or graded
                problems[folder.name] = str(exc)
                if isinstance(exc, StubMissing):
                    renamed.add(folder.name)
    exercises.sort(key=lambda e: e.number)
    return exercises, problems, renamed


def union(root: Path, own: Pack | None, exercises: list[Exercise], problems: dict[str, str], renamed: set[str],
          paths: list[Path] | None, allow_missing_stub: bool) -> tuple[list[Pack], list[Exercise]]:
    """Add the exercises of the packs at `paths` (None: $GRADER_PACKS) to those of the primary root
    (`exercises`, `problems` and `renamed` are updated in place; the merged list is returned, the
    primary root's first). A pack exercise whose folder name another root uses is renamed
    `<pack>/<folder>`; the primary root's exercises keep their names."""
    if own is not None:
        check_unique(own)
    packs = load_packs(paths, exclude=root)
    names = {own.name: own.path} if own else {}
    per_pack: list[tuple[Pack, list[Exercise]]] = []
    for pack in packs:
        if pack.name in names:
            raise PackError(f"{pack.toml}: two packs are named {pack.name!r} ({names[pack.name]} and {pack.path}): "
                            f"rename one in its pack.toml")
        names[pack.name] = pack.path
        check_unique(pack)
        found, broken, stubless = scan_root(pack.path, allow_missing_stub, pack)
        per_pack.append((pack, found))
        problems.update({f"{pack.name}/{name}": why for name, why in broken.items()})
        renamed.update(f"{pack.name}/{name}" for name in stubless)
    uses = Counter(ex.dir.name for ex in exercises)
    for _, found in per_pack:
        uses.update(ex.dir.name for ex in found)
    merged = list(exercises)
    for pack, found in per_pack:
        merged += [replace(ex, id=f"{pack.name}/{ex.id}") if uses[ex.dir.name] > 1 else ex for ex in found]
    return packs, merged


@dataclass
class Catalog:
    """The exercises of one primary root plus those of the exercise packs in use (grader.packs)."""

    root: Path
    exercises: list[Exercise] = field(default_factory=list)
    problems: dict[str, str] = field(default_factory=dict)  # folder name -> why it could not be loaded
    renamed: set[str] = field(default_factory=set)  # folders whose stub is missing (the user's to fix)
    pack: Pack | None = None  # the pack that the primary root is, if it is one
    packs: tuple[Pack, ...] = ()  # the other packs whose exercises joined (--pack, $GRADER_PACKS)

    @classmethod
    def load(cls, root: Path | None = None, allow_missing_stub: bool = False,
             packs: list[Path] | None = None) -> Catalog:
        """The catalog of `root` (default: `default_root()`) and of the packs at `packs` (None: those
        of $GRADER_PACKS and --pack, see grader.pack_manifest)."""
        root = (root or default_root()).resolve()
        ex_root = root / "exercises"
        own = pack_of_root(root)
        if not ex_root.is_dir() and own is None:  # a pack may have no exercise yet
            raise UsageError(
                f"no exercises/ folder under {root}: run from the grader's checkout or set GRADER_ROOT"
            )
        exercises, problems, renamed = scan_root(root, allow_missing_stub, own)
        extra, exercises = union(root, own, exercises, problems, renamed, packs, allow_missing_stub)
        return cls(root=root, exercises=exercises, problems=problems, renamed=renamed, pack=own, packs=tuple(extra))

    @property
    def tracks(self) -> dict[str, list[Exercise]]:
        """The exercises of each track, in catalog order."""
        tracks: dict[str, list[Exercise]] = {}
        for ex in self.exercises:
            tracks.setdefault(ex.track, []).append(ex)
        return tracks

    def get(self, ref: str) -> Exercise:
        """An exercise named by its folder name, its number ("5", "05") or a unique prefix; a pack's
        exercise also as `<pack>/<any of those>` (acme/03)."""
        ref = ref.strip()
        if not ref:
            raise UsageError("an empty exercise name: name an exercise by its number (05), folder or track")
        for ex in self.exercises:
            if ref == ex.id:
                return ex
        if (scoped := self._in_pack(ref)) is not None:
            return scoped
        named = [ex for ex in self.exercises if ref in (ex.dir.name, ex.name)]
        if named:
            return _one_of(ref, named)
        if ref in self.tracks:
            ids = ", ".join(ex.id for ex in self.tracks[ref])
            raise UsageError(f"{ref!r} is a track ({ids}): name one exercise of it")
        if ref.isdigit():
            numbered = [ex for ex in self.exercises if ex.number == int(ref)]
            if numbered:
                return _one_of(ref, numbered)
        matches = [ex for ex in self.exercises if ex.id.startswith(ref) or ex.name.startswith(ref)]
        if len(matches) == 1:
            return matches[0]
        broken = [(name, msg) for name, msg in self.problems.items()
                  if name == ref or name.startswith(ref) or (ref.isdigit() and name[:2] == f"{int(ref):02d}")]
        if not matches and broken:
            name, msg = broken[0]
            error = UsageError if name in self.renamed else ExerciseDefinitionError
            raise error(f"exercise {ref!r} cannot be loaded: {msg}")
        if not matches:
            raise UsageError(f"unknown exercise {ref!r}: see `grader list` for the exercises")
        names = ", ".join(ex.id for ex in matches)
        raise UsageError(f"exercise {ref!r} is ambiguous: it matches {names}")

    def _in_pack(self, ref: str) -> Exercise | None:
        """`<pack>/<ref>`: `ref` resolved among that pack's exercises (None when no pack has that name)."""
        prefix, _, rest = ref.partition("/")
        pack = next((p for p in self.all_packs if p.name == prefix), None) if rest else None
        if pack is None:
            return None
        inner = Catalog(root=pack.path, exercises=[ex for ex in self.exercises if ex.pack == pack],
                        problems={k.removeprefix(f"{prefix}/"): v for k, v in self.problems.items()
                                  if k.startswith(f"{prefix}/") or (pack == self.pack and "/" not in k)},
                        renamed={k.removeprefix(f"{prefix}/") for k in self.renamed})
        for ex in inner.exercises:  # its ids as the pack knows them, not as namespaced here
            if rest in (ex.dir.name, ex.name):
                return ex
        return inner.get(rest)

    @property
    def all_packs(self) -> tuple[Pack, ...]:
        """Every pack in use: the primary root's own (when it is a pack), then the others."""
        return ((self.pack,) if self.pack else ()) + self.packs

    def select(self, refs: list[str] | tuple[str, ...] | None) -> list[Exercise]:
        """Resolve refs (each may be a comma list of exercises or track names, such as "05,autograd");
        None or an empty list means every exercise. Refs that name nothing (``""``, ``",,"``) are a
        UsageError, never "every exercise"."""
        if not refs:
            return list(self.exercises)
        chosen: list[Exercise] = []
        for ref in refs:
            for part in ref.split(","):
                part = part.strip()
                if not part:
                    continue
                found = self.tracks.get(part) or self._pack_exercises(part) if part not in self._names else None
                for ex in found or [self.get(part)]:
                    if ex not in chosen:
                        chosen.append(ex)
        if not chosen:
            shown = ", ".join(repr(r) for r in refs)
            raise UsageError(f"no exercise named in {shown}: name exercises by number, folder or track "
                             f"(e.g. 05, 05,10 or autograd); see `grader list`")
        return chosen

    def _pack_exercises(self, name: str) -> list[Exercise] | None:
        """Every exercise of the pack called `name` (None when no pack has that name)."""
        pack = next((p for p in self.all_packs if p.name == name), None)
        return [ex for ex in self.exercises if ex.pack == pack] if pack else None

    @property
    def _names(self) -> set[str]:
        return {ex.id for ex in self.exercises} | {ex.name for ex in self.exercises}


def _one_of(ref: str, matches: list[Exercise]) -> Exercise:
    """The match whose id is not namespaced (`acme/05_x` is named with its pack's prefix), or an error."""
    plain = [ex for ex in matches if "/" not in ex.id]
    if len(matches) == 1 or len(plain) == 1:
        return matches[0] if len(matches) == 1 else plain[0]
    names = ", ".join(ex.id if ex.pack is None or "/" in ex.id else f"{ex.pack.name}/{ex.id}" for ex in matches)
    raise UsageError(f"exercise {ref!r} is ambiguous: it matches {names}; name one of them as written here")
