"""Trivial answers `grader validate` grades and requires to score 0: the stub with every function
and method returning None, 0, an empty tensor, or its first argument unchanged.

A check that awards points to one of these checks nothing about the contract (e.g. comparing two
`None` results with each other). An exercise may explain a trivial answer's points in
`solutions/<track>/<id>/trivial_answers.toml`: `<name> = "why the points are deserved"`.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from grader.errors import ExerciseDefinitionError

TRIVIAL = {
    "returns_none": "every function returns None",
    "returns_zero": "every function returns 0",
    "returns_empty_tensor": "every function returns an empty tensor",
    "returns_input": "every function returns its first argument unchanged",
}
EXPLANATIONS = "trivial_answers.toml"


def _body(kind: str, fn: ast.FunctionDef | ast.AsyncFunctionDef, in_class: ast.ClassDef | None) -> list[ast.stmt]:
    if in_class is not None and fn.name == "__init__":
        code = "super().__init__()" if in_class.bases else "pass"
    elif kind == "returns_none":
        code = "return None"
    elif kind == "returns_zero":
        code = "return 0"
    elif kind == "returns_empty_tensor":
        code = "import torch\nreturn torch.empty(0)"
    else:
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        if in_class is not None and params and params[0] in ("self", "cls", "ctx"):
            params = params[1:]
        code = f"return {params[0]}" if params else "return None"
    body = ast.parse(code).body
    doc = fn.body[0] if fn.body and isinstance(fn.body[0], ast.Expr) and isinstance(
        getattr(fn.body[0], "value", None), ast.Constant) else None
    return ([doc] if doc else []) + body


def trivial_source(stub_source: str, kind: str) -> str:
    """The stub with every function body replaced by the trivial answer `kind` (a key of TRIVIAL)."""
    tree = ast.parse(stub_source)

    def rewrite(nodes: list[ast.stmt], owner: ast.ClassDef | None) -> None:
        for node in nodes:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                node.body = _body(kind, node, owner)
            elif isinstance(node, ast.ClassDef):
                rewrite(node.body, node)

    rewrite(tree.body, None)
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def write_trivial_answers(stub: Path, folder: Path) -> dict[str, Path]:
    """Write one file per trivial answer under `folder` (named like the stub): kind -> path."""
    source = stub.read_text(encoding="utf-8")
    out = {}
    for kind in TRIVIAL:
        path = folder / kind / stub.name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(trivial_source(source, kind), encoding="utf-8")
        out[kind] = path
    return out


def explanations(solutions_dir: Path) -> dict[str, str]:
    path = solutions_dir / EXPLANATIONS
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ExerciseDefinitionError(f"{path}: not valid TOML: {exc}") from exc
    bad = [k for k, v in data.items() if k not in TRIVIAL or not isinstance(v, str) or not v.strip()]
    if bad:
        raise ExerciseDefinitionError(f"{path}: {bad} are not trivial answers with a reason; "
                                      f"use {sorted(TRIVIAL)} = \"reason\"")
    return data
