"""Reading a notebook from untrusted bytes and joining its cells into one module (see
`grader.notebooks`). Nothing is executed."""


from __future__ import annotations

import ast
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from grader.catalog import Exercise

MAX_NOTEBOOK_BYTES = 32 << 20
MAX_CELLS = 10_000  # nbformat validates cell by cell (about 0.05-0.2 ms each): counted before it runs
MAX_SUBMISSION_CELLS = 20_000  # all the notebooks of one submission together
MAX_CODE_BYTES = 4 << 20  # all code cells together: parsing is not free either
MAX_SOURCE_PIECES = 200_000  # strings in all cells' `source` lists (nbformat's multi-line strings)
TAG = "grader:"
_MARKER = re.compile(r"^\s*#\s*grader:\s*([\w-]+)\s*$")
_MAGIC = re.compile(r"^\s*(%|!)|^\s*[\w.]+\s*=\s*[%!]|^[^#'\"]*\?\s*$")
_PYTHON_CELL_MAGICS = {"time", "timeit", "capture"}  # `%%time`: the body is Python, kept
SPECIAL = ("shared", "skip")


class NotebookProblem(Exception):
    """The notebook cannot be graded (too big, not JSON, not a valid notebook): a per-exercise problem."""


@dataclass
class CellBudget:
    """Cells that may still be read from one submission's notebooks (`read_cells` spends it)."""

    left: int = MAX_SUBMISSION_CELLS


@dataclass(frozen=True)
class Cell:
    number: int  # 1-based position among all the notebook's cells, as it is shown in messages
    source: str
    marks: frozenset[str]  # grader marks (lower case): exercise refs, "shared", "skip"


@dataclass(frozen=True)
class LineMap:
    """Generated module line (1-based) -> (cell number, line in that cell)."""

    notebook: str  # the notebook as shown to people (relative to the submission)
    lines: tuple[tuple[int, int], ...]

    def where(self, line: int) -> str:
        if 1 <= line <= len(self.lines):
            cell, local = self.lines[line - 1]
            return f"cell {cell}, line {local}"
        return f"line {line}"

    def cell_line(self, line: int) -> tuple[int | None, int]:
        if 1 <= line <= len(self.lines):
            return self.lines[line - 1]
        return None, line


@dataclass
class Converted:
    source: str
    linemap: LineMap
    flags: list[dict] = field(default_factory=list)  # {"cell", "line", "message"}


@dataclass(frozen=True)
class NotebookSource:
    """Where an exercise's code comes from when it is a notebook (kept on its `CandidateFile`)."""

    path: Path  # the .ipynb
    shown: str  # as shown to people, relative to the submission
    cells: tuple[Cell, ...] = ()
    linemap: LineMap | None = None  # set once converted
    flags: tuple[dict, ...] = ()


# --- reading -----------------------------------------------------------------------------------------

def read_cells(path: Path, shown: str | None = None, budget: CellBudget | None = None) -> list[Cell]:
    """The notebook's cells, from untrusted bytes. Raises NotebookProblem with a message for people.

    Its size, its number of cells (also against what is left of the submission's `budget`) and
    the size of its code are checked on the parsed JSON, before nbformat validates it cell by
    cell; cell ids are renumbered first (grading never reads them), so nbformat has no duplicate
    or missing id to repair and warn about, once per cell, on stderr."""
    import nbformat

    shown = shown or path.name
    try:
        size = path.stat().st_size
        if size > MAX_NOTEBOOK_BYTES:
            raise NotebookProblem(f"{shown} is {size >> 20} MiB, over the {MAX_NOTEBOOK_BYTES >> 20} MiB limit for "
                                  f"notebooks: clear its outputs (Edit > Clear all outputs) and save it again")
        raw = path.read_bytes().decode("utf-8")
        data = json.loads(raw)
    except NotebookProblem:
        raise
    except UnicodeDecodeError as exc:
        raise NotebookProblem(f"{shown} is not UTF-8 text ({exc.reason} at byte {exc.start}): "
                              f"save the notebook again from Jupyter") from None
    except RecursionError:
        raise NotebookProblem(f"{shown} is not a notebook: its JSON is nested too deeply") from None
    except ValueError as exc:
        raise NotebookProblem(f"{shown} is not a notebook: its JSON does not parse ({str(exc)[:120]}): "
                              f"save the notebook again from Jupyter") from None
    except OSError as exc:
        raise NotebookProblem(f"{shown} cannot be read ({exc.strerror})") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells", data.get("worksheets")), list):
        raise NotebookProblem(f"{shown} is not a notebook (no list of cells in its JSON)")
    _check_size(data, shown, budget)
    _strip(data)
    errors: dict = {}
    try:
        nb = nbformat.reads(json.dumps(data), as_version=4, capture_validation_error=errors)
        nbformat.validate(nb)
    except RecursionError:
        raise NotebookProblem(f"{shown} is not a notebook: its JSON is nested too deeply") from None
    except Exception as exc:  # noqa: BLE001 - nbformat raises many kinds; all mean "not a valid notebook"
        first = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__
        raise NotebookProblem(f"{shown} is not a valid notebook (nbformat: {first}): open it in Jupyter and "
                              f"save it again") from None
    if len(nb.cells) > MAX_CELLS:
        raise NotebookProblem(f"{shown} has {len(nb.cells)} cells (the limit is {MAX_CELLS})")
    if budget is not None:
        budget.left -= len(nb.cells)
    cells = []
    for number, cell in enumerate(nb.cells, 1):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        marks = {t[len(TAG):].strip().lower() for t in cell.get("metadata", {}).get("tags", [])
                 if isinstance(t, str) and t.lower().startswith(TAG)}
        first = source.split("\n", 1)[0]
        marker = _MARKER.match(first)
        if marker:
            marks.add(marker.group(1).lower())
        cells.append(Cell(number, source, frozenset(marks)))
    code = sum(len(c.source.encode("utf-8", errors="replace")) for c in cells)
    if code > MAX_CODE_BYTES:
        raise NotebookProblem(f"{shown} holds {code >> 20} MiB of code, over the {MAX_CODE_BYTES >> 20} MiB limit")
    return cells


def _raw_cells(data: dict) -> list:
    """The cells of the notebook's JSON as they are (nbformat 4: `cells`; 3: each worksheet's)."""
    if isinstance(data.get("cells"), list):
        return data["cells"]
    out: list = []
    for sheet in data.get("worksheets") or []:
        if isinstance(sheet, dict) and isinstance(sheet.get("cells"), list):
            out += sheet["cells"]
    return out


def _check_size(data: dict, shown: str, budget: CellBudget | None) -> None:
    """Refuse, before nbformat runs, a notebook with too many cells or too much code."""
    cells = _raw_cells(data)
    limit = MAX_CELLS if budget is None else min(MAX_CELLS, budget.left)
    if len(cells) > limit:
        if limit < MAX_CELLS:
            raise NotebookProblem(f"{shown} was not read: the submission's notebooks hold more than "
                                  f"{MAX_SUBMISSION_CELLS} cells together")
        raise NotebookProblem(f"{shown} has {len(cells)} cells (the limit is {MAX_CELLS}): split it, or clear "
                              f"the cells that are not part of your answers")
    code = pieces = 0
    for cell in cells:
        source = cell.get("source", cell.get("input")) if isinstance(cell, dict) else None
        is_code = cell.get("cell_type") == "code" if isinstance(cell, dict) else False
        if isinstance(source, list):
            pieces += len(source)
            code += sum(len(piece) for piece in source if isinstance(piece, str)) if is_code else 0
        elif isinstance(source, str) and is_code:
            code += len(source)
    if pieces > MAX_SOURCE_PIECES:
        raise NotebookProblem(f"{shown} has {pieces} lines of cell source (the limit is {MAX_SOURCE_PIECES})")
    if code > MAX_CODE_BYTES:
        raise NotebookProblem(f"{shown} holds {code >> 20} MiB of code, over the {MAX_CODE_BYTES >> 20} MiB limit")


def _strip(data: dict) -> None:
    """Drop what grading never reads (outputs, attachments, widget state) before validation: a
    notebook is not refused for a malformed plot, and a huge output costs no validation time."""
    ids = data.get("nbformat") == 4 and isinstance(data.get("nbformat_minor"), int) and data["nbformat_minor"] >= 5
    for number, cell in enumerate(data.get("cells", []) if isinstance(data.get("cells"), list) else []):
        if isinstance(cell, dict):
            if ids:  # unique, valid ids (4.5 wants them): nothing for nbformat to repair, cell by cell
                cell["id"] = f"cell-{number}"
            else:
                cell.pop("id", None)
            if "outputs" in cell:
                cell["outputs"] = []
            if "execution_count" in cell:
                cell["execution_count"] = None
            cell.pop("attachments", None)
            meta = cell.get("metadata")
            if isinstance(meta, dict):
                cell["metadata"] = {"tags": meta["tags"]} if isinstance(meta.get("tags"), list) else {}
    meta = data.get("metadata")
    if isinstance(meta, dict):
        data["metadata"] = {k: v for k, v in meta.items() if k in ("kernelspec", "language_info")
                            and isinstance(v, dict)}


# --- which cells -------------------------------------------------------------------------------------

def refers_to(mark: str, ex: Exercise) -> bool:
    if mark in (ex.id.lower(), ex.name.lower()):
        return True
    return mark.isdigit() and int(mark) == ex.number


def is_tagged(cells: list[Cell]) -> bool:
    """Does the notebook mark cells for exercises (as opposed to being one exercise's file)?"""
    return any(m not in SPECIAL for cell in cells for m in cell.marks)


def cells_for(cells: list[Cell], ex: Exercise) -> list[Cell]:
    if not is_tagged(cells):
        return [c for c in cells if "skip" not in c.marks]
    return [c for c in cells if "skip" not in c.marks
            and ("shared" in c.marks or any(refers_to(m, ex) for m in c.marks))]


def marked_exercises(cells: list[Cell], exercises: list[Exercise]) -> list[Exercise]:
    return [ex for ex in exercises if any(refers_to(m, ex) for c in cells for m in c.marks)]


# --- conversion --------------------------------------------------------------------------------------

def convert(cells: list[Cell], shown: str) -> Converted:
    """Join `cells` into one module, dropping IPython syntax and cells that do not compile (with
    flags); never runs anything."""
    out: list[str] = []
    lines: list[tuple[int, int]] = []
    flags: list[dict] = []
    futures: list[tuple[str, tuple[int, int]]] = []
    for cell in cells:
        text, cell_flags = _python_of(cell)
        flags += cell_flags
        for local, line in enumerate(text.split("\n"), 1):
            if _FUTURE.match(line):  # legal in any cell, but only at the top of a module: hoisted
                futures.append((line.strip(), (cell.number, local)))
                line = ""
            out.append(line)
            lines.append((cell.number, local))
    if futures:
        out.insert(0, "; ".join(dict.fromkeys(text for text, _ in futures)))
        lines.insert(0, futures[0][1])
    return Converted("\n".join(out) + "\n", LineMap(shown, tuple(lines)), flags)


_FUTURE = re.compile(r"^from\s+__future__\s+import\s+[\w\s,()]+$")


def _python_of(cell: Cell) -> tuple[str, list[dict]]:
    source = cell.source.replace("\r\n", "\n")
    if _compiles(source):
        return source, []
    rows = source.split("\n")
    flags = []
    first = rows[0].strip()
    if first.startswith("%%"):
        magic = first[2:].split()[0] if first[2:].split() else ""
        flags.append(_flag(cell, 1, f"cell magic %%{magic} dropped, not run"))
        if magic not in _PYTHON_CELL_MAGICS:
            return _blank(rows), flags + [_flag(cell, 1, f"cell {cell.number} left out: its body is %%{magic} "
                                                         f"input, not Python")]
        rows[0] = ""
    for i, row in enumerate(rows):
        if i == 0 and first.startswith("%%"):
            continue
        if _MAGIC.match(row):
            kind = "shell escape" if row.lstrip().startswith("!") or re.match(r"^\s*[\w.]+\s*=\s*!", row) \
                else ("help request" if row.rstrip().endswith("?") else "magic")
            flags.append(_flag(cell, i + 1, f"IPython {kind} dropped, not run: {row.strip()[:60]}"))
            indent = row[: len(row) - len(row.lstrip())]
            rows[i] = f"{indent}pass" if indent else ""
    text = "\n".join(rows)
    if _compiles(text):
        return text, flags
    try:
        ast.parse(text)
    except SyntaxError as exc:
        where = exc.lineno or 1
        flags.append(_flag(cell, where, f"cell {cell.number} left out of the graded code: syntax error at its "
                                        f"line {where}: {exc.msg}"))
    except (ValueError, RecursionError, MemoryError) as exc:
        flags.append(_flag(cell, 1, f"cell {cell.number} left out of the graded code: {type(exc).__name__}"))
    return _blank(rows), flags


def _blank(rows: list[str]) -> str:
    return "\n".join("" for _ in rows)


def _compiles(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _flag(cell: Cell, line: int, message: str) -> dict:
    return {"cell": cell.number, "line": line, "message": message}


def write_module(converted: Converted, folder: Path, module_name: str) -> Path:
    """Write the generated module as `folder/<module_name>.py`, readable by the judge and worker."""
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o755)
    path = folder / f"{module_name}.py"
    path.write_text(converted.source, encoding="utf-8")
    os.chmod(path, 0o644)
    return path


# --- messages ----------------------------------------------------------------------------------------

_LOCATION = re.compile(r'File "([^"]+)", line (\d+)|\b(at )?line (\d+)\b')


def rewrite(message: str, linemap: LineMap, generated: Path) -> str:
    """`message` with every place in the generated module shown as its notebook cell and line:
    `File ".../x.py", line 12` -> `File "x.ipynb", cell 3, line 2`; `line 12` -> `cell 3, line 2`.
    Frames of other files (torch's, the check's) are left as they are."""
    gen_names = {str(generated), generated.name}

    def sub(match: re.Match) -> str:
        if match.group(1) is not None:
            if match.group(1) in gen_names or Path(match.group(1)).name == generated.name:
                return f'File "{linemap.notebook}", {linemap.where(int(match.group(2)))}'
            return match.group(0)
        prefix = "at " if match.group(3) else ""
        return prefix + linemap.where(int(match.group(4)))

    text = _LOCATION.sub(sub, message)
    return text.replace(str(generated), linemap.notebook).replace(generated.name, linemap.notebook)
