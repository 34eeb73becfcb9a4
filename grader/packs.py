"""Exercise packs: exercises kept outside the grader's repository (a team's private questions).

A pack is a folder, typically a git repository of its own, laid out like the grader's checkout:

    acme-pack/
      pack.toml          name = "acme", version = "1.2.0", torch = "2.13.0" (the torch it was validated with)
      exercises/<track>/<NN_name>/...
      solutions/<track>/<NN_name>/...

The catalog (`grader.catalog.Catalog`) is the union of one primary root (the tree you are in,
$GRADER_ROOT or the grader's own checkout: see `grader.roots`) and the packs given with `--pack
PATH` (repeatable) or in $GRADER_PACKS (paths separated by os.pathsep). The primary root may be a
pack itself (run inside it, or point GRADER_ROOT at it): the grader then works over that pack
alone. Each exercise knows its pack (`Exercise.pack`, None for the built-in catalogue), hence its
own exercises/ and solutions/ folders; an exercise whose folder name another root also uses is
known as `<pack>/<folder>` (`acme/03_attention_mask`), and any pack exercise may be named so.

    from grader.packs import load_pack, use_packs
    pack = load_pack(Path("acme-pack"))          # PackError (exit 2) naming pack.toml and the fix
    use_packs([Path("acme-pack")])               # what --pack does: every Catalog.load() sees it

Reports name the pack and version of every pack exercise, and warn when the pack was validated with
another torch than the one that graded (`report_lines`). `grader image build --pack PATH` copies a
pack to /opt/grader/packs/<name> in the grading image and labels the image with the pack's hash
(`pack_hash`), which the stale-image check compares; the Ray runtime ships packs to its nodes
(`archive` / `unpack`).
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import tarfile
import tempfile
import tomllib
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from grader.errors import UsageError

if TYPE_CHECKING:
    from grader.catalog import Exercise
    from grader.results import GradeRun

PACK_FILE = "pack.toml"
PACKS_ENV = "GRADER_PACKS"
IMAGE_PACKS = "packs"  # the image's packs live in /opt/grader/packs/<name>
PACK_LABEL_PREFIX = "torch-grader.pack."  # + name: the image label holding that pack's hash
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


def union(root: Path, own: Pack | None, exercises: list[Exercise], problems: dict[str, str], renamed: set[str],
          paths: list[Path] | None, allow_missing_stub: bool) -> tuple[list[Pack], list[Exercise]]:
    """Add the exercises of the packs at `paths` (None: $GRADER_PACKS) to those of the primary root
    (`exercises`, `problems` and `renamed` are updated in place; the merged list is returned, the
    primary root's first). A pack exercise whose folder name another root uses is renamed
    `<pack>/<folder>`; the primary root's exercises keep their names."""
    from grader.catalog import scan_root

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


# --- torch versions and reports -------------------------------------------------------------------

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


def report_lines(run: GradeRun) -> list[str]:
    """For every report: which pack (and version) each pack exercise came from, and a warning for
    each pack validated with another torch than the one that graded. [] for the built-in catalogue."""
    origins: dict[tuple[str, str], list[str]] = {}
    for sub in run.submissions:
        for ex in sub.exercises:
            if getattr(ex, "pack", ""):
                ids = origins.setdefault((ex.pack, ex.pack_torch), [])
                if ex.id not in ids:
                    ids.append(ex.id)
    lines = []
    running = run.environment.torch
    for (label, validated), ids in origins.items():
        lines.append(f"exercise pack {label}: {', '.join(ids)}")
        if validated and running and torch_differs(validated, running):
            lines.append("Warning: " + torch_warning(label, validated, running))
    return lines


def bundle_exercises(chosen: list[Exercise]) -> list[Exercise]:
    """The exercises of a candidate bundle as the bundle knows them: by folder name (a bundle is one
    tree, whatever pack each came from). Two of one track and folder cannot share it: UsageError."""
    seen: dict[str, Exercise] = {}
    for ex in chosen:
        where = f"{ex.track}/{ex.dir.name}"
        if where in seen:
            raise UsageError(f"{seen[where].id} and {ex.id} would both be exercises/{where} in the bundle: export them "
                             f"in separate bundles")
        seen[where] = ex
    return [replace(ex, id=ex.dir.name) if ex.id != ex.dir.name else ex for ex in chosen]


def origin_fields(ex: Exercise) -> dict[str, str]:
    """The result fields naming an exercise's pack ({} for the built-in catalogue)."""
    return {"pack": ex.pack.label, "pack_torch": ex.pack.torch} if ex.pack is not None else {}


def catalog_lines(catalog) -> list[str]:
    """`grader list`'s lines on the packs in use, with a warning per pack validated with another torch."""
    lines = []
    running = running_torch()
    for pack in ([catalog.pack] if catalog.pack else []) + list(catalog.packs):
        count = sum(ex.pack == pack for ex in catalog.exercises)
        lines.append(f"pack {pack.label}: {count} exercises in {pack.path} (validated with torch {pack.torch})")
        if running and torch_differs(pack.torch, running):
            lines.append("Warning: " + torch_warning(pack.label, pack.torch, running))
    return lines


# --- the grading image and Ray nodes ---------------------------------------------------------------

def pack_files(pack: Pack) -> list[Path]:
    """What of a pack the grading image and Ray nodes need: pack.toml, exercises/, solutions/."""
    files = [pack.toml]
    for folder in ("exercises", "solutions"):
        base = pack.path / folder
        if base.is_dir():
            files += sorted(p for p in base.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                            and not p.name.endswith((".pyc", ".pyo")))
    return files


def pack_hash(pack: Pack) -> str:
    """A hash of what `pack_files` lists (paths relative to the pack, and contents)."""
    digest = hashlib.sha256()
    for path in pack_files(pack):
        digest.update(path.relative_to(pack.path).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


def active_packs(root: Path) -> list[Pack]:
    """The packs a run over `root` uses: `root` itself when it is a pack, then --pack / $GRADER_PACKS."""
    own = pack_of_root(root)
    return ([own] if own else []) + load_packs(None, exclude=Path(root).resolve())


def image_packs(root: Path, paths: list[Path] | None) -> tuple[Path, list[Pack]]:
    """What `grader image build` builds from: the checkout holding docker/Dockerfile (the grader's
    own when `root` is a pack), and the packs to put in (`paths`; None: --pack / $GRADER_PACKS, and
    `root` when it is a pack)."""
    from grader.roots import INSTALL_TREE

    root = Path(root).resolve()
    own = pack_of_root(root)
    if own is not None and not (root / "docker" / "Dockerfile").is_file():
        root = INSTALL_TREE
    packs = ([own] if own else []) + [p for p in load_packs(paths, exclude=root) if own is None or p.path != own.path]
    seen: dict[str, Pack] = {}
    for pack in packs:
        if pack.name in seen and seen[pack.name].path != pack.path:
            raise PackError(f"{pack.toml}: two packs are named {pack.name!r} ({seen[pack.name].path} and {pack.path}): "
                            f"rename one in its pack.toml")
        seen[pack.name] = pack
    return root, list(seen.values())


def pack_labels(packs: list[Pack]) -> dict[str, str]:
    """The grading image's labels for its packs: one per pack, its hash."""
    return {PACK_LABEL_PREFIX + pack.name: pack_hash(pack) for pack in packs}


def copy_into_image(packs: list[Pack], grader_root: Path, log=print) -> None:
    """Copy each pack's pack.toml, exercises/ and solutions/ to `grader_root`/packs/<name>."""
    base = grader_root / IMAGE_PACKS
    base.mkdir(exist_ok=True)
    for pack in packs:
        check_unique(pack)
        log(f"adding pack {pack.label} from {pack.path}")
        for path in pack_files(pack):
            target = base / pack.name / path.relative_to(pack.path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())


def pack_freshness(labels: dict, packs: list[Pack]) -> str | None:
    """None when the image holds every pack of `packs` as it is here; otherwise why not."""
    for pack in packs:
        built = labels.get(PACK_LABEL_PREFIX + pack.name)
        if built is None:
            return (f"it holds no pack {pack.name!r}: rebuild it with `grader image build --pack {pack.path}` "
                    f"(with every pack you grade with)")
        if built != pack_hash(pack):
            return f"it was built from another state of pack {pack.label} than {pack.path}'s"
    return None


def image_path(pack: Pack) -> str:
    """Where the grading image holds `pack`."""
    return f"/opt/grader/{IMAGE_PACKS}/{pack.name}"


def archive(pack: Pack) -> bytes:
    """The pack's files as a tar.gz (for a Ray node): `unpack` puts it back."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for path in pack_files(pack):
            tar.add(path, arcname=path.relative_to(pack.path).as_posix(), recursive=False)
    return buf.getvalue()


def unpack(name: str, digest: str, data: bytes, base: Path | None = None) -> Path:
    """Put a pack shipped by `archive` in this machine's cache (once per content) and return its folder."""
    base = base or Path(tempfile.gettempdir()) / f"torch-grader-packs-{os.getuid()}"
    target = base / f"{name}-{digest}"
    if (target / PACK_FILE).is_file():
        return target
    base.mkdir(mode=0o700, parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=base))
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(staging, filter="data")
    try:
        staging.rename(target)
    except OSError:  # another task of this node unpacked it first
        import shutil

        shutil.rmtree(staging, ignore_errors=True)
    return target


def shipped(catalog) -> list[dict]:
    """The packs of `catalog` as Ray task data: name, hash, bytes, and whether it is the primary root."""
    out = []
    for pack, primary in ([(catalog.pack, True)] if catalog.pack else []) + [(p, False) for p in catalog.packs]:
        out.append({"name": pack.name, "hash": pack_hash(pack), "data": archive(pack), "primary": primary})
    return out


def catalog_on_node(shipped_packs: list[dict]):
    """The catalog a Ray node grades with: the packs shipped (unpacked here) over the node's own root,
    or the primary pack alone when the driver worked inside a pack."""
    from grader.catalog import Catalog

    if not shipped_packs:
        return Catalog.load()
    folders = [(unpack(p["name"], p["hash"], p["data"]), p["primary"]) for p in shipped_packs]
    primary = next((folder for folder, is_primary in folders if is_primary), None)
    return Catalog.load(primary, packs=[folder for folder, is_primary in folders if not is_primary])
