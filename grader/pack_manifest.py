"""What a pack is and which packs are in use: a pack's pack.toml (`load_pack`), the packs of
$GRADER_PACKS and `--pack` (`use_packs`, `load_packs`), and whether the torch here is the one a pack
was validated with (`torch_differs`). The catalog builds on this module; `grader.packs` (the packs'
union with the catalog, their lines in reports and `grader list`, the grading image and Ray nodes)
builds on both.

    from grader.pack_manifest import load_pack, use_packs
    pack = load_pack(Path("acme-pack"))          # PackError (exit 2) naming pack.toml and the fix
    use_packs([Path("acme-pack")])               # what --pack does: every Catalog.load() sees it
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from grader.errors import UsageError

PACK_FILE = "pack.toml"
PACKS_ENV = "GRADER_PACKS"
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_EXERCISE_DIR_RE = re.compile(r"^(\d\d)_([a-z0-9_]+)$")
_FIELDS = {"name": True, "version": True, "torch": True, "description": False}
EXAMPLE = 'name = "acme"\nversion = "1.0.0"\ntorch = "2.13.0"   # the torch version the pack was validated with'


class PackError(UsageError):
    """A pack cannot be used as given (no pack.toml, a malformed one, colliding ids): exit 2."""


@dataclass(frozen=True)
class Pack:
    """One pack, as its pack.toml declares it."""

    name: str
    version: str
    torch: str  # the torch version its exercises were validated with
    path: Path  # the pack's folder (resolved)
    description: str = ""

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}"

    @property
    def toml(self) -> Path:
        return self.path / PACK_FILE


def _fix(path: Path, what: str) -> PackError:
    return PackError(f"{path}: {what}. A pack's pack.toml reads, for example:\n{EXAMPLE}")


def load_pack(folder: Path) -> Pack:
    """Read `folder`/pack.toml. Raises PackError naming the file and what to fix."""
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise PackError(f"{folder}: no such folder: a pack is a folder holding pack.toml, exercises/ and solutions/")
    folder = folder.resolve()
    path = folder / PACK_FILE
    if not path.is_file():
        raise _fix(path, "missing: a pack is a folder with exercises/, solutions/ and a pack.toml that names it; "
                         "write one")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise _fix(path, f"invalid TOML ({exc})") from None
    for key in data:
        if key not in _FIELDS:
            raise _fix(path, f"unknown field '{key}' (known fields: {', '.join(_FIELDS)})")
    for key, required in _FIELDS.items():
        if key not in data:
            if required:
                raise _fix(path, f"missing required field '{key}'")
            continue
        if not isinstance(data[key], str) or (required and not data[key].strip()):
            raise _fix(path, f"field '{key}' must be a non-empty string, got {data[key]!r}")
    if not _NAME_RE.match(data["name"]):
        raise _fix(path, f"field 'name' is {data['name']!r}: use lowercase letters, digits, '-' and '_' (it prefixes "
                         f"the pack's exercise ids, as in {data['name'].lower() or 'acme'}/03_attention_mask)")
    for key in ("version", "torch"):
        if any(ch.isspace() for ch in data[key]):
            raise _fix(path, f"field '{key}' is {data[key]!r}: write it without spaces (e.g. 1.2.0)")
    return Pack(name=data["name"], version=data["version"], torch=data["torch"], path=folder,
                description=data.get("description", ""))


def pack_of_root(root: Path) -> Pack | None:
    """The pack that `root` is, when it holds a pack.toml (the grader run inside a pack)."""
    return load_pack(root) if (Path(root) / PACK_FILE).is_file() else None


def configured_paths(environ: dict[str, str] | None = None) -> list[Path]:
    """The pack folders of $GRADER_PACKS (os.pathsep-separated; empty entries ignored)."""
    value = (os.environ if environ is None else environ).get(PACKS_ENV, "")
    return [Path(part).expanduser() for part in value.split(os.pathsep) if part.strip()]


def use_packs(paths: list[Path] | tuple[Path, ...]) -> None:
    """What `--pack PATH` does: put the packs before those of $GRADER_PACKS, for every catalog this
    process (and the processes it starts) loads. Each is checked at once (PackError)."""
    if not paths:
        return
    for path in paths:
        load_pack(Path(path))
    given = [str(Path(p).expanduser().resolve()) for p in paths]
    rest = [str(p) for p in configured_paths() if str(p.resolve()) not in given]
    os.environ[PACKS_ENV] = os.pathsep.join(given + rest)


def load_packs(paths: list[Path] | None = None, exclude: Path | None = None) -> list[Pack]:
    """The packs of `paths` (None: $GRADER_PACKS), each once, without the one at `exclude` (the
    primary root). Two packs of one name are a PackError."""
    packs: list[Pack] = []
    for path in configured_paths() if paths is None else paths:
        pack = load_pack(Path(path))
        if pack.path == exclude or any(p.path == pack.path for p in packs):
            continue
        packs.append(pack)
    return packs


def check_unique(pack: Pack) -> None:
    """Raise PackError when two exercise folders of `pack` have one id (folder name) or number."""
    folders: dict[str, list[Path]] = {}
    numbers: dict[int, list[Path]] = {}
    for folder in sorted((pack.path / "exercises").glob("*/*")):
        match = _EXERCISE_DIR_RE.match(folder.name)
        if match and folder.is_dir():
            folders.setdefault(folder.name, []).append(folder)
            numbers.setdefault(int(match.group(1)), []).append(folder)
    for same, what in ((folders, "id"), (numbers, "number")):
        for key, found in same.items():
            if len(found) > 1:
                shown = " and ".join(str(f.relative_to(pack.path)) for f in found)
                raise PackError(f"{pack.toml}: pack {pack.name}: exercise {what} "
                                f"{key if what == 'id' else f'{key:02d}'} is used by {shown}: rename or renumber "
                                f"one (in exercises/ and solutions/ alike); ids and numbers are unique within a pack")


# --- torch versions -------------------------------------------------------------------------------

def _release(version: str) -> list[str]:
    return version.strip().split("+", 1)[0].split(".")


def torch_differs(validated: str, running: str) -> bool:
    """True when `running` (e.g. "2.13.0+cpu") is not the torch `validated` names ("2.13.0", or
    "2.13" for any 2.13.x); local build tags (+cpu, +cu128) are ignored."""
    want, have = _release(validated), _release(running)
    return have[:len(want)] != want


def running_torch() -> str:
    """The torch version installed here, without importing torch."""
    import importlib.metadata

    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return ""


def torch_warning(pack_label: str, validated: str, running: str) -> str:
    return (f"pack {pack_label} was validated with torch {validated}, but this grader runs torch {running}: its "
            f"checks may not hold here (validate the pack with this torch and update its pack.toml)")
