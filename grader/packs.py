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

Reading a pack.toml and the packs in use is `grader.pack_manifest`'s (below the catalog); this
module builds on the catalog. Reports name the pack and version of every pack exercise, and warn
when the pack was validated with another torch than the one that graded (`grader.results.pack_notes`).
`grader image build --pack PATH` copies a pack to /opt/grader/packs/<name> in the grading image and
labels the image with the pack's hash (`pack_hash`), which the stale-image check compares; the Ray
runtime ships packs to its nodes (`archive` / `unpack`).
"""

from __future__ import annotations

import hashlib
import io
import os
import tarfile
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from grader.errors import UsageError
from grader.pack_manifest import (
    PACK_FILE,
    Pack,
    PackError,
    check_unique,
    load_packs,
    pack_of_root,
    running_torch,
    torch_differs,
    torch_warning,
)

if TYPE_CHECKING:
    from grader.catalog import Exercise

IMAGE_PACKS = "packs"  # the image's packs live in /opt/grader/packs/<name>
PACK_LABEL_PREFIX = "torch-grader.pack."  # + name: the image label holding that pack's hash


# --- bundles, results and `grader list` ------------------------------------------------------------

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
