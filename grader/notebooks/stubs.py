"""Notebook stubs for `grader export --notebooks`: each exercise's `<name>.ipynb` holds its README
as the first markdown cell and the stub as code cells (imports, then one cell per function or
class), and is paired by jupytext with the exercise's `<name>.py` (percent format: `# %%` cell
markers), so `grader check` works on either form (the more recently saved one is graded)."""

from __future__ import annotations

import ast
from pathlib import Path

PAIRING = "ipynb,py:percent"


def stub_cells(stub: str) -> list[str]:
    """The stub split at its top-level definitions: what precedes the first one (docstring,
    imports), then each function or class with the comments and decorators above it."""
    lines = stub.splitlines()
    tree = ast.parse(stub)
    starts = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            while start > 1 and lines[start - 2].lstrip().startswith("#"):
                start -= 1
            starts.append(start)
    bounds = [1, *[s for s in starts if s > 1], len(lines) + 1]
    cells = ["\n".join(lines[a - 1:b - 1]).strip("\n") for a, b in zip(bounds, bounds[1:])]
    return [c for c in cells if c.strip()]


def write_pair(readme: str, stub: Path, folder: Path) -> tuple[Path, Path]:
    """Write `<stub name>.ipynb` and its jupytext pair `<stub name>.py` into `folder`."""
    import jupytext
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata["jupytext"] = {"formats": PAIRING}
    nb.cells = [new_markdown_cell(readme.rstrip())]
    nb.cells += [new_code_cell(code) for code in stub_cells(stub.read_text(encoding="utf-8"))]
    for number, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{number}"  # stable ids: an export is reproducible
    notebook = folder / f"{stub.stem}.ipynb"
    nbformat.validate(nb)
    nbformat.write(nb, notebook)
    paired = folder / stub.name
    paired.write_text(jupytext.writes(nb, fmt="py:percent"), encoding="utf-8")
    return notebook, paired


def notebook_lines(path: Path) -> list[str]:
    """Every line of every string in a notebook's JSON (cell sources, outputs, metadata), for the
    export's hidden-content scan; the raw text when it is not JSON."""
    import json

    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return text.splitlines()
    out: list[str] = []
    todo = [data]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            out += item.splitlines()
        elif isinstance(item, list):
            if item and all(isinstance(x, str) for x in item):
                out += "".join(item).splitlines()  # nbformat's multi-line strings
            else:
                todo += reversed(item)
        elif isinstance(item, dict):
            todo += reversed(list(item.values()))
    return out
