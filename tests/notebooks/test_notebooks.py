"""Notebook submissions: real notebooks written with nbformat (outputs, widget state, markdown and
raw cells, a cell with a syntax error, magics and shell escapes), located like .py files (alone, in
folders, in archives, by name or by cell marks), converted without running a cell, graded in the
local runtime (the docker runtime: tests/runtimes/test_docker.py's image, see test_notebook_in_docker), with
every message and flag shown at the notebook's cell and line; hostile notebooks (huge, nested JSON,
not a notebook) become one exercise's problem, never a crash."""
from __future__ import annotations

import os
import re
import shutil
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

from grader import notebooks
from grader.catalog import Catalog
from grader.grading import grade
from grader.notebooks import cells as nbconvert
from grader.submissions import locate

ROOT = Path(__file__).resolve().parents[2]
SOLUTION_05 = (ROOT / "solutions/tensors/05_broadcast_bias/broadcast_bias.py").read_text()
SOLUTION_10 = (ROOT / "solutions/autograd/10_autograd_basics/autograd_basics.py").read_text()
WIDGETS = {"application/vnd.jupyter.widget-state+json": {"state": {"a1": {"model_name": "IntSliderModel",
                                                                           "model_module": "@jupyter-widgets/controls",
                                                                           "model_module_version": "2.0.0",
                                                                           "state": {"value": 3}}},
                                                          "version_major": 2, "version_minor": 0}}


def body(solution: str) -> str:
    """A solution without its module docstring and imports (they go in the notebook's first cell)."""
    return solution.split("\nfrom torch import Tensor\n", 1)[1] if "from torch import Tensor" in solution else solution


def solution_notebook(path: Path) -> Path:
    """A realistic candidate notebook for exercise 05: outputs, widgets, markdown and raw cells, a
    magic and a shell escape, a cell that does not compile, and scratch code at the end."""
    nb = new_notebook()
    nb.metadata["widgets"] = WIDGETS
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [
        new_markdown_cell("# Broadcasting\nMy answers."),                                    # cell 1
        new_code_cell("%matplotlib inline\n!pip install torch\nfrom __future__ import annotations\n"
                      "import torch\nfrom torch import Tensor",
                      outputs=[new_output("stream", name="stdout", text="Requirement already satisfied\n")],
                      execution_count=1),                                                     # cell 2
        new_raw_cell("raw text, never code"),                                                 # cell 3
        new_code_cell("def unfinished(:\n    pass"),                                          # cell 4
        new_code_cell(body(SOLUTION_05), execution_count=2,
                      outputs=[new_output("display_data", data={"text/plain": "IntSlider(value=3)",
                                                                "application/vnd.jupyter.widget-view+json": {
                                                                    "model_id": "a1", "version_major": 2,
                                                                    "version_minor": 0}})]),  # cell 5
        new_code_cell("%%time\nx = add_feature_bias(torch.zeros(2, 3), torch.ones(3))\nx",
                      outputs=[new_output("execute_result", data={"text/plain": "tensor(...)"},
                                          execution_count=3)], execution_count=3),             # cell 6
    ]
    nbformat.write(nb, path)
    return path


def exercises(*refs: str):
    return Catalog.load(ROOT).select(list(refs))


# --- conversion ---------------------------------------------------------------------------------------

def test_conversion_keeps_code_cells_drops_ipython_syntax_and_maps_every_line(tmp_path):
    path = solution_notebook(tmp_path / "broadcast_bias.ipynb")
    cells = notebooks.read_cells(path)
    assert [c.number for c in cells] == [2, 4, 5, 6]  # markdown and raw cells are not code
    converted = notebooks.convert(cells, "broadcast_bias.ipynb")
    source = converted.source
    compile(source, "generated.py", "exec")
    assert "%matplotlib" not in source and "!pip" not in source and "%%time" not in source
    assert "def unfinished" not in source and "def add_feature_bias" in source
    assert source.splitlines()[0] == "from __future__ import annotations"  # hoisted, legal where it was
    messages = {(f["cell"], f["line"]): f["message"] for f in converted.flags}
    assert messages[(2, 1)] == "IPython magic dropped, not run: %matplotlib inline"
    assert messages[(2, 2)] == "IPython shell escape dropped, not run: !pip install torch"
    assert messages[(4, 1)].startswith("cell 4 left out of the graded code: syntax error at its line 1")
    assert messages[(6, 1)] == "cell magic %%time dropped, not run"
    # every generated line maps back to the cell and line it came from
    lines = source.splitlines()
    where = lines.index("def add_sample_bias(x: Tensor, bias: Tensor) -> Tensor:") + 1
    cell5 = cells[2].source.splitlines()
    cell, local = converted.linemap.cell_line(where)
    assert cell == 5 and cell5[local - 1] == lines[where - 1]
    assert converted.linemap.where(where) == f"cell 5, line {local}"


def test_a_valid_python_line_that_looks_like_a_magic_is_kept():
    cell = nbconvert.Cell(1, "y = (10\n  % 3)\ns = '''\n!not a shell escape\n'''", frozenset())
    converted = notebooks.convert([cell], "n.ipynb")
    assert converted.flags == [] and "!not a shell escape" in converted.source


def test_messages_are_rewritten_to_cells_but_other_files_frames_are_not(tmp_path):
    cells = [nbconvert.Cell(2, "import torch", frozenset()), nbconvert.Cell(4, "def f(x):\n    return x.nope()",
                                                                               frozenset())]
    converted = notebooks.convert(cells, "work/answer.ipynb")
    generated = tmp_path / "05_x" / "broadcast_bias.py"
    message = (f'boom\nFile "{generated}", line 3, in f\nFile "/usr/lib/torch/functional.py", line 3, in g\n'
               f"torch.cdist is not allowed (line 3): use broadcasting; broadcast_bias.py has a syntax error at line 2")
    assert notebooks.rewrite(message, converted.linemap, generated) == (
        'boom\nFile "work/answer.ipynb", cell 4, line 2, in f\nFile "/usr/lib/torch/functional.py", line 3, in g\n'
        "torch.cdist is not allowed (cell 4, line 2): use broadcasting; work/answer.ipynb has a syntax error at "
        "cell 4, line 1")


@pytest.mark.parametrize("content,expected", [
    (b"[" * 200_000 + b"]" * 200_000, "its JSON is nested too deeply"),
    (b'{"cells": [', "its JSON does not parse"),
    (b"\xff\xfe not utf-8", "is not UTF-8 text"),
    (b'{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code"}]}',
     "is not a valid notebook (nbformat:"),
    (b'{"cells": "nope"}', "is not a notebook (no list of cells"),
    (b"[1, 2, 3]", "is not a notebook (no list of cells"),
    (b'{"cells": [], "x": ' + b"9" * 5000 + b"}", "its JSON does not parse"),  # int() digit limit
])
def test_hostile_notebooks_are_a_clear_problem(tmp_path, content, expected):
    path = tmp_path / "broadcast_bias.ipynb"
    path.write_bytes(content)
    with pytest.raises(notebooks.NotebookProblem, match=re.escape(expected)):
        notebooks.read_cells(path)


def test_a_notebook_with_too_much_code_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(nbconvert, "MAX_CODE_BYTES", 1 << 20)
    nb = new_notebook()
    nb.cells = [new_code_cell("x = 1\n" * 200_000)]
    nbformat.write(nb, tmp_path / "n.ipynb")
    with pytest.raises(notebooks.NotebookProblem, match=r"n\.ipynb holds 1 MiB of code, over the 1 MiB limit"):
        notebooks.read_cells(tmp_path / "n.ipynb")


def test_an_oversized_notebook_is_refused_before_it_is_parsed(tmp_path, monkeypatch):
    monkeypatch.setattr(nbconvert, "MAX_NOTEBOOK_BYTES", 1 << 20)
    path = tmp_path / "broadcast_bias.ipynb"
    path.write_bytes(b"[" * (2 << 20))
    with pytest.raises(notebooks.NotebookProblem, match=r"is 2 MiB, over the 1 MiB limit for notebooks: clear its "
                                                         r"outputs"):
        notebooks.read_cells(path)


# --- locating -----------------------------------------------------------------------------------------

def tagged_notebook(path: Path, *, marker: str = "tag") -> Path:
    """One notebook answering 05 and 10: a shared imports cell, cells marked by tag or first line,
    and an unmarked scratch cell that must not be graded."""
    def marked(source: str, ref: str):
        if marker == "tag":
            return new_code_cell(source, metadata={"tags": [f"grader:{ref}"]})
        return new_code_cell(f"# grader: {ref}\n{source}")

    nb = new_notebook()
    nb.cells = [new_markdown_cell("# All my answers"),
                marked("import torch\nfrom torch import Tensor", "shared"),
                marked(body(SOLUTION_05), "05"),
                new_code_cell("raise SystemExit('scratch cell: never graded')"),
                marked(SOLUTION_10.split('"""', 2)[2], "autograd_basics"),
                marked("raise SystemExit('skipped')", "skip")]
    nbformat.write(nb, path)
    return path


@pytest.mark.parametrize("marker", ["tag", "first-line"])
def test_a_notebook_with_marked_cells_answers_several_exercises(tmp_path, marker):
    tagged_notebook(tmp_path / "answers.ipynb", marker=marker)
    found = locate(tmp_path, exercises("05", "10", "18"), explicit=True)
    assert found["05_broadcast_bias"].notebook.shown == "answers.ipynb"
    assert [c.number for c in found["05_broadcast_bias"].notebook.cells] == [2, 3]
    assert [c.number for c in found["10_autograd_basics"].notebook.cells] == [2, 5]
    assert found["18_custom_mlp_module"].path is None
    assert "or custom_mlp_module.ipynb, nor notebook cells marked `grader:18`" in \
        found["18_custom_mlp_module"].problem


def test_the_newer_of_a_py_and_its_notebook_is_graded(tmp_path):
    py = tmp_path / "broadcast_bias.py"
    py.write_text(SOLUTION_05)
    nb = solution_notebook(tmp_path / "broadcast_bias.ipynb")
    os.utime(py, (1_000_000, 1_000_000))
    os.utime(nb, (2_000_000, 2_000_000))
    assert locate(tmp_path, exercises("05"), explicit=True)["05_broadcast_bias"].notebook is not None
    os.utime(py, (3_000_000, 3_000_000))
    found = locate(tmp_path, exercises("05"), explicit=True)["05_broadcast_bias"]
    assert found.notebook is None and found.path == py


def test_two_notebooks_for_one_exercise_are_ambiguous(tmp_path):
    tagged_notebook(tmp_path / "a.ipynb")
    tagged_notebook(tmp_path / "b.ipynb")
    found = locate(tmp_path, exercises("05"), explicit=True)["05_broadcast_bias"]
    assert found.path is None and found.problem == "several notebooks hold 05_broadcast_bias (a.ipynb, b.ipynb): keep one"


# --- grading ------------------------------------------------------------------------------------------

def full_marks(sub) -> dict[str, bool]:
    """Exercise id -> whether it scored its (non-zero) maximum: the references score 100 %
    (`grader validate`), so a notebook holding them must too."""
    return {e.id: e.max_score > 0 and e.score == e.max_score for e in sub.exercises}


def failing_notebooks(folder: Path) -> tuple[Path, Path]:
    """erin: an answer that uses torch.cdist and patches it; frank: a notebook that raises on import."""
    nb = new_notebook()
    nb.cells = [new_markdown_cell("notes"),
                new_code_cell("import torch\nimport torch as T"),
                new_code_cell("def add_feature_bias(x, bias):\n    return x + bias\n\n"
                              "def add_sample_bias(x, bias):\n    return x + bias[:, None]\n\n"
                              "def pairwise_sq_dists(a, b):\n    return T.cdist(a, b) ** 2"),
                new_code_cell("T.cdist = T.cdist")]
    (folder / "erin").mkdir()
    nbformat.write(nb, folder / "erin" / "broadcast_bias.ipynb")
    nb.cells[1].source = "import torch\nraise RuntimeError('at import')"
    (folder / "frank").mkdir()
    nbformat.write(nb, folder / "frank" / "broadcast_bias.ipynb")
    return folder / "erin", folder / "frank"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One judge run (local runtime) over every kind of notebook submission, exercises 05 and 10:
    alice (a folder: a notebook named after the stub, and a .py), bob (a zip holding one notebook
    with cells marked by tags), carol (a single notebook with first-line markers), dan (a folder
    whose notebook is a nesting bomb, and a .py), erin and frank (failures)."""
    base = tmp_path_factory.mktemp("graded")
    alice = base / "alice"
    alice.mkdir()
    solution_notebook(alice / "broadcast_bias.ipynb")
    (alice / "autograd_basics.py").write_text(SOLUTION_10)
    tagged_notebook(base / "answers.ipynb")
    with zipfile.ZipFile(base / "bob.zip", "w") as zf:
        zf.write(base / "answers.ipynb", "work/answers.ipynb")
    carol = tagged_notebook(base / "carol.ipynb", marker="first-line")
    dan = base / "dan"
    dan.mkdir()
    (dan / "broadcast_bias.ipynb").write_bytes(b"[" * 100_000)
    (dan / "autograd_basics.py").write_text(SOLUTION_10)
    erin, frank = failing_notebooks(base)
    run = grade([alice, base / "bob.zip", carol, dan, erin, frank], exercises=["05", "10"], runtime="local")
    return {sub.name: sub for sub in run.submissions}


def test_graded_notebooks_score_like_the_reference_in_folders_archives_and_alone(graded):
    for name in ("alice", "bob", "carol"):
        assert graded[name].error is None
        assert full_marks(graded[name]) == {"05_broadcast_bias": True, "10_autograd_basics": True}, name
    files = {name: {e.id: e.file for e in graded[name].exercises} for name in ("alice", "bob", "carol")}
    assert files == {"alice": {"05_broadcast_bias": "broadcast_bias.ipynb", "10_autograd_basics": "autograd_basics.py"},
                     "bob": {"05_broadcast_bias": "work/answers.ipynb", "10_autograd_basics": "work/answers.ipynb"},
                     "carol": {"05_broadcast_bias": "carol.ipynb", "10_autograd_basics": "carol.ipynb"}}
    flags = [(f.cell, f.line, f.message) for f in graded["alice"].exercises[0].flags]
    assert (2, 2, "IPython shell escape dropped, not run: !pip install torch") in flags
    assert all(f.cell for f in graded["alice"].exercises[0].flags)


def test_failures_point_at_notebook_cells(graded):
    good, broken = graded["erin"].exercises[0], graded["frank"].exercises[0]
    api = next(c for c in good.checks if c.name == "test_no_cdist_no_loops")
    assert api.outcome == "failed" and api.message == "torch.cdist is not allowed (cell 3, line 8): use broadcasting"
    assert [(f.cell, f.line, f.message) for f in good.flags] == [(4, 1, "assigns to torch.cdist")]
    message = broken.checks[0].message
    assert message.startswith("importing broadcast_bias.ipynb raised RuntimeError: at import\n"
                              'File "broadcast_bias.ipynb", cell 2, line 2, in <module>'), message
    assert "grader-notebooks" not in message and "/tmp" not in message


def test_a_broken_notebook_is_its_exercise_problem_and_the_others_are_graded(graded):
    by_id = {e.id: e for e in graded["dan"].exercises}
    assert by_id["05_broadcast_bias"].problem == "broadcast_bias.ipynb is not a notebook: its JSON is nested too deeply"
    assert by_id["05_broadcast_bias"].score == 0
    assert full_marks(graded["dan"])["10_autograd_basics"]


@pytest.fixture(scope="module")
def image() -> str:
    """The grading image, (re)built from this checkout as tests/runtimes/test_docker.py does."""
    try:
        from grader.image import build_image, docker_client

        docker_client()
    except Exception as exc:  # noqa: BLE001
        if os.environ.get("CI"):
            pytest.fail(f"CI must provide a Docker daemon: {exc}")
        pytest.skip(f"no Docker daemon: {exc}")
    tag = os.environ.get("GRADER_TEST_IMAGE", "torch-grader:latest")
    build_image(root=ROOT, base_image=os.environ.get("GRADER_TEST_BASE_IMAGE", "torch-grader-base:offline"),
                tag=tag, log=lambda msg: None)
    return tag


@pytest.mark.docker
def test_notebook_in_docker(tmp_path, image):
    """The docker runtime mounts the generated modules next to the submission (a real daemon)."""
    folder = tmp_path / "dora"
    folder.mkdir()
    solution_notebook(folder / "broadcast_bias.ipynb")
    single = tagged_notebook(tmp_path / "eve.ipynb")
    run = grade([folder, single], exercises=["05", "10"], runtime="docker",
                runtime_options={"image": image, "gpus": "none"})
    assert run.environment.runtime == "docker"
    dora, eve = run.submissions
    assert dora.error is None and eve.error is None
    assert full_marks(eve) == {"05_broadcast_bias": True, "10_autograd_basics": True}
    assert full_marks(dora)["05_broadcast_bias"]  # dora has no file for 10: that one is a problem
    assert any(f.cell == 2 and "shell escape" in f.message for f in dora.exercises[0].flags)


def test_cli_says_notebooks_are_submissions(tmp_path):
    from click.testing import CliRunner

    from grader.cli import cli

    (tmp_path / "x.txt").write_text("hi")
    result = CliRunner().invoke(cli, ["grade", str(tmp_path / "x.txt"), "--runtime", "local"])
    assert result.exit_code == 2 and "a notebook (.ipynb)" in result.output
    shutil.rmtree(tmp_path)
