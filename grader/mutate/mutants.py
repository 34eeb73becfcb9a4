"""Mutants of one source file: mutmut's visitor walks the libcst tree with our operator list.

A mutant's `id` is stable while the lines it changes stay the same (a hash of the operator, the
changed lines before and after, and its rank among identical changes), so the equivalent-mutant
list of an exercise survives edits elsewhere in the reference.
"""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider
from mutmut.mutation.file_mutation import MutationVisitor, deep_replace
from mutmut.mutation.pragma_handling import IgnoredCode, PragmaVisitor

from grader.errors import UsageError
from grader.mutate.operators import OPERATORS, operator_name


@dataclass(frozen=True)
class Mutant:
    id: str
    operator: str
    line: int
    before: str  # the changed lines of the original, stripped and joined with " / "
    after: str  # the same lines in the mutant
    source: str
    diff: str  # unified diff against the original

    @property
    def change(self) -> str:
        return f"{self.before} -> {self.after}"


class _Visitor(MutationVisitor):
    """mutmut's visitor, with the operator recorded per mutation, strings of error messages left
    alone (what a `raise` or an `assert` says is not graded), and decorated functions mutated too
    (we write whole files, not mutmut's trampolines, so its reason to skip them does not apply)."""

    def __init__(self, operators, ignored_code) -> None:
        super().__init__(operators, ignored_code)
        self.found: list[tuple[str, cst.CSTNode, cst.CSTNode, int]] = []
        self._in_message = 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Raise | cst.Assert):
            self._in_message += 1
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if isinstance(original_node, cst.Raise | cst.Assert):
            self._in_message -= 1
        super().on_leave(original_node)

    def _skip_node_and_children(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.FunctionDef) and node.decorators:
            return False
        return super()._skip_node_and_children(node)

    def _create_mutations(self, node: cst.CSTNode) -> None:
        position = self.get_metadata(PositionProvider, node, None)
        line = position.start.line if position else 0
        for node_type, operator in self._operators:
            if not isinstance(node, node_type):
                continue
            if self._in_message and isinstance(node, cst.BaseString | cst.FormattedString):
                continue
            for mutated in operator(node):
                if not self._removes_ignored_code(node, mutated):
                    self.found.append((operator_name(operator), node, mutated, line))


def _changed(original: list[str], mutated: list[str]) -> tuple[str, str]:
    before, after = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=original, b=mutated, autojunk=False).get_opcodes():
        if tag != "equal":
            before += [s.strip() for s in original[i1:i2]]
            after += [s.strip() for s in mutated[j1:j2]]
    return " / ".join(before), " / ".join(after)


def generate(source: str, filename: str = "solution.py") -> list[Mutant]:
    """Every distinct mutant of `source` that still compiles, in source order."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        raise UsageError(f"{filename} cannot be parsed for mutation: {exc}") from exc
    wrapper = MetadataWrapper(module)
    pragmas = PragmaVisitor(filename)  # `# pragma: no mutate` (mutmut's syntax) keeps a line as it is
    wrapper.visit(pragmas)
    visitor = _Visitor(OPERATORS, IgnoredCode(pragmas.no_mutate_lines, pragmas.ignore_node_lines, set()))
    wrapper.visit(visitor)
    tree = wrapper.module
    original_lines = source.splitlines()
    seen: set[str] = {source}
    ranks: dict[str, int] = {}
    mutants = []
    for op, node, mutated, line in visitor.found:
        code = deep_replace(tree, node, mutated).code
        if code in seen:
            continue
        seen.add(code)
        try:
            compile(code, filename, "exec")
        except (SyntaxError, ValueError):
            continue
        mutated_lines = code.splitlines()
        before, after = _changed(original_lines, mutated_lines)
        key = f"{op}|{before}|{after}"
        ranks[key] = ranks.get(key, 0) + 1
        ident = hashlib.sha256(f"{key}|{ranks[key]}".encode()).hexdigest()[:10]
        diff = "".join(difflib.unified_diff(source.splitlines(True), code.splitlines(True),
                                            f"a/{filename}", f"b/{filename}", n=1))
        mutants.append(Mutant(ident, op, line, before, after, code, diff))
    return mutants
