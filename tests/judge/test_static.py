"""Static checks on candidate source (judge side, nothing executed)."""
from __future__ import annotations

import textwrap
from pathlib import Path

from grader.judge.static import StaticView


def view(src: str) -> StaticView:
    return StaticView(Path("cand.py"), textwrap.dedent(src))


def test_uses_resolves_import_aliases():
    v = view("""\
        import torch as T
        from torch import cdist as cd
        import torch.nn.functional as F
        def f(a, b):
            x = T.cdist(a, b)
            y = cd(a, b)
            return F.relu(x) + torch.cdist(a, b)
        """)
    assert v.uses("torch.cdist") == [2, 5, 6, 7]
    assert v.uses("torch.nn.functional.relu") == [7]
    assert v.uses("torch.matmul") == []


def test_loops_follow_module_level_helpers():
    v = view("""\
        def helper(xs):
            return [x * 2 for x in xs]
        def f(x):
            return helper(x)
        def g(x):
            while x:
                x -= 1
        class M:
            def forward(self, x):
                for _ in range(3):
                    pass
        """)
    assert v.loops_in("f") == [(2, "list comprehension")]
    assert v.loops_in("g") == [(6, "while loop")]
    assert v.loops_in("M.forward") == [(10, "for loop")]


def test_require_implemented():
    v = view('''\
        def stub(x):
            """doc"""
            raise NotImplementedError
        def done(x):
            return x
        alias = done
        ''')
    assert not v.is_implemented("stub") and v.is_implemented("done") and v.is_implemented("alias")
    assert not v.is_implemented("missing")


def test_tampering_flags_name_the_line():
    v = view("""\
        import ctypes, gc, sys, inspect
        import torch
        import numpy as np
        torch.allclose = lambda *a, **k: True
        np.testing.assert_allclose = print
        sys.modules["pytest"] = None
        setattr(torch, "equal", None)
        frame = sys._getframe(1)
        objs = gc.get_objects()
        """)
    messages = [(f.line, f.message) for f in v.tampering()]
    assert (1, "uses ctypes") in messages
    assert (1, "uses gc (garbage-collector introspection)") in messages
    assert (1, "uses inspect (frame and source introspection)") in messages
    assert (4, "assigns to torch.allclose") in messages
    assert (5, "assigns to numpy.testing.assert_allclose") in messages
    assert (6, "edits sys.modules") in messages
    assert (7, "setattr on torch") in messages
    assert (8, "reads interpreter frames (sys._getframe)") in messages
    assert (9, "walks every live object (gc.get_objects)") in messages


def test_clean_code_has_no_flags():
    assert view("import torch\ndef f(x):\n    return torch.relu(x)\n").tampering() == []


def test_tampering_flags_cover_any_imported_module_and_code_built_at_run_time():
    v = view("""\
        import time, importlib
        import torch
        time.perf_counter = lambda: 0.0
        setattr(time, "sleep", None)
        vars(time)["monotonic"] = None
        torch.__dict__["equal"] = None
        exec("x = 1")
        m = __import__("tor" + "ch")
        b = __builtins__
        class M(torch.nn.Module):
            def __init__(self):
                self.w = 1
        """)
    messages = [(f.line, f.message) for f in v.tampering()]
    assert (1, "uses importlib (imports by computed name)") in messages
    assert (3, "assigns to time.perf_counter") in messages
    assert (4, "setattr on time") in messages
    assert (5, "assigns through vars()") in messages
    assert (6, "assigns to torch.__dict__[...]") in messages
    assert (7, "runs code built at run time (exec)") in messages
    assert (8, "imports by computed name (__import__)") in messages
    assert (9, "reaches into __builtins__") in messages
    assert not [m for line, m in messages if line == 12]  # self.w = 1 is not tampering


def test_code_objects_reached_or_built_are_flagged():
    # a function given torch's file name in its code passes for torch's own code with the call watch
    v = view("""        import types
        import torch
        def f():
            return 1
        f.__code__ = f.__code__.replace(co_filename=torch.__file__)
        g = getattr(f, "__code__")
        h = types.FunctionType(g, {})
        c = types.CodeType
        """)
    messages = [(f.line, f.message) for f in v.tampering()]
    assert (5, "reaches a function's code object (__code__)") in messages
    assert (6, "reaches a function's code object (__code__)") in messages
    assert (7, "builds a FunctionType at run time") in messages
    assert view("def f():\n    return 1\nf.__doc__ = 'x'\n").tampering() == []
