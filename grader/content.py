"""The rules an exercise's candidate-facing content follows, checked by `grader validate`.

"Contract, not recipe" (docs/authoring.md): the stub gives the signatures and, for each function,
class and method, a docstring of at most two sentences on *what* it returns, and imports only what
its signatures use (an unused import reads as a hint); `exercise.toml` names what the exercise
tests (interviewer-only); the interviewer's guide exists with its sections (`grader.guides`).

    from grader.content import content_problems
    content_problems(exercise)   # [] when the exercise follows the rules
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from grader.catalog import Exercise
from grader.guides import guide_problems

MAX_DOCSTRING_SENTENCES = 2
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")


def sentences(text: str) -> int:
    """How many sentences `text` holds: its sentence ends (., ! or ? before a space or the end), plus
    one for a last sentence left without one."""
    text = " ".join(text.split())
    if not text:
        return 0
    ends = len(_SENTENCE_END.findall(text))
    return ends + (0 if _SENTENCE_END.search(text[-1:] + " ") else 1)


def _used_names(tree: ast.Module) -> set[str]:
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            used.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):  # a quoted annotation
            try:
                used |= {n.id for n in ast.walk(ast.parse(node.value, mode="eval")) if isinstance(n, ast.Name)}
            except SyntaxError:
                pass
    return used


def stub_problems(stub: Path) -> list[str]:
    """Docstrings over two sentences and imported names the stub never uses, each in a sentence."""
    try:
        tree = ast.parse(stub.read_text(encoding="utf-8"), filename=str(stub))
    except (OSError, SyntaxError, UnicodeDecodeError) as exc:
        return [f"{stub}: cannot be read as Python ({exc})"]
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            doc = ast.get_docstring(node) or ""
            if sentences(doc) > MAX_DOCSTRING_SENTENCES:
                problems.append(f"{stub}:{node.lineno}: {node.name}'s docstring has {sentences(doc)} sentences: "
                                f"say what it returns in at most {MAX_DOCSTRING_SENTENCES}; how goes in the hints "
                                f"and the interviewer's guide")
    used = _used_names(tree)
    unused = [alias.asname or alias.name.split(".")[0] for node in tree.body
              if isinstance(node, (ast.Import, ast.ImportFrom)) and getattr(node, "module", None) != "__future__"
              for alias in node.names if (alias.asname or alias.name.split(".")[0]) not in used]
    if unused:
        problems.append(f"{stub}: imports {', '.join(unused)}, which the stub does not use: import only what "
                        f"the signatures need")
    return problems


def content_problems(ex: Exercise) -> list[str]:
    """Every rule `ex` breaks: its stub's docstrings and imports, its `tests` list, its guide."""
    problems = stub_problems(ex.stub) if ex.stub.is_file() else []
    if not ex.tests:
        problems.append(f"{ex.dir / 'exercise.toml'}: no 'tests' list: name what the exercise tests (its traps, "
                        f"a few words each); candidates never see it")
    return problems + guide_problems(ex.dir)
