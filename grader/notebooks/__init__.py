"""Notebook submissions: a Jupyter notebook (.ipynb) is accepted wherever a .py file is.

Which cells are an exercise's code:

- a notebook named after the stub (`broadcast_bias.ipynb`) is that exercise's file: every code cell,
  in order, except cells marked `skip`;
- a notebook with cells marked for exercises (any name, e.g. `solutions.ipynb`) gives each marked
  exercise its own cells, plus the cells marked `shared` (imports, helpers), in notebook order;
  unmarked cells are left out.

A cell is marked by a cell tag `grader:<exercise>` (Jupyter: View > Cell toolbar > Tags) or by a first
line `# grader: <exercise>`; `<exercise>` is the number (`05`), the name (`broadcast_bias`) or the
folder name (`05_broadcast_bias`), or `shared` or `skip`.

Conversion reads the notebook's JSON with nbformat on the grader's side and never runs a cell.
IPython syntax (`%magic`, `%%cell magic`, `!shell`, `x = !cmd`, `obj?`) is dropped with a static flag,
and a cell that is not valid Python is left out with a flag (Jupyter compiles cells one by one too).
The cells are joined into one generated module that the judge grades like any .py file; a `LineMap`
takes every line of it back to its notebook cell and line, and `rewrite` applies it to messages.
Untrusted bytes: the file size is capped, nesting bombs and invalid notebooks become a per-exercise
problem, never a crash.
"""

from grader.notebooks.cells import (
           MAX_NOTEBOOK_BYTES,
           LineMap,
           NotebookProblem,
           NotebookSource,
           convert,
           read_cells,
           rewrite,
)
from grader.notebooks.locate import locate, map_result, prepare

__all__ = ["MAX_NOTEBOOK_BYTES", "LineMap", "NotebookProblem", "NotebookSource", "convert", "locate", "map_result",
           "prepare", "read_cells", "rewrite"]
