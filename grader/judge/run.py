"""Run the judge: one pytest session over the selected exercises' checks for a list of candidates.

    python -m grader.judge SPEC.json

SPEC (written by a runtime, see `grader.runtimes.base.JudgeJob`) names the exercises, the candidate
files, the limits and where to append results (JSON lines). The judge loads no conftest.py, no
pytest.ini and no plugin but its own: nothing a submission ships can change how it is graded.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

_INI = """[pytest]
python_files = test_public.py test_hidden.py
python_functions = test_*
filterwarnings =
    ignore::DeprecationWarning
"""


_WARM_UPS = {
    # feature: words that, in an exercise's stub or checks, say its workers will need it
    "autograd": ("autograd", "backward", "requires_grad", "gradcheck"),  # grad_outputs imports sympy
    # an optimizer's first step imports torch._dynamo (1.3 s), and so does the first op of any
    # function torch wraps in `_disable_dynamo`: meta-device kernels (probes.meta_forward), `out=`
    # wrappers, checkpointing, compile (18 % of validating 26 was workers importing it one by one)
    "optim": ("optim", "meta", "compile", "dynamo", "checkpoint", "clip_grad", "lr_scheduler"),
    "tensorboard": ("tensorboard", "SummaryWriter"),
    # torch.export.export's first call imports ~400 modules (0.45 s), aot_autograd among them; the
    # dynamo ONNX exporter calls it, and torch.compile's aot backends import aot_autograd too
    "export": ("torch.export", "onnx", "aot_eager", "aot_autograd"),
    "onnx": ("onnx",),  # torch.onnx.export's first call imports onnx, onnxscript and the exporter (1 s)
}


def warm_ups(spec: dict) -> list[str]:
    """What the fork server should pre-import once (instead of in every worker), judged from the
    exercises' own files; nothing the checks do not need sits on the start-up's critical path."""
    text = ""
    for ex in spec["exercises"]:
        for path in Path(ex["dir"]).glob("*.py"):
            try:
                text += path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
    return [feature for feature, words in _WARM_UPS.items() if any(word in text for word in words)]


def run_judge(spec: dict) -> int:
    """Run the checks; returns pytest's exit status. Results go to spec["results_path"]."""
    scratch_root = spec.get("scratch_root") or tempfile.mkdtemp(prefix="grader-scratch-")
    os.makedirs(scratch_root, exist_ok=True)
    # Start the fork server first: its torch import overlaps with ours and with collection.
    from grader.sandbox.zygote_client import (  # torch-free: the fork server starts at once
        Zygote,
        take_preforked,
    )

    # In the container the fork server was started by the entry point as another user; a judge
    # forked from the judge template (local runtime) forked its own before reading this spec.
    attach = os.environ.pop("GRADER_ZYGOTE_FD", None)
    zygote = None if attach else take_preforked(scratch_root)
    if zygote is None:
        zygote = Zygote(scratch_root, attach_fd=int(attach) if attach else None, warm_ups=warm_ups(spec))
        zygote.start()
    try:
        import pytest

        from grader.judge.plugin import JudgePlugin

        plugin = JudgePlugin(spec, zygote)
        with tempfile.TemporaryDirectory(prefix="grader-judge-") as tmp:
            return int(pytest.main(pytest_args(spec, Path(tmp)), plugins=[plugin]))
    finally:
        zygote.close()


def pytest_args(spec: dict, tmp: Path) -> list[str]:
    """The judge's pytest command line for `spec` (its ini file is written to the folder `tmp`):
    no conftest, no ini file or plugin but the judge's own. Shared with the warm judge of
    `grader watch` (grader.practice.server)."""
    ini = Path(tmp) / "judge.ini"
    ini.write_text(_INI)
    files = [str(Path(ex["dir"]) / name) for ex in spec["exercises"] for name in spec["test_files"]
             if (Path(ex["dir"]) / name).is_file()]
    args = [*files, "-c", str(ini), "--rootdir", spec["root"], "--noconftest", "-p", "no:cacheprovider",
            "--import-mode=importlib", "--strict-markers", "-q", "--no-header", "-rN", "--tb=line",
            "-p", "no:randomly", "-p", "no:xdist", "-p", "no:cov",
            # pytest's log capture attaches its handlers to every non-propagating logger around each
            # phase of each check (torch, dynamo and sympy loaded: 54 of them), 0.35-0.5 ms of the
            # judge's CPU a check, for records of the judge's own process that no report shows (the
            # candidate's code runs in its workers); no check uses `caplog`
            "-p", "no:logging"]
    if spec.get("pytest_args"):
        args += list(spec["pytest_args"])
    return args


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m grader.judge SPEC.json", file=sys.stderr)
        raise SystemExit(2)
    spec = json.loads(Path(argv[0]).read_text())
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    os.environ.pop("PYTEST_ADDOPTS", None)
    os.environ.pop("PYTEST_PLUGINS", None)
    code = run_judge(spec)
    # Every result is written and closed (pytest_sessionfinish) and the fork server has exited:
    # skip the interpreter's teardown of torch's modules (0.3 s to a second), which the CLI waits for.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


# --- judges forked from a process that imported everything once ------------------------------------
# The local runtime's judge template (grader.runtimes.template) and the container's entry point
# (grader.judge.container) each import torch, pytest and the judge once and fork judges and fork
# servers from that: where each started as a fresh interpreter, each imported torch again.

def preload(warm: set[str]):
    """Import what every judge and fork server imports, and warm up `warm` (see
    `grader.sandbox.zygote.prepare`), in a process that will fork them; returns torch."""
    import gc

    import pytest  # noqa: F401

    import grader.judge.plugin  # noqa: F401 - and with it torch, numpy, the sandbox's client
    from grader.sandbox.zygote import prepare

    torch = prepare(warm)
    gc.freeze()  # shared with every judge and fork server: their collectors leave it alone
    return torch


def main_forked(become: Callable[[], str]) -> NoReturn:
    """The life of a judge in a child forked from such a process: `become()` makes it what
    `python -m grader.judge SPEC` would be (its user, environment, folders, output) and returns
    SPEC, then `main` runs. Never returns: the child exits with pytest's status, a SystemExit's
    code, or 70 with the traceback in its output (the judge's log, which the grader keeps)."""
    code = 70
    try:
        main([become()])  # exits (os._exit) with pytest's status
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - said in the judge's log
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
