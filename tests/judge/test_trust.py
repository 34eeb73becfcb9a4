"""The judge trusts nothing the candidate controls: its source as Python reads it, bounded
parsing and decoding, inert report text, candidate-facing reports, canaries, stale images.
(End-to-end attacks on both runtimes are in tests/attacks.)"""
from __future__ import annotations

import io
import json
import struct
import textwrap
import time
from pathlib import Path

import pytest
import torch

from grader.catalog import Catalog
from grader.grading.assemble import build_exercise
from grader.judge import canary, source
from grader.judge.plugin import MAX_RECORD, JudgePlugin
from grader.judge.static import StaticView
from grader.reports import safe
from grader.reports.audience import for_audience
from grader.results import CheckResult, Environment, ExerciseResult, Flag, GradeRun, SubmissionResult
from grader.runtimes.base import Candidate, JudgeJob, JudgeOutput, read_records
from grader.sandbox import codec
from grader.submissions import CandidateFile

ROOT = Path(__file__).resolve().parents[2]


# --- the source as Python runs it --------------------------------------------------------------

@pytest.mark.parametrize("header", [b"# coding: unicode_escape\n", b"# -*- coding: latin-1 -*-\n",
                                    b"#!/usr/bin/env python\n# vim: set fileencoding=utf-16 :\n"])
def test_a_coding_other_than_utf8_is_refused(header):
    hidden = b"# \\u000aimport torch\\u000adef f(a, b): return torch.cdist(a, b)\n"
    with pytest.raises(source.SourceProblem, match=r"declares the source encoding .*: the grader accepts UTF-8 only"):
        source.decode(Path("cand.py"), header + hidden)


@pytest.mark.parametrize("data", [b"# coding: utf-8\nx = 1\n", b"\xef\xbb\xbfx = 1\n", b"# coding=UTF8\nx = 1\n",
                                  "x = 'é'\n".encode()])
def test_utf8_with_or_without_a_declaration_is_read(data):
    assert "x = " in source.decode(Path("cand.py"), data)


def test_invalid_utf8_on_the_first_line_says_so():
    with pytest.raises(source.SourceProblem, match=r"is not valid UTF-8 \(invalid continuation byte at byte 2\)"):
        source.decode(Path("cand.py"), b"# \xe9t\xe9\nx = 1\n")


def test_an_unknown_coding_is_refused_with_a_message():
    with pytest.raises(source.SourceProblem, match="save it as UTF-8"):
        source.decode(Path("cand.py"), b"# coding: no-such-codec\nx = 1\n")


def test_deep_nesting_fails_the_file_not_the_judge():
    deep = "x = " + "+".join(["1"] * 200_000) + "\n"
    with pytest.raises(source.SourceProblem, match="nested too deeply"):
        StaticView(Path("cand.py"), deep).tree  # noqa: B018
    with pytest.raises((source.SourceProblem, SyntaxError)):
        source.parse(Path("cand.py"), "x = " + "(" * 5000 + ")" * 5000)


def test_static_flags_of_a_file_are_bounded(tmp_path):
    """800 flags of 100 kB used to become one 80 MB results line."""
    cand = tmp_path / "broadcast_bias.py"
    cand.write_text("import torch\n" + "".join(f"torch.{'a' * 2000}{i} = 1\n" for i in range(1500)))
    out = tmp_path / "results.jsonl"
    plugin = JudgePlugin.__new__(JudgePlugin)
    plugin.out = open(out, "a")  # noqa: SIM115
    plugin.emit_static("alice", "05", {"path": str(cand)})
    plugin.out.close()
    record = json.loads(out.read_text())
    assert len(out.read_bytes()) < MAX_RECORD
    assert len(record["flags"]) == 51 and record["flags"][-1]["message"].startswith("and ")
    assert all(len(f["message"]) <= 300 for f in record["flags"])


def test_an_oversized_record_fails_only_its_own_check(tmp_path):
    out = tmp_path / "results.jsonl"
    plugin = JudgePlugin.__new__(JudgePlugin)
    plugin.out = open(out, "a")  # noqa: SIM115
    plugin.emit({"type": "check", "name": "a", "outcome": "passed", "message": "x" * (2 * MAX_RECORD),
                 "extra": ["y" * 1000] * 1000})
    plugin.emit({"type": "check", "name": "b", "outcome": "passed", "message": ""})
    plugin.out.close()
    records = read_records(out)
    assert [(r["name"], r["outcome"]) for r in records] == [("a", "failed"), ("b", "passed")]


def test_read_records_skips_a_huge_line_and_keeps_the_rest(tmp_path):
    out = tmp_path / "results.jsonl"
    out.write_text(json.dumps({"n": 1}) + "\n" + json.dumps({"junk": "z" * (3 << 20)}) + "\n" + json.dumps({"n": 2}) + "\n")
    assert read_records(out) == [{"n": 1}, {"n": 2}]


# --- the decoder's bounds ------------------------------------------------------------------------

def _raw(header: bytes) -> bytes:
    return struct.pack("<I", len(header)) + header


def test_a_set_of_equal_hash_numbers_stops_at_the_deadline():
    modulus = (1 << 61) - 1  # ints hash modulo this: every multiple hashes to 0
    header = json.dumps({"v": {"set": [{"i": str(k * modulus)} for k in range(200_000)]}, "n": 0}).encode()
    start = time.monotonic()
    with pytest.raises(codec.DecodeTimeout):
        codec.decode(_raw(header), deadline=time.monotonic() + 1.0)
    assert time.monotonic() - start < 5


def test_a_header_of_empty_objects_is_refused_before_parsing():
    header = b'{"v": {"list": [' + b"{}," * (codec.MAX_NODES + 10) + b'null]}, "n": 0}'
    with pytest.raises(codec.CodecError, match="more than"):
        codec.decode(_raw(header))
    big = struct.pack("<I", codec.MAX_HEADER_BYTES + 1)
    with pytest.raises(codec.CodecError, match="header of"):
        codec.decode(big + b"x" * 16)


@pytest.mark.parametrize("node", [{"ndarray": 0, "dtype": "(", "shape": []}, {"ndarray": 0, "dtype": "i4,(", "shape": []},
                                  {"c": ["0x1p0"]}, {"tensor": 0, "dtype": "float32", "shape": [1.5],
                                                     "device": "cpu"},
                                  {"tensor": 0, "dtype": "float32", "shape": [1], "device": "cuda:9999"},
                                  {"device": "no such device"}, {"sparse_coo": [1], "shape": []}, {"ntuple": 3, "fields": 4, "items": []}])
def test_whatever_the_decoder_raises_is_malformed_data(node):
    header = json.dumps({"v": node, "n": 1}).encode()
    with pytest.raises(codec.CodecError):
        codec.decode(_raw(header) + struct.pack("<Q", 4) + b"\0" * 4)


# --- report text is inert ------------------------------------------------------------------------

def test_markdown_shows_candidate_text_as_text():
    text = safe.markdown("<h2>torch-grader: 10 / 10 (100 %)</h2> [x](https://evil) ![i](https://e/i.png) @org\n# h")
    for raw in ("<h2>", "[x]", "![i]", "@org", "https://", "\n"):
        assert raw not in text


def test_terminal_text_has_no_markup_control_or_workflow_command():
    from rich.console import Console

    console = Console(file=io.StringIO(), force_terminal=True, width=60, color_system=None)
    evil = "[bold red]x[/] [/] \x1b[2J\x1b[1A\r::notice title=graded::10 / 10 (100 %)" * 3
    console.print(f"Note: {safe.terminal(evil)}")
    out = console.file.getvalue()
    assert "\x1b[2J" not in out and "\x1b[1A" not in out and "\r" not in out
    assert not any(line.lstrip().startswith("::") for line in out.splitlines())
    assert "[bold red]" in out  # shown, not interpreted


# --- candidate-facing reports --------------------------------------------------------------------

def _check(name, visibility, outcome, kind="value", message="", score=1.0):
    return CheckResult(name=name, kind=kind, weight=1.0, visibility=visibility, outcome=outcome, message=message,
                       duration_s=0.1, file=f"exercises/x/test_{visibility}.py", line=12,
                       score=score if outcome == "passed" else 0.0, max_score=score)


def _run(checks, notes=()):
    ex = ExerciseResult(id="05_x", title="t", track="tensors", difficulty="easy", points=float(len(checks)),
                        file="x.py", checks=tuple(checks), flags=(Flag(0, "tampering detected (during test_secret_b)"),))
    return GradeRun(submissions=(SubmissionResult(name="alice", path="/a", exercises=(ex,)),),
                    environment=Environment(runtime="local", notes=tuple(notes)), started_at="", duration_s=1.0,
                    tool_version="0")


def test_candidate_form_aggregates_hidden_checks_per_kind():
    run = _run([_check("test_public_a", "public", "failed", message="expected 3"),
                _check("test_secret_b", "hidden", "failed", message="PROBE-CODE leak"),
                _check("test_secret_c[cpu]", "hidden", "passed"),
                _check("test_secret_d", "hidden", "passed", kind="grad")],
               notes=["the worker was killed (during 05_x test_secret_c[cpu] of alice)"])
    shown = for_audience(run, "candidate")
    text = json.dumps(shown.to_dict())
    for leak in ("test_secret", "PROBE-CODE", "test_hidden.py"):
        assert leak not in text
    ex = shown.submissions[0].exercises[0]
    assert [(c.name, c.outcome, c.message) for c in ex.checks] == [
        ("test_public_a", "failed", "expected 3"),
        ("hidden value checks", "failed", "1 of 2 hidden value checks passed"),
        ("hidden grad checks", "passed", "1 of 1 hidden grad checks passed")]
    assert shown.score == run.score and shown.max_score == run.max_score
    assert for_audience(run, "interviewer") is run


# --- tampering and the judge's log -----------------------------------------------------------------

def _exercise():
    return next(ex for ex in Catalog.load(ROOT).exercises if ex.id.startswith("05"))


def _records(ex, extra=()):
    base = {"candidate": "alice", "exercise": ex.id, "kind": "value", "weight": 1.0, "visibility": "hidden",
            "file": "f", "line": 1}
    return [{**base, "type": "collected", "nodeid": "a", "name": "a"},
            {**base, "type": "check", "nodeid": "a", "name": "a", "outcome": "passed", "message": ""},
            *extra]


def test_tampering_zeroes_the_exercise_and_is_flagged():
    ex = _exercise()
    cand = CandidateFile(exercise=ex.id, path=Path("/s/broadcast_bias.py"))
    honest = build_exercise(ex, "alice", Path("/s"), cand, JudgeOutput(records=_records(ex)))
    assert honest.score == ex.points
    tampered = build_exercise(ex, "alice", Path("/s"), cand, JudgeOutput(records=_records(ex, [
        {"type": "tampering", "candidate": "alice", "exercise": ex.id, "check": "a", "message": "tampering detected: x"}])))
    assert tampered.score == 0 and tampered.flags[0].message.startswith("tampering detected: x")
    assert all(c.message.startswith("voided: tampering detected") for c in tampered.checks)


def test_the_judges_log_stays_out_of_reports():
    ex = _exercise()
    log = "    assert sub.secret_hidden_line(3) == 42\nINTERNALERROR> boom"
    out = JudgeOutput(records=[], error=None, log=log)
    result = build_exercise(ex, "alice", Path("/s"), CandidateFile(exercise=ex.id, path=Path("/s/broadcast_bias.py")), out)
    message = result.checks[0].message
    assert "secret_hidden_line" not in message and "INTERNALERROR" not in message
    kept = Path(message.split("kept for the interviewer in ")[1].rstrip(")"))
    assert kept.read_text() == log and kept.stat().st_mode & 0o077 == 0
    kept.unlink()


# --- canaries ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("template", [True, 3, 2.5, "text", None, torch.ones(3), [True, (1, 2.0)],
                                      {"elapsed": 0.1, "ok": False, "shape": (4, 2)}])
def test_a_canary_answers_what_the_judge_expects(template):
    plan, expected = canary.plan_for(template)
    assert canary.same(canary.build(plan), expected)


@pytest.mark.parametrize("patch", ["equal", "allclose", "shares_memory", "state_dict"])
@pytest.mark.parametrize("template", [True, 7, {"elapsed": 0.1}])
def test_every_canary_notices_a_patched_torch(monkeypatch, patch, template):
    import numpy as np

    target, name = {"equal": (torch, "equal"), "allclose": (torch, "allclose"),
                    "shares_memory": (np, "shares_memory"), "state_dict": (torch.nn.Module, "state_dict")}[patch]
    monkeypatch.setattr(target, name, lambda *a, **k: True if patch != "state_dict" else {})
    plan, expected = canary.plan_for(template)
    assert not canary.same(canary.build(canary.gauntlet(plan)), expected)


def test_canaries_catch_a_comparison_honest_only_on_small_float32_tensors(monkeypatch):
    """What canaries compared used to be one small float32 tensor: a torch.equal honest there and
    lying elsewhere passed them. Canaries now draw every dtype and size."""
    real = torch.equal
    monkeypatch.setattr(torch, "equal", lambda a, b: real(a, b) if a.dtype == torch.float32 and a.numel() <= 64 else True)
    caught = 0
    for _ in range(50):
        plan, expected = canary.plan_for(True)
        caught += not canary.same(canary.build(canary.gauntlet(plan)), expected)
    assert caught >= 40, f"only {caught} of 50 canaries noticed"  # about 49 in 50 do


def test_a_canary_and_its_twin_give_each_boolean_both_values():
    plan, expected = canary.plan_for({"a": True, "b": [False, True]})
    twin, twin_expected = canary.flipped(plan)
    assert expected["a"] is not twin_expected["a"] and expected["b"][1] is not twin_expected["b"][1]
    assert canary.same(canary.build(twin), twin_expected)


# --- docker: the image's own exercises, and a stale image --------------------------------------------

def test_docker_grades_a_bundle_with_the_images_exercises(tmp_path):
    from grader.runtimes.docker import IMAGE_ROOT, DockerRuntime

    ex = _exercise()
    bundle = tmp_path / "bundle"
    cand_file = bundle / "exercises" / "tensors" / ex.id / "broadcast_bias.py"
    job = JudgeJob(root=bundle, exercises=[ex], candidates=[])
    cand = Candidate("alice", {ex.id: {"path": str(cand_file), "problem": None}}, str(bundle))
    bundle.mkdir()
    runtime = DockerRuntime.__new__(DockerRuntime)
    _, path_map, grader_map = runtime._path_maps(job, cand)
    spec = JudgeJob(root=bundle, exercises=[], candidates=[cand]).spec("/out/r", "/s", path_map=path_map,
                                                                      grader_map=grader_map)
    assert spec["root"] == IMAGE_ROOT
    assert grader_map(str(bundle / "exercises" / "tensors" / ex.id)) == f"{IMAGE_ROOT}/exercises/tensors/{ex.id}"
    assert spec["candidates"][0]["files"][ex.id]["path"] == f"/submission/exercises/tensors/{ex.id}/broadcast_bias.py"


def test_a_stale_image_is_told_apart(tmp_path):
    from grader.image import SOURCES_LABEL, image_freshness, sources_hash

    fresh = {SOURCES_LABEL: sources_hash(ROOT)}
    assert image_freshness(fresh, ROOT) is None
    assert "other exercises" in image_freshness({SOURCES_LABEL: "0" * 32}, ROOT)
    assert "no sources label" in image_freshness({}, ROOT)
    bundle = tmp_path / "bundle"
    (bundle / "exercises").mkdir(parents=True)
    assert image_freshness({}, bundle) is None  # a candidate bundle: the image is the authority


def test_static_flags_follow_names_bound_to_modules():
    v = StaticView(Path("c.py"), textwrap.dedent("""\
        import torch, sys, importlib
        import numpy as np
        T = torch
        T.equal = lambda *a: True
        Tensor = torch.Tensor
        Tensor.__eq__ = None
        a, b = torch.nn, np
        b.allclose = 1
        mod = sys.modules["torch"]
        mod.allclose = 3
        def patch(m, name):
            m.x = None
        patch(T, "equal")
        def f(x, m=torch.testing):
            m.assert_close = 5
        type(torch.zeros(1)).add = 6
        object.__setattr__(torch, "x", 8)
        layer = torch.nn.Linear(2, 2)
        layer.bias = None
        dtype = torch.float32
        """))
    flags = {(f.line, f.message) for f in v.tampering()}
    for expected in [(4, "assigns to torch.equal"), (6, "assigns to torch.Tensor.__eq__"),
                     (8, "assigns to numpy.allclose"), (10, "assigns to mod.allclose"),
                     (13, "passes a module to patch(), which assigns attributes of its parameters"),
                     (15, "assigns to torch.testing.assert_close"), (16, "assigns to type(torch.zeros(1)).add"),
                     (17, "calls __setattr__ directly")]:
        assert expected in flags, (expected, sorted(flags))
    assert not [f for f in flags if f[0] in (19, 20)], "an honest module attribute was flagged"


# --- probes that trust no override ---------------------------------------------------------------------

def test_base_observations_ignore_overrides():
    from torch import nn

    from grader import probes

    class Decoy(nn.Module):  # a wrong MLP showing decoy hidden layers
        def __init__(self):
            super().__init__()
            self.head = nn.Linear(2, 2)

        def state_dict(self, *a, **k):
            return {"layers.0.weight": torch.zeros(1), "head.weight": torch.zeros(1)}

        def named_parameters(self, *a, **k):
            return iter([("layers.0.weight", nn.Parameter(torch.zeros(1)))])

        def named_modules(self, *a, **k):
            return iter([("", self), ("layers.0", nn.Linear(1, 1))])

    m = Decoy()
    assert sorted(probes.state_dict(m)) == ["head.bias", "head.weight"]
    assert sorted(probes.named_parameters(m)) == ["head.bias", "head.weight"]
    assert probes.named_modules(m) == [("", "Decoy"), ("head", "Linear")]


def test_graph_holders_find_graphs_kept_in_module_globals():
    import types

    from grader import probes

    mod = types.ModuleType("cand_graphs")
    exec("CACHE = {}\nclass Meter:\n    __slots__ = ('total',)\n", mod.__dict__)
    w = torch.ones(2, requires_grad=True)
    meter = mod.Meter()
    meter.total = (w * 2).sum().detach()
    mod.CACHE["loss"] = (w * 3).sum()
    assert probes.graph_holders(meter) == []  # what a walk of the object alone sees
    assert probes.graph_holders(meter, mod) == ["root1.CACHE['loss']"]


def test_peak_memory_is_a_delta_around_the_call():
    from grader import probes

    ballast = torch.ones(64 << 20, dtype=torch.uint8)  # touched before: must not hide the call's peak
    del ballast
    grew, _ = probes.peak_rss_delta(lambda: torch.ones(32 << 20, dtype=torch.uint8).sum())
    assert grew > 16 << 20


def test_module_registries_that_lie_are_refused_and_torch_own_pass():
    """The registry guard (grader.sandbox.registries): torch's readers refuse a module whose
    `_modules`/`_parameters`/`_buffers` is not the plain dict torch made (a dict subclass showing
    decoy layers, a class-level property, a spoofed torch class), TorchScript's own registries
    and torch.compile pass, and taking the guard off is seen by the tamper guard."""
    import subprocess
    import sys

    script = """if True:
        import copy, torch
        from torch import nn
        from grader.sandbox import registries
        from grader.sandbox.tamper import TamperGuard, TamperingDetected
        registries.install()
        guard = TamperGuard()

        def refused(model):
            try:
                nn.Module.state_dict(model)
            except TamperingDetected as exc:
                return str(exc)
            return None

        honest = [nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 3), nn.ReLU()), nn.ModuleDict({"a": nn.Linear(2, 2)})]
        model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4)).eval()
        honest += [torch.jit.script(model), torch.jit.trace(model, torch.randn(2, 4)),
                   torch.jit.freeze(torch.jit.script(copy.deepcopy(model))),
                   torch.compile(nn.Linear(2, 2), backend="eager")]
        for m in honest:
            assert refused(m) is None, (type(m), refused(m))
            list(m.named_parameters()); m.to(torch.float64)

        class Lying(dict):
            def items(self):
                return {**dict(dict.items(self)), "decoy": nn.Linear(2, 2)}.items()

        lying = nn.Linear(2, 2)
        lying.__dict__["_modules"] = Lying()
        assert "_modules is a Lying" in refused(lying), refused(lying)

        class Shadow(nn.Module):
            _parameters = property(lambda self: {"w": nn.Parameter(torch.ones(1))}, lambda self, v: None)
        assert "Shadow._parameters is redefined" in refused(Shadow()), refused(Shadow())

        class Answers(nn.Module):
            def __getattribute__(self, name):
                return {} if name == "_buffers" else super().__getattribute__(name)
        assert "Answers.__getattribute__ is redefined" in refused(Answers()), refused(Answers())

        class Late(nn.Module):
            pass
        late_one = Late()
        assert refused(late_one) is None
        Late._modules = property(lambda self: {}, lambda self, v: None)
        assert "Late._modules is redefined" in refused(late_one), refused(late_one)

        class Spoof(nn.Module):
            pass
        Spoof.__module__ = "torch.jit._script"
        spoof = Spoof()
        del spoof.__dict__["_buffers"]
        assert "Spoof._buffers is missing" in refused(spoof), refused(spoof)

        assert guard.changed() == [], guard.changed()
        nn.Module.named_modules = nn.Module.named_modules.__wrapped__  # the guard taken off
        assert guard.changed() == ["torch.nn.Module.named_modules"], guard.changed()
        print("ok")
    """
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 0 and result.stdout.strip().endswith("ok"), result.stderr[-3000:]
