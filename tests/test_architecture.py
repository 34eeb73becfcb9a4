"""The shape of the code, computed from its source: the import graph of `grader/` (imports inside
functions included) has no cycle, no module imports another package's private name, and no
feature reaches up into another (docs/architecture.md draws the layers these rules keep)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "grader"

# importer prefix -> module prefixes it must never import: the lower layers know nothing of the upper
FORBIDDEN = {
    "grader.sandbox": ("grader.judge", "grader.runtimes", "grader.grading", "grader.reports", "grader.practice",
                       "grader.cli", "grader.catalog", "grader.results"),
    "grader.probes": ("grader.judge", "grader.runtimes", "grader.grading", "grader.reports", "grader.practice",
                      "grader.cli"),
    "grader.judge": ("grader.runtimes", "grader.grading", "grader.reports", "grader.practice", "grader.cli"),
    "grader.runtimes": ("grader.grading", "grader.reports", "grader.practice", "grader.cli"),
    "grader.results": ("grader.grading", "grader.reports", "grader.practice", "grader.cli", "grader.runtimes"),
    "grader.reports": ("grader.grading", "grader.practice", "grader.cli", "grader.runtimes", "grader.judge",
                       "grader.sandbox"),
    "grader.grading": ("grader.practice", "grader.cli", "grader.validate", "grader.mutate"),
    "grader.": ("grader.cli",),  # nothing imports the command line (grader.__main__ and cli_* aside)
}
CLI_SIDE = ("grader.cli", "grader.__main__")


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _package(module: str, mods: dict[str, Path]) -> str:
    return module if mods[module].name == "__init__.py" else module.rpartition(".")[0]


def _owner(name: str, mods: dict[str, Path]) -> str | None:
    """The module of ours that `name` (a dotted import target) lives in."""
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> tuple[dict[str, set[str]], list[tuple[str, str, str]]]:
    """(module -> the modules of ours it imports, [(importer, module, private name)] across packages)."""
    mods = modules()
    edges: dict[str, set[str]] = {}
    private = []
    for module, path in mods.items():
        out: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                out |= {m for a in node.names if (m := _owner(a.name, mods))}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = _package(module, mods).split(".")
                    base = base[:len(base) - (node.level - 1)]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                if not source.startswith("grader"):
                    continue
                for alias in node.names:
                    if f"{source}.{alias.name}" in mods:  # a submodule
                        out.add(f"{source}.{alias.name}")
                        continue
                    target = _owner(source, mods)
                    if target is None:
                        continue
                    out.add(target)
                    if (alias.name.startswith("_") and not alias.name.startswith("__")
                            and _package(module, mods) != _package(target, mods)):
                        private.append((module, target, alias.name))
        out.discard(module)
        edges[module] = out
    return edges, private


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in edges:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


@pytest.fixture(scope="module")
def graph():
    return import_graph()


def test_the_import_graph_has_no_cycle(graph):
    edges, _ = graph
    assert cycles(edges) == []


def test_the_cycle_finder_finds_a_cycle_through_a_function_level_import():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_private_name_is_imported_across_packages(graph):
    _, private = graph
    assert private == []


def test_no_feature_reaches_up_into_another(graph):
    edges, _ = graph
    broken = []
    for importer, targets in edges.items():
        for prefix, banned in FORBIDDEN.items():
            if not importer.startswith(prefix) or (prefix == "grader." and importer.startswith(CLI_SIDE)):
                continue
            broken += [f"{importer} imports {t}" for t in sorted(targets) if t.startswith(banned)]
    assert broken == []


def test_the_graph_sees_imports_inside_functions(graph):
    edges, _ = graph
    # grader.grading.run imports the Ray executor inside a function only
    assert "grader.grading.ray" in edges["grader.grading.run"]
