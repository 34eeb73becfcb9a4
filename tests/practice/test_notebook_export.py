"""`grader export --notebooks`: each stub also as a notebook (README first, the stub as code cells)
paired by jupytext with its .py; `grader check` grades whichever form was saved last; the
hidden-content scan reads notebooks. (The unedited stubs failing `grader check`: tests/practice/test_export.py.)"""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import jupytext
import nbformat
import pytest

from grader import export
from grader.grading import grade
from grader.notebooks import stubs

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def small_root(tmp_path) -> Path:
    root = tmp_path / "root"
    for rel in ("tensors/05_broadcast_bias", "autograd/10_autograd_basics"):
        shutil.copytree(ROOT / "exercises" / rel, root / "exercises" / rel)
        shutil.copytree(ROOT / "solutions" / rel, root / "solutions" / rel)
    shutil.copyfile(ROOT / "constraints.txt", root / "constraints.txt")
    return root


def test_notebook_stubs_are_paired_with_the_py_stubs(small_root, tmp_path):
    bundle = export.export_bundle(tmp_path / "b", root=small_root, notebooks=True)
    plain = export.export_bundle(tmp_path / "plain", root=small_root)
    for ex in bundle.exercises:
        folder = bundle.path / "exercises" / ex.track / ex.id
        without = {p.name for p in (plain.path / "exercises" / ex.track / ex.id).iterdir()}
        assert {p.name for p in folder.iterdir()} == without | {f"{ex.name}.ipynb"}
        assert {"README.md", f"{ex.name}.py", "test_public.py"} <= without
        nb = nbformat.read(folder / f"{ex.name}.ipynb", as_version=4)
        nbformat.validate(nb)
        assert nb.cells[0].cell_type == "markdown"
        assert nb.cells[0].source == (folder / "README.md").read_text().rstrip()
        assert "notes for graders" not in nb.cells[0].source.lower()
        code = [c.source for c in nb.cells[1:]]
        assert all(c.cell_type == "code" for c in nb.cells[1:]) and len(code) >= 2
        stub = ex.stub.read_text()
        assert "\n\n".join(code).split() == stub.split()  # the stub, whole, split into cells
        assert nb.metadata["jupytext"]["formats"] == "ipynb,py:percent"
        paired = jupytext.read(folder / f"{ex.name}.py")  # the .py is the notebook, in percent format
        assert [(c.cell_type, c.source) for c in paired.cells] == [(c.cell_type, c.source) for c in nb.cells]
        compile((folder / f"{ex.name}.py").read_text(), f"{ex.name}.py", "exec")


def test_stub_cells_split_at_definitions():
    stub = '"""doc"""\nimport torch\n\n\n# helper comment\n@decorator\ndef f():\n    pass\n\n\nclass C:\n    x = 1\n'
    assert stubs.stub_cells(stub) == ['"""doc"""\nimport torch', "# helper comment\n@decorator\ndef f():\n    pass",
                                      "class C:\n    x = 1"]


def test_check_grades_the_form_saved_last(small_root, tmp_path):
    bundle = export.export_bundle(tmp_path / "b", exercises=["05"], root=small_root, notebooks=True)
    folder = bundle.path / "exercises" / "tensors" / "05_broadcast_bias"
    # the candidate answers in the notebook (as Jupyter or Colab would save it, without jupytext)
    nb = nbformat.read(folder / "broadcast_bias.ipynb", as_version=4)
    solution = (small_root / "solutions/tensors/05_broadcast_bias/broadcast_bias.py").read_text()
    for cell in nb.cells[1:]:
        name = re.match(r"def (\w+)", cell.source)
        if name:
            start = solution.index(f"def {name.group(1)}")
            end = solution.find("\ndef ", start + 1)
            cell.source = solution[start:end if end > 0 else None]
    nbformat.write(nb, folder / "broadcast_bias.ipynb")
    os.utime(folder / "broadcast_bias.py", (1_000_000, 1_000_000))
    # another candidate syncs with jupytext: the .py (percent format) holds the answer and is newer
    synced = tmp_path / "synced"
    shutil.copytree(bundle.path / "exercises", synced / "exercises")
    jupytext.write(nb, synced / "exercises/tensors/05_broadcast_bias/broadcast_bias.py", fmt="py:percent")
    os.utime(synced / "exercises/tensors/05_broadcast_bias/broadcast_bias.ipynb", (1_000_000, 1_000_000))
    # what `grader check 05` does in each bundle: the public checks on the exercises folder
    run = grade([bundle.path / "exercises", synced / "exercises"], exercises=["05"], visibility="public",
                runtime="local", root=bundle.path)
    shown = [(e.file, sum(c.outcome == "passed" for c in e.checks), len(e.checks))
             for s in run.submissions for e in s.exercises]
    assert shown == [("tensors/05_broadcast_bias/broadcast_bias.ipynb", 3, 3),
                     ("tensors/05_broadcast_bias/broadcast_bias.py", 3, 3)]


def test_the_scan_reads_notebooks(small_root, tmp_path, monkeypatch):
    solution = (small_root / "solutions/tensors/05_broadcast_bias/broadcast_bias.py").read_text()
    real = stubs.stub_cells
    # a writer bug that puts the reference solution into the notebook stubs
    monkeypatch.setattr(stubs, "stub_cells", lambda text: real(solution) if "add_feature_bias" in text else real(text))
    monkeypatch.setattr(jupytext, "writes", lambda nb, fmt: "# paired file left out of this test\n")
    with pytest.raises(export.ExportError) as caught:
        export.export_bundle(tmp_path / "b", root=small_root, notebooks=True)
    assert re.search(r"broadcast_bias\.ipynb:\d+ holds solutions/tensors/05_broadcast_bias/broadcast_bias\.py:\d+",
                     str(caught.value))
    assert not (tmp_path / "b").exists()
