"""`grader export`: the candidate bundle, a folder to push as the candidates' repository.

    from grader.export import export_bundle
    bundle = export_bundle(Path("/tmp/bundle"), exercises=["05", "10"])

The bundle holds, for each exercise, its README.md (without the "Notes for graders" section),
exercise.toml (without what is for the interviewer only: `tests`, `[api].required`), the stub and
test_public.py, copied by an allowlist (never the interviewer's guide, interviewer.md); the grader package (it holds no
secrets: what grades lives in the exercises' hidden tests and the solutions); a pyproject.toml and
constraints.txt to install it; a candidate README; a conftest.py with which plain `pytest` runs the
public checks (`grader.practice.plain_pytest`); and the pull-request workflows
(`.github/workflows/`, from `grader/bundle/`).

Before the bundle is put in place it is scanned, and the export fails, leaving nothing behind, when
a file has a hidden file's name (test_hidden.py, solutions/, mistakes/, compiled Python) or holds a
line of a test_hidden.py, of a solution or of a grader's note that no public file holds (public
files: the exercises' stubs, public checks, exercise.toml and candidate READMEs, and the grader
package; they legitimately share imports, signatures and docstrings with the solutions).
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

import grader
from grader.catalog import Catalog, Exercise
from grader.errors import ExerciseDefinitionError, GraderError, UsageError
from grader.guides import GUIDE_FILE
from grader.packs import bundle_exercises

PACKAGE_DIR = Path(grader.__file__).resolve().parent
TEMPLATES = PACKAGE_DIR / "bundle"
GRADER_ONLY_SECTIONS = ("notes for graders",)  # README sections (## headings) kept out of the bundle
INTERVIEWER_ONLY_KEYS = {("tests",), ("api", "required")}  # exercise.toml fields kept out of the bundle
FORBIDDEN_NAMES = {"test_hidden.py", "solutions", "mistakes", "__pycache__", GUIDE_FILE}
FORBIDDEN_SUFFIXES = (".pyc", ".pyo")
_IGNORED_IN_PACKAGE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo", "*.egg-info")
_SECTION_RE = re.compile(r"^## +(.+?)\s*$")


class ExportError(GraderError):
    """The bundle would have carried hidden content; nothing was written."""


@dataclass(frozen=True)
class Leak:
    """A line of the bundle that comes from a hidden test, a solution or a grader's note."""

    file: str  # relative to the bundle
    line: int
    source: str  # where the line comes from: "exercises/tensors/05_x/test_hidden.py:12"
    text: str

    def __str__(self) -> str:
        if not self.line:
            return f"{self.file}: {self.source}"
        return f"{self.file}:{self.line} holds {self.source}: {self.text[:80]}"


@dataclass(frozen=True)
class Bundle:
    path: Path
    exercises: tuple[Exercise, ...]
    files: tuple[str, ...]  # relative paths, sorted
    secret_lines: int  # how many distinct hidden lines the scan looked for
    skipped: dict[str, str]  # exercises that could not be loaded -> why (left out of the bundle)
    session: str | None = None  # the interview session exported, if one was


def export_bundle(out: Path, *, exercises: list[str] | None = None, root: Path | None = None,
                  notebooks: bool = False, record_progress: bool = False, session: str | None = None) -> Bundle:
    """Write the candidate bundle of `exercises` (refs; None: all) to `out`, which must not exist
    or be empty; with `notebooks`, each stub also as a notebook paired with it by jupytext (see
    `grader.notebooks.stubs`). `record_progress`: the bundle's watch/check runs append to a
    progress record that is submitted with the candidate's files (see grader.practice.state).
    `session`: the exercises of that interview session, in its order (not with `exercises`).
    Raises UsageError for a bad `out` or session and ExportError when the scan finds hidden content."""
    from grader.sessions import get_session

    out = Path(out).resolve()
    if session is not None and exercises:
        raise UsageError("give either --session or --exercises: a session names its own exercises")
    catalog = Catalog.load(root)
    chosen_session = get_session(catalog.root, session) if session is not None else None
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"{out} exists and is not an empty folder: choose a new folder for the bundle")
    chosen = bundle_exercises(chosen_session.resolve(catalog) if chosen_session else catalog.select(exercises))
    if not chosen:
        raise UsageError(f"no exercises to export under {catalog.root / 'exercises'}")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    staging.chmod(0o755)  # mkdtemp's 0700 would make the bundle private to this user
    try:
        _write(staging, catalog, chosen, record_progress, chosen_session)
        if notebooks:
            _write_notebooks(staging, chosen)
        secrets = secret_lines(catalog.root, *(pack.path for pack in catalog.packs))  # packs' hidden lines too
        leaks = forbidden_paths(staging) + find_leaks(staging, secrets)
        if leaks:
            shown = "\n  ".join(str(leak) for leak in leaks[:10])
            more = f"\n  ... and {len(leaks) - 10} more" if len(leaks) > 10 else ""
            raise ExportError(f"the bundle would carry hidden content, so nothing was written:\n  {shown}{more}")
        if out.exists():
            out.rmdir()
        staging.rename(out)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    files = tuple(sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()))
    return Bundle(path=out, exercises=tuple(chosen), files=files, secret_lines=len(secrets),
                  skipped=dict(catalog.problems), session=session)


# --- writing ---------------------------------------------------------------------------------------

def _write(dest: Path, catalog: Catalog, chosen: list[Exercise], record_progress: bool = False,
           session=None) -> None:
    from grader.practice import bundle as practice_bundle

    for ex in chosen:
        target = dest / "exercises" / ex.track / ex.id
        target.mkdir(parents=True)
        (target / "README.md").write_text(candidate_readme(ex.dir / "README.md"), encoding="utf-8")
        (target / "exercise.toml").write_text(candidate_toml(ex.dir / "exercise.toml"), encoding="utf-8")
        for path in (ex.stub, ex.public_tests, *practice_bundle.hint_files(ex)):
            shutil.copyfile(path, target / path.name)
    practice_bundle.write_practice_files(dest, chosen, record_progress)
    shutil.copytree(PACKAGE_DIR, dest / "grader", ignore=_IGNORED_IN_PACKAGE)
    constraints = catalog.root / "constraints.txt"
    if constraints.is_file():
        shutil.copyfile(constraints, dest / "constraints.txt")
    else:
        (dest / "constraints.txt").write_text("", encoding="utf-8")
    values = {"version": grader.__version__, "dependencies": _dependencies(), "exercises": _exercise_table(chosen),
              "first": f"{chosen[0].number:02d}", "first_stub": f"exercises/{chosen[0].layout_path}",
              "points": f"{sum(ex.points for ex in chosen):g}", "count": str(len(chosen)),
              "progress_notice": practice_bundle.progress_notice(record_progress),
              "session": _session_notice(session, chosen),
              "submit_progress": " (your progress record, `exercises/.grader-progress.jsonl`, does: see above)"
              if record_progress else ""}
    (dest / "README.md").write_text(_fill(TEMPLATES / "README.md.tmpl", values), encoding="utf-8")
    (dest / "pyproject.toml").write_text(_fill(TEMPLATES / "pyproject.toml.tmpl", values), encoding="utf-8")
    shutil.copyfile(TEMPLATES / "gitignore", dest / ".gitignore")
    shutil.copyfile(TEMPLATES / "conftest.py.tmpl", dest / "conftest.py")  # plain `pytest` runs the public checks
    shutil.copytree(TEMPLATES / "workflows", dest / ".github" / "workflows")


def _session_notice(session, chosen: list[Exercise]) -> str:
    """The bundle README's paragraph on the interview session it was exported for ("" without one)."""
    if session is None:
        return ""
    order = ", then ".join(f"{ex.number:02d} ({ex.title.split(':')[0]})" for ex in chosen)
    return (f"**{session.title}: {session.minutes} minutes.** {session.purpose} Work through the exercises in "
            f"this order: {order}.\n\n")


def _write_notebooks(dest: Path, chosen: list[Exercise]) -> None:
    from grader.notebooks.stubs import write_pair

    for ex in chosen:
        target = dest / "exercises" / ex.track / ex.id
        write_pair(candidate_readme(ex.dir / "README.md"), ex.stub, target)
    with open(dest / "README.md", "a", encoding="utf-8") as readme:
        readme.write(NOTEBOOK_README)


NOTEBOOK_README = """
## Working in a notebook

Each exercise also comes as a Jupyter notebook next to its `.py` file (`{name}.ipynb`: the
question first, then the stub's code cells). The two are paired by jupytext: with jupytext in your
Jupyter (`pip install jupytext`), saving the notebook updates the `.py` too; in plain Jupyter or
Colab, edit and save the notebook only. `grader check` grades whichever of the two you saved last.
Add cells as you like: cells tagged `grader:skip` (or starting with `# grader: skip`) are not
graded, nor run by the grader; IPython magics and `!` commands are ignored there.
"""


def split_readme(text: str) -> tuple[list[str], list[str]]:
    """An exercise README's lines for candidates, and those of its grader-only sections ("## Notes
    for graders" up to the next "## " heading)."""
    kept: list[str] = []
    grader_only: list[str] = []
    skipping = False
    for line in text.splitlines():
        heading = _SECTION_RE.match(line)
        if heading:
            skipping = heading.group(1).lower() in GRADER_ONLY_SECTIONS
        (grader_only if skipping else kept).append(line)
    return kept, grader_only


def candidate_readme(path: Path) -> str:
    """The README that candidates get: without its grader-only sections."""
    return "\n".join(split_readme(path.read_text(encoding="utf-8"))[0]).rstrip() + "\n"


def _toml_key(line: str, table: tuple[str, ...]) -> tuple[str, ...] | None:
    match = re.match(r"^\s*([A-Za-z0-9_-]+)\s*=", line)
    return (*table, match.group(1)) if match else None


def candidate_toml(path: Path) -> str:
    """exercise.toml as candidates get it: without the interviewer-only fields (INTERVIEWER_ONLY_KEYS:
    what the exercise tests, the APIs it requires), their values' continuation lines included."""
    return strip_interviewer_fields(path)


def strip_interviewer_fields(path: Path) -> str:
    """`candidate_toml`'s work, called by the scan directly: a writer that forgets to strip must be
    caught by the scan, not share its mistake."""
    text = path.read_text(encoding="utf-8")
    kept: list[str] = []
    table: tuple[str, ...] = ()
    skipping = 0  # open brackets of a skipped value
    for line in text.splitlines():
        if skipping:
            skipping += line.count("[") - line.count("]")
            continue
        header = re.match(r"^\s*\[([A-Za-z0-9_.-]+)\]\s*(#.*)?$", line)
        if header:
            table = tuple(header.group(1).split("."))
        elif _toml_key(line, table) in INTERVIEWER_ONLY_KEYS:
            skipping = line.count("[") - line.count("]")
            continue
        kept.append(line)
    result = "\n".join(kept).rstrip() + "\n"
    parsed = tomllib.loads(result)
    if "tests" in parsed or "required" in parsed.get("api", {}):  # a spelling the line filter missed
        raise ExerciseDefinitionError(f"{path}: write 'tests' and 'api.required' as plain keys (key = [...]) so "
                                      f"that the export can leave them out of the candidate's exercise.toml")
    return result


def _fill(template: Path, values: dict[str, str]) -> str:
    text = template.read_text(encoding="utf-8")
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    leftover = re.search(r"\{\{\w+\}\}", text)
    assert leftover is None, f"{template}: no value for {leftover.group(0)}"
    return text


def _dependencies() -> str:
    """The grader's own runtime dependencies, as installed (extras such as `dev` left out)."""
    try:
        requires = importlib.metadata.requires("torch-grader") or []
    except importlib.metadata.PackageNotFoundError:
        raise GraderError("torch-grader is not installed (its dependencies make the bundle's pyproject.toml): "
                          "install it with `make install` or `pip install -e .`") from None
    return "".join(f'    "{req}",\n' for req in requires if "extra ==" not in req)


def _exercise_table(chosen: list[Exercise]) -> str:
    rows = ["| exercise | title | difficulty | points | GPU | your file |", "|---|---|---|---:|---|---|"]
    for ex in chosen:
        readme = f"exercises/{ex.track}/{ex.id}/README.md"
        rows.append(f"| [{ex.id}]({readme}) | {ex.title.replace('|', '/')} | {ex.difficulty} | {ex.points:g} | "
                    f"{ex.gpu} | `exercises/{ex.layout_path}` |")
    return "\n".join(rows)


# --- the scan --------------------------------------------------------------------------------------

def _significant(line: str) -> str | None:
    text = line.strip()
    return text if any(ch.isalnum() for ch in text) else None


def _lines(path: Path) -> list[str]:
    if path.suffix == ".ipynb":  # JSON: the lines are inside its strings
        from grader.notebooks.stubs import notebook_lines

        return notebook_lines(path)
    return path.read_text(encoding="utf-8", errors="replace").splitlines()


def public_lines(root: Path, *packs: Path) -> set[str]:
    """Lines that are public by design: every exercise's candidate files (of `root` and of the
    exercise packs at `packs`) and the grader package."""
    public: set[str] = set()
    for folder in sorted(f for r in (root, *packs) for f in (r / "exercises").glob("*/*")):
        if not folder.is_dir():
            continue
        for path in folder.iterdir():
            if path.name == "README.md":  # split here, not by the writer: the scan must not share its bugs
                public.update(filter(None, map(_significant, split_readme(path.read_text(encoding="utf-8"))[0])))
            elif path.name == "exercise.toml":
                public.update(filter(None, map(_significant, strip_interviewer_fields(path).splitlines())))
            elif path.is_file() and path.name != "test_hidden.py" and path.suffix in (".py", ".toml"):
                public.update(filter(None, map(_significant, _lines(path))))
    for path in PACKAGE_DIR.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in FORBIDDEN_SUFFIXES:
            public.update(filter(None, map(_significant, _lines(path))))
    return public


def secret_lines(root: Path, *packs: Path) -> dict[str, str]:
    """Lines of hidden tests, solutions and graders' notes that no public file holds, each with
    where it first appears ("path:line", relative to `root`), in `root` and in the exercise packs
    at `packs` (their lines are "<pack folder>/path:line")."""
    secrets: dict[str, str] = {}
    public = public_lines(root, *packs)
    for base in (root, *packs):
        prefix = "" if base == root else f"{base.name}/"
        for text, where in _secret_lines(base, public).items():
            secrets.setdefault(text, prefix + where)
    return secrets


def _secret_lines(root: Path, public: set[str]) -> dict[str, str]:
    sources: list[tuple[Path, list[str]]] = []
    for path in sorted((root / "exercises").rglob("test_hidden.py")):
        sources.append((path, _lines(path)))
    for path in sorted((root / "solutions").rglob("*")) if (root / "solutions").is_dir() else ():
        if path.is_file() and "__pycache__" not in path.parts:
            sources.append((path, _lines(path)))
    for name in ("README.md", "exercise.toml"):  # their public parts are removed below with the public lines
        for path in sorted((root / "exercises").glob(f"*/*/{name}")):
            sources.append((path, _lines(path)))
    for path in sorted((root / "exercises").glob(f"*/*/{GUIDE_FILE}")):
        sources.append((path, _lines(path)))
    secrets: dict[str, str] = {}
    for path, lines in sources:
        for number, line in enumerate(lines, 1):
            text = _significant(line)
            if text and text not in public and text not in secrets:
                secrets[text] = f"{path.relative_to(root)}:{number}"
    return secrets


def find_leaks(bundle: Path, secrets: dict[str, str]) -> list[Leak]:
    """Every line of every file in `bundle` that is one of `secrets`."""
    leaks = []
    for path in sorted(p for p in bundle.rglob("*") if p.is_file()):
        for number, line in enumerate(_lines(path), 1):
            text = _significant(line)
            if text and text in secrets:
                leaks.append(Leak(str(path.relative_to(bundle)), number, secrets[text], text))
    return leaks


def forbidden_paths(bundle: Path) -> list[Leak]:
    """Files and folders whose very name says they are hidden (test_hidden.py, solutions/...)."""
    found = []
    for dirpath, dirnames, filenames in os.walk(bundle):
        for name in dirnames + filenames:
            if name in FORBIDDEN_NAMES or name.endswith(FORBIDDEN_SUFFIXES):
                rel = str((Path(dirpath) / name).relative_to(bundle))
                found.append(Leak(rel, 0, "a hidden file's name, never shipped", name))
    return found
