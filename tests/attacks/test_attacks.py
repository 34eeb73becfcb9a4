"""Adversarial submissions, graded through both runtimes, each with its expected outcome.

Every attack is a real submission under `submissions/<attack>/` whose docstring says what it
tries, what its honest part earns (the baseline) and what must happen. The attacks are graded in
batches, many submissions per `grade()` call (one judge for all on the local runtime, one
container each on docker): a misbehaving submission must not disturb the others graded with it.
Every batch writes every report (JSON, JUnit, Gradescope, Markdown, HTML); the checks below read
the reports, not the in-memory result, so "the report says what happened" is what is tested.

For each attack and runtime:
- the attacked exercise earns exactly what the honest part of the file earns (the checks in
  `passes`), never more;
- every other check fails with a message saying what happened (`expect`, a regular expression);
- the reference answer to exercise 10 graded alongside (`reference_10`) gets full marks;
- static tampering flags (`flags`) reach the report for the interviewer, with their line;
- nothing of the hidden checks, the solutions, another candidate's file or the grader's
  environment (GRADER_TEST_SECRET, planted here) appears in any report.

Known gaps are `xfail(strict=True)` tests named test_known_gap_*: they document what the grader
does not stop yet, and fail loudly once it does. Each attack is a test of its own, per runtime:
pytest's summary is the count of attacks tried and contained.

No conftest: the submissions' own conftest.py files are stored as conftest.py.attack (pytest
would load a conftest.py under tests/ while collecting) and renamed in the graded copy.
"""
from __future__ import annotations

import glob
import html
import json
import os
import re
import shutil
import socket
import struct
import tarfile
import threading
import time
import tracemalloc
import uuid
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from grader.grading import grade
from grader.reports import safe, write_report
from grader.reports.audience import for_audience
from grader.sandbox import namespaces
from grader.sandbox.client import GiB, Limits

HERE = Path(__file__).resolve().parent
SUBMISSIONS = HERE / "submissions"
ROOT = HERE.parent.parent
IMAGE = os.environ.get("GRADER_TEST_IMAGE", "torch-grader:latest")
BASE = os.environ.get("GRADER_TEST_BASE_IMAGE", "torch-grader-base:offline")
REFERENCE_05 = ROOT / "solutions" / "tensors" / "05_broadcast_bias" / "broadcast_bias.py"
REFERENCE_10 = ROOT / "solutions" / "autograd" / "10_autograd_basics" / "autograd_basics.py"
SECRET = f"tg-secret-{uuid.uuid4().hex}"
MARKERS = ("/tmp/torch-grader-attack-reduce-payload-ran", "/tmp/torch-grader-attack-conftest-ran",
           "/tmp/torch-grader-attack-zip-slip.py", "/tmp/torch-grader-attack-write-outside")
FORGERIES = ("FORGED-VERDICT", "REDUCE PAYLOAD RAN", "SUBMITTED CONFTEST RAN", "VICTIM-ANSWER-7f3a", "FORGED-NOTE")

FEATURE, SAMPLE, PAIRWISE = "test_feature_bias_example", "test_sample_bias_example", "test_pairwise_example"
OUTSIDE_IMPORT = r"importing '{name}' from \S+ is not allowed: only the Python installation's modules"
DENIED = r"(Permission denied|Operation not permitted|Read-only file system)"
TIME_LIMIT = r"time limit 2 s exceeded while broadcast_bias\.\w+\(\)"
OOM = r"out of memory: the worker's memory limit is 1\.0 GiB|can't allocate memory"
PROBE_TAMPERED = r"TamperingDetected: the submission replaced "
TAMPERED = r"tampering detected: "  # the check that saw it
# every other check of the exercise: voided if it passed, its own failure otherwise
VOIDED = r"voided: tampering detected: |tampering detected: |differs from the expected values"

# 05's hidden checks that an answer right in every value earns on this machine; its memory check
# is what the memory attacks aim at
VALUES_05 = frozenset({FEATURE, SAMPLE, PAIRWISE, "test_feature_bias_shape", "test_sample_bias_square[cpu]",
                       "test_sample_bias_rectangular[cpu]", "test_pairwise_shape", "test_pairwise_matches_cdist[cpu]",
                       "test_inputs_untouched", "test_no_cdist_no_loops"})
MEMORY_05 = r"the call needed \d+ MiB at its peak for N = M = 1024, D = 128 \(limit 64 MiB"



@dataclass(frozen=True)
class Attack:
    name: str
    expect: dict[str, str]  # check name (or "*") -> regex its message must match
    passes: frozenset[str] = frozenset()  # what the honest part earns: exactly these checks pass
    # or, for an exercise with many checks: every check passes but these (each must have run)
    fails_only: frozenset[str] | None = None
    exercise: str = "05_broadcast_bias"
    reference_10: bool = False
    flags: tuple[str, ...] = ()  # static flags expected in the report
    runtimes: tuple[str, ...] = ("local", "docker")
    evidence: Callable[[Batch, Attack], None] | None = None  # further checks of what happened
    # graded inside one submission with the other attacks of that name (each on its own exercise):
    # a judge (a container) for all of them, as a candidate's folder of exercises is graded
    # (`_shared_submissions`)
    together: str = ""

    def __repr__(self) -> str:
        return self.name

    @property
    def graded_as(self) -> str:
        """The submission's name in the report."""
        return self.together or self.name


# --- evidence: what each attack must not have achieved ---------------------------------------------

def _nothing_arrived(batch: Batch, attack: Attack) -> None:
    assert batch.evidence["received"] == [], f"a listener on the loopback received {batch.evidence['received']}"


def _no_marker(batch: Batch, attack: Attack) -> None:
    # Under Landlock a worker cannot write /tmp either: any marker on this machine is a failure.
    assert batch.evidence["markers"] == {}, batch.evidence["markers"]


def _no_process_left(batch: Batch, attack: Attack) -> None:
    assert batch.evidence["leftover_processes"] == [], batch.evidence["leftover_processes"]


def _victim_untouched(batch: Batch, attack: Attack) -> None:
    victim = batch.exercise("victim", "05_broadcast_bias")
    assert victim["score"] == victim["max_score"] == 10, victim


def _judge_memory(batch: Batch, attack: Attack) -> None:
    # A frame announcing 2 GiB used to make the judge allocate (and zero) 2 GiB at once.
    assert batch.evidence["judge_peak_rss"] < 1.5 * GiB, f"judge peak RSS {batch.evidence['judge_peak_rss'] / GiB:.1f} GiB"


def _nothing_written_outside(batch: Batch, attack: Attack) -> None:
    for what in ("grader package", "site-packages", "python bin", "own submission", "judge folder", "judge home"):
        for check in batch.exercise(attack.graded_as, attack.exercise)["checks"]:
            assert f"{what}: written" not in check["message"], check["message"]
    assert batch.evidence["written_markers"] == [], batch.evidence["written_markers"]


def _scratch_removed(batch: Batch, attack: Attack) -> None:
    assert batch.evidence["filled"] == [], batch.evidence["filled"]


def _tampering_flagged(batch: Batch, attack: Attack) -> None:
    ex = batch.exercise(attack.graded_as, attack.exercise)
    assert ex["score"] == 0, ex["score"]
    found = [f for f in ex["flags"] if f["message"].startswith("tampering detected")]
    assert found, ex["flags"]
    for kind in ("markdown", "html", "terminal", "candidate-markdown", "candidate-json"):
        assert "tampering detected" in batch.texts[kind], f"tampering is not flagged in the {kind} report"


def _inert_text(batch: Batch, attack: Attack) -> None:
    """The payloads are shown as text: no markup, no control sequence, no workflow command."""
    for kind in ("markdown", "candidate-markdown"):
        text = batch.texts[kind]
        for raw in ("<h2>", "](https://attacker", "![badge]", "@interviewers", "\x1b", "\u202e"):
            assert raw not in text, f"{raw!r} reached the {kind} report as is"
    for kind in ("terminal", "candidate-terminal"):
        text = batch.texts[kind]
        assert "\x1b[2J" not in text and "\x1b[1A" not in text and "\x1b[H" not in text and "\r" not in text
        starts = [line for line in text.splitlines() if line.lstrip().startswith("::")]
        assert not starts, f"a {kind} line starts a workflow command: {starts[:2]}"
    messages = [c["message"] for c in batch.exercise(attack.graded_as, attack.exercise)["checks"]]
    assert any("[bold red]x[/]" in m for m in messages), "the candidate's message was lost, not shown"
    assert "bold red" not in " ".join(batch.report["environment"]["notes"])


def _flags_bounded(batch: Batch, attack: Attack) -> None:
    ex = batch.exercise(attack.graded_as, attack.exercise)
    assert len(ex["flags"]) <= 51 and all(len(f["message"]) <= 300 for f in ex["flags"]), len(ex["flags"])
    assert ex["flags"][-1]["message"].startswith("and ")
    assert len(batch.texts["json"]) < 8 << 20


def _memory_holds_no_check(batch: Batch, attack: Attack) -> None:
    """What memory_scan found in its own memory is none of the exercises' checks or solutions."""
    corpus = "\n".join(path.read_text(encoding="utf-8") for path in
                       [*ROOT.glob("exercises/*/*/test_*.py"), *ROOT.glob("solutions/**/*.py")])
    for check in batch.exercise(attack.graded_as, attack.exercise)["checks"]:
        if check["outcome"] == "not_run":
            continue
        scanned = re.search(r"memory scanned: (\d+) MiB, \d+ piece\(s\) of checks or solutions: (.*)", check["message"])
        assert scanned and int(scanned.group(1)) >= 64, check["message"][:500]
        pieces = scanned.group(2).split("\n")[0].split(" | ")
        leaked = [piece for piece in pieces if len(piece.strip()) >= 12 and piece.strip() in corpus]
        assert not leaked, f"{check['name']}: the worker's memory holds pieces of checks or solutions: {leaked[:5]}"


def _deep_chains_removed(batch: Batch, attack: Attack) -> None:
    assert batch.evidence["deep_chains"] == [], batch.evidence["deep_chains"]
    _victim_untouched(batch, attack)  # graded after it, by the same judge on the local runtime


def _nothing_shared_left(batch: Batch, attack: Attack) -> None:
    assert batch.evidence["sysv_left"] == [], f"System V objects left on the machine: {batch.evidence['sysv_left']}"
    assert not os.path.exists("/dev/shm/torch-grader-attack-shm"), "a file left in the host's /dev/shm"


# --- the attacks --------------------------------------------------------------------------------

PUBLIC_05 = (FEATURE, SAMPLE, PAIRWISE)

MAIN = [
    Attack("read_hidden", {"*": r"could not read the reference: .*(" + DENIED + "|hidden from the worker)"},
           reference_10=True,
           flags=("imports the grader", "runs code built at run time (exec)")),
    # other processes' files are refused, or (local: the worker's own PID namespace) there is no
    # other process to name: getppid() is 0, and /proc/0 does not exist
    Attack("snoop_secrets", {FEATURE: r"my environment: \{",
                             SAMPLE: r"other processes: (.*" + DENIED + r"|0/environ: No such file or directory "
                                     r"\| 0/cmdline: No such file or directory\n)",
                             # the fork server's memory is refused, or (no Landlock, same user in the
                             # container) readable and free of secrets: the reports are scanned
                             PAIRWISE: r"the fork server's memory \(/proc/\d+/mem\): " + DENIED
                                       + r"|the fork server's memory \(/proc/0/mem\): No such file or directory"
                                       + r"|read \d+ bytes of the fork server's memory"}),
    Attack("peek_other", {"*": r"found no other answer to copy: .*victim/broadcast_bias\.py: (Permission denied|No such file)"},
           evidence=_victim_untouched, flags=("runs code built at run time (exec)",)),
    Attack("victim", {}, passes=frozenset(PUBLIC_05)),
    Attack("patch_comparisons", {"*": "differs from the expected values"},
           reference_10=True,
           flags=("assigns to torch.allclose", "assigns to torch.equal", "assigns to torch.testing.assert_close",
                  "assigns to torch.Tensor.__eq__", "assigns to numpy.allclose",
                  "assigns to numpy.testing.assert_allclose", "assigns to pytest.approx", "imports pytest")),
    Attack("fake_results", {FEATURE: r"forging: .*results\.jsonl: " + DENIED,
                            SAMPLE: "differs from the expected values", PAIRWISE: "differs from the expected values"}),
    Attack("exit_early", {FEATURE: r"the worker exited with status 0 while broadcast_bias\.add_feature_bias\(\)",
                          SAMPLE: r"add_sample_bias\(\) raised SystemExit", PAIRWISE: r"raised KeyboardInterrupt"},
           reference_10=True, flags=("exits the process (os._exit)",)),
    Attack("interrupt_at_import", {"*": r"importing broadcast_bias\.py raised KeyboardInterrupt"}, reference_10=True),
    Attack("lying_tensor", {FEATURE: "differs from the expected values",
                            SAMPLE: r"malformed data \(tensor size does not match its shape\)",
                            PAIRWISE: r"expected result to be a torch\.Tensor, got (\w+\.)*Everything"}),
    Attack("reduce_payload", {FEATURE: r"expected result to be a torch\.Tensor, got (\w+\.)*Payload",
                              SAMPLE: r"expected result to be a torch\.Tensor, got list",
                              PAIRWISE: r"pairwise_sq_dists\(\) raised Boom"},
           evidence=_no_marker),
    Attack("frame_snoop", {"*": r"no expected value in the worker|differs from the expected values"},
           flags=("reads interpreter frames (sys._getframe)", "walks every live object (gc.get_objects)",
                  "uses inspect (frame and source introspection)", "uses gc (garbage-collector introspection)")),
    Attack("hang_c", {"*": TIME_LIMIT}, reference_10=True, flags=("uses ctypes", "sends signals (os.kill)")),
    Attack("leave_daemons", {PAIRWISE: TIME_LIMIT}, passes=frozenset({FEATURE, SAMPLE}), reference_10=True,
           evidence=_no_process_left, flags=("forks processes (os.fork)",)),
    # numpy's float64 fill touches 512 MiB before the second array fails: 1.0-1.8 s alone in a
    # container, past the 2 s limit when other containers share the two cores (contained either way);
    # torch.ones and bytearray zero-fill their pages too, and CI runs under heavy load saw the time
    # limit stop each of them first. The memory limit itself is proven by tree_memory and the sandbox tests
    Attack("memory_bomb", {"*": OOM + "|" + TIME_LIMIT}, reference_10=True),
    Attack("disk_fill", {FEATURE: r"stopped after \d+ MiB: No space left on device|wrote 1280 MiB|" + TIME_LIMIT,
                         SAMPLE: "File too large", PAIRWISE: r"made 20000 files|No space left|" + TIME_LIMIT},
           evidence=_scratch_removed),
    Attack("output_flood", {"*": r"output limit exceeded: the worker wrote more than 4 MiB to stdout/stderr"},
           passes=frozenset({PAIRWISE}), reference_10=True),
    # refused by Landlock; or (local) the worker is PID 1 of its own PID namespace: no parent to
    # name (getppid() is 0: signal 0 goes to its own process group, where PID 1 ignores it)
    Attack("signal_parent", {"*": r"raised PermissionError: \[Errno 1\] Operation not permitted|"
                                  r"(SIGKILL|SIGSTOP) to the parent \(pid 0\): not refused",
                             PAIRWISE: r"raised PermissionError: \[Errno 1\] Operation not permitted|"
                                       r"raised ProcessLookupError: \[Errno 3\] No such process|"
                                       r"SIGKILL to process group 1: not refused"}, reference_10=True,
           flags=("sends signals (os.kill)", "sends signals (os.killpg)")),
    Attack("channel_garbage", {FEATURE: TIME_LIMIT,
                               SAMPLE: r"the worker sent malformed data \((malformed message from worker|a header of 4095 MiB)",
                               PAIRWISE: r"the worker sent malformed data \(message of 4611686018427387904 bytes exceeds"},
           reference_10=True, evidence=_judge_memory),
    # Sockets are allowed where the worker's network is its own (namespaces, the container's):
    # the host's loopback refuses, a datagram goes nowhere (that check earns its points: the
    # answer is right), the host's Unix socket does not exist in the worker's view.
    Attack("network", {FEATURE: r"raised (ConnectionRefusedError|PermissionError: \[Errno 13\] Permission denied)",
                       SAMPLE: r"raised PermissionError: \[Errno 13\] Permission denied",
                       PAIRWISE: r"raised (FileNotFoundError|PermissionError: \[Errno 13\] Permission denied)"},
           passes=frozenset({SAMPLE}), evidence=_nothing_arrived),
    Attack("root_powers", {FEATURE: r"effective capabilities: 0000000000000000",
                           SAMPLE: r"raised ValueError: not allowed to raise maximum limit",
                           PAIRWISE: r"raised PermissionError: \[Errno (13|1)\]"}),
    Attack("write_outside", {"*": r"grader package: " + DENIED}, reference_10=True, evidence=_nothing_written_outside,
           flags=("imports the grader",)),
    Attack("ipc_keyring", {FEATURE: r"shmget: Operation not permitted; semget: Operation not permitted; "
                                    r"msgget: Operation not permitted",
                           SAMPLE: r"add_key: Operation not permitted; keyctl read: Operation not permitted"},
           passes=frozenset({PAIRWISE}), evidence=_nothing_shared_left),
    Attack("submitted_conftest", {"*": r"add_\w+\(\) raised NotImplementedError|pairwise_sq_dists\(\) raised NotImplemented"},
           evidence=_no_marker),
    Attack("decoder_bomb", {FEATURE: TIME_LIMIT,
                            SAMPLE: r"the worker sent malformed data \(more than 1000000 items in one answer\)",
                            PAIRWISE: r"the worker sent malformed data \(malformed message from worker"},
           reference_10=True, evidence=_judge_memory),
    Attack("deep_parse", {"*": r"broadcast_bias\.py is nested too deeply for the grader to parse"}, reference_10=True),
    Attack("flag_flood", {}, passes=frozenset(PUBLIC_05), reference_10=True, evidence=_flags_bounded,
           flags=("assigns to torch.aaaa",)),
    Attack("markup_injection", {FEATURE: r"raised RuntimeError: \[bold red\]x\[/\]", SAMPLE: r"raised ValueError",
                                PAIRWISE: r"raised RuntimeError"}, evidence=_inert_text),
]
ARCHIVES = {  # submissions refused before anything runs; the others in the batch are still graded
    "zip_slip.zip": r"refused: member '\.\./\.\./torch-grader-attack-zip-slip\.py' would be written outside",
    "tar_link.tar.gz": r"refused: 'broadcast_bias\.py' is a link",
    "zip_bomb.zip": r"refused: .*(decompression bomb|more than)",
}
# Heavier work per check (a 3000-level folder chain, five processes touching 2 GiB): graded in
# a batch of their own with a time limit that a loaded machine still meets.
CONTAINMENT = [
    Attack("deep_scratch", {}, passes=frozenset(PUBLIC_05), evidence=_deep_chains_removed),
    Attack("tree_memory", {"*": r"memory limit 1\.0 GiB exceeded \(resident [\d.]+ GiB over the worker's process tree"},
           reference_10=True, evidence=_no_process_left),
    # The code that runs is the code the judge read (grader.sandbox.imports): a bytecode cache shipped
    # beside a clean stub is never run, and nothing is imported from outside the Python installation
    # (a helper written to the scratch folder, a second file of the submission), even after the
    # import machinery was changed.
    Attack("pyc_shadow", {"*": r"raised NotImplementedError"}),
    Attack("helper_import", {"*": OUTSIDE_IMPORT.format(name="bb_helper")},
           flags=("changes where Python imports from (sys.path.insert)",)),
    Attack("helper_shipped", {"*": OUTSIDE_IMPORT.format(name="bb_shipped")}),
    Attack("meta_path_swap", {"*": r"importing 'bb_swap' refused: the submission changed sys\.meta_path"},
           flags=("reaches the import machinery (sys.meta_path)", "changes where Python imports from (sys.path.insert)")),
    Attack("victim", {}, passes=frozenset(PUBLIC_05)),
]
HIDDEN = [
    Attack("probe_forge", {"test_input_left_untouched": TAMPERED + r".*TamperingDetected", "*": VOIDED},
           exercise="10_autograd_basics", flags=("assigns to torch.equal",), evidence=_tampering_flagged),
    # provenance the candidate cannot construct: a liar wrapped by torch's own decorator, claiming
    # (`__wrapped__`) to wrap the real torch.equal, and honest on small float32 tensors
    Attack("wrapped_liar", {"test_input_left_untouched": TAMPERED + r".*TamperingDetected", "*": VOIDED},
           exercise="10_autograd_basics", flags=("assigns to torch.equal",), evidence=_tampering_flagged),
    # a hook registry swapped for a dict subclass that hides the hooks left behind (torch fires them)
    Attack("hooks_hidden", {"*": VOIDED}, exercise="29_hooks", flags=("assigns to layer.__dict__[...]",),
           evidence=_tampering_flagged),
    # saved-tensor hooks of the candidate's own, inside forward, hide every saved activation from a
    # measure made with an outer pair: the memory is measured from outside the worker too
    Attack("saved_hooks_shadow", {"test_checkpoint_calls": r"it was called 0 times",
                                  "test_memory_traded_for_recompute": r"held \d+ MiB at its peak, against \d+ MiB"},
           exercise="66_activation_checkpointing",
           fails_only=frozenset({"test_checkpoint_calls", "test_memory_traded_for_recompute"})),
    # an API check's point is what runs, not what the source spells: each of these reaches a
    # forbidden or required API through a name built at run time (getattr), an operator's own
    # entry point, a fused kernel, or a builtin called from C; the runtime observation decides
    *(Attack(name, {check: regex}, exercise=exercise, fails_only=frozenset({check}))
      for name, exercise, check, regex in (
          ("cuda_by_name", "64_device_placement", "test_no_hard_coded_cuda",
           r"given 'cuda:1', the code asked torch for another CUDA device: \.cuda\(\) -> cuda"),
          ("amp_by_name", "67_amp_gradscaler_step", "test_autocast_used",
           r"deprecated AMP API at run time: .*torch\.cpu\.amp\.autocast\.__init__"),
          ("variable_by_name", "11_leaf_tensors", "test_no_variable",
           r"used Variable at run time \(torch\.autograd\.variable\.VariableMeta\.__call__"),
          ("data_by_name", "14_stop_gradient", "test_no_dot_data",
           r"the code used \.data at run time \(read of \.data in ema_update_\(\)"),
          ("legacy_by_name", "01_tensor_factories", "test_no_legacy_constructors",
           r"called the legacy constructor torch\.Tensor\(\.\.\.\) at run time"),
          ("download_by_name", "62_transfer_learning", "test_no_pretrained_download",
           r"the code tried to download \(torch\.hub\.load_state_dict_from_url\)"),
          ("sigmoid_by_op", "63_gan_alternating_step", "test_forbidden_apis",
           r"aten\.sigmoid \(reached at torch's dispatcher\)"),
          ("fused_sgd_by_name", "37_sgd_from_scratch", "test_no_torch_sgd",
           r"aten\._fused_sgd_ \(reached at torch's dispatcher\)"),
          ("fused_adam_by_name", "38_adam_vs_adamw", "test_no_torch_optim",
           r"aten\._fused_adamw_ \(reached at torch's dispatcher\)"),
          ("clock_from_c", "70_gpu_benchmarking", "test_uses_perf_counter",
           r"benchmark reported min_ms=[\d.]+: its times come from another clock"))),
    # the probes' own helpers replaced in the worker: a probe that imports `grader.probes` in its body
    # gets the worker's copy, whose train_steps here runs torch's SGD for a no-op optimizer
    Attack("probes_patched", {}, exercise="37_sgd_from_scratch",
           flags=("assigns to grader.probes.train_steps",), evidence=_tampering_flagged),
    # a getter of torch._C that a check reads its flags through
    Attack("cudnn_getter_lie", {"*": VOIDED}, exercise="59_reproducibility",
           flags=("assigns to torch._C._get_cudnn_benchmark",), evidence=_tampering_flagged),
    Attack("alias_guard", {"test_input_left_untouched": TAMPERED + r"a canary probe", "*": VOIDED},
           exercise="10_autograd_basics", flags=("assigns to torch.equal",), evidence=_tampering_flagged),
    Attack("handler_rewrite", {"test_input_left_untouched": TAMPERED + r"a canary probe", "*": VOIDED},
           exercise="10_autograd_basics", flags=("assigns to _worker.handle",), evidence=_tampering_flagged),
    Attack("perf_forge", {"test_sparse_layout_coalesced": TAMPERED + r".*TamperingDetected", "*": VOIDED},
           exercise="09_sparse_adjacency", flags=("assigns to time.perf_counter",), evidence=_tampering_flagged),
    # Its clock restores itself when read, but the perf check no longer reads it (the judge times the
    # call): the replaced clock is still there when the probe ends, the guard sees it, all is void.
    Attack("perf_forge_restoring", {"test_perf_large_graph": TAMPERED + r".*TamperingDetected.*time\.perf_counter",
                                    "*": VOIDED},
           exercise="09_sparse_adjacency", flags=("assigns to time.perf_counter",), evidence=_tampering_flagged),
    Attack("perf_clock_restored", {"test_perf_large_graph": r"took \d+\.\d\d s of CPU \(limit|time limit 25 s exceeded"},
           exercise="09_sparse_adjacency",
           passes=frozenset({"test_edges_to_sparse_example", "test_propagate_example", "test_dense_matches_reference[default_weights]",
                             "test_dense_matches_reference[weighted]", "test_shape_isolated_last_node",
                             "test_int32_edge_index", "test_propagate_matches_dense[unweighted]",
                             "test_propagate_matches_dense[weighted]", "test_sparse_layout_coalesced",
                             "test_never_densifies", "test_grad_matches_dense"}),
           flags=("assigns to time.perf_counter",)),
    # The worker reads its own memory, inherited from the fork server and what that was forked
    # from (the judge template; the container's entry point, which imports torch once for both)
    Attack("memory_scan", {"*": r"memory scanned: \d+ MiB"}, evidence=_memory_holds_no_check),
    Attack("coding_escape", {"*": r"broadcast_bias\.py declares the source encoding 'unicode_escape' \(PEP 263\): "
                                  r"the grader accepts UTF-8 only"}),
    Attack("sparse_bomb", {"*": r"a sparse tensor of shape \(40000, 40000\), whose dense form would take \d+\.\d GiB|"
                                r"NotImplementedError|stale handle|is no longer running"},
           exercise="09_sparse_adjacency", passes=frozenset({"test_sparse_layout_coalesced"})),
    # Five ways to hide a materialised (N, M, D) tensor from a memory check that measures growth
    # above where the worker stood: ballast freed inside the call, a buffer filled in place, a
    # child that exits, a helper process started at import, an orphaned grandchild. The check
    # counts held memory (the worker's peak above a fresh one, its descendants') and the page
    # faults of every process the worker starts: each earns exactly what its right values earn.
    *(Attack(name, {"test_pairwise_memory_cpu": MEMORY_05}, passes=VALUES_05)
      for name in ("ballast_swap", "prefilled_buffer", "child_computes", "child_server", "orphan_computes")),
    # torch.cdist under a name built at run time, or through torch.ops with Python dispatch modes
    # off: no line names it, but its kernel is reached at the dispatcher (probes.forbid_ops).
    *(Attack(name, {"test_no_cdist_no_loops": r"ran torch\.cdist's kernel \(aten\._euclidean_dist\) although no line"},
             passes=(VALUES_05 - {"test_no_cdist_no_loops"}) | {"test_pairwise_memory_cpu"})
      for name in ("cdist_by_name", "cdist_modes_off")),
    # The dispatcher guard removed from inside the call (found with gc.get_objects): the
    # dispatcher is not as the guard left it, the probe raises TamperingDetected, 05 is void
    Attack("dispatcher_unguard", {"test_no_cdist_no_loops": TAMPERED + r".*changed torch's dispatcher for aten\._",
                                  "*": VOIDED},
           flags=("walks every live object (gc.get_objects)",), evidence=_tampering_flagged),
    # 17's forbidden built-in, through a reference kept in a list: no wrapper on torch.logsumexp
    # reaches it, torch's dispatcher does
    Attack("logsumexp_kept", {"test_no_builtin_logsumexp": r"called aten\.logsumexp \(reached at torch's dispatcher\)"},
           exercise="17_custom_autograd_function",
           passes=frozenset({"test_backward_leaves_grad_output_alone", "test_logsumexp_example",
                             "test_logsumexp_extreme_values[0]", "test_logsumexp_extreme_values[1]",
                             *(f"test_logsumexp_gradcheck[{d}]" for d in (-1, 0, 1)),
                             *(f"test_output_shape[{d}]" for d in (-1, -2, -3, 0, 1, 2)),
                             "test_saves_with_save_for_backward", "test_sign_example", "test_sign_ste_gradient",
                             "test_sign_straight_through_example",
                             *(f"test_sign_values[{t}]" for t in ("float16", "float32", "float64"))})),
    # ... or through torch's own Python re-implementation (torch._refs.logsumexp), which computes it
    # from other operators and never reaches the refused kernel: the call watch sees its code run
    Attack("refs_logsumexp", {"test_no_builtin_logsumexp": r"called torch\._refs\.logsumexp \(torch's Python "},
           exercise="17_custom_autograd_function",
           passes=frozenset({"test_backward_leaves_grad_output_alone", "test_logsumexp_example",
                             "test_logsumexp_extreme_values[0]", "test_logsumexp_extreme_values[1]",
                             *(f"test_logsumexp_gradcheck[{d}]" for d in (-1, 0, 1)),
                             *(f"test_output_shape[{d}]" for d in (-1, -2, -3, 0, 1, 2)),
                             "test_saves_with_save_for_backward", "test_sign_example", "test_sign_ste_gradient",
                             "test_sign_straight_through_example",
                             *(f"test_sign_values[{t}]" for t in ("float16", "float32", "float64"))})),
    # The same for 30, 32, 34 and 35's forbidden built-ins, each through references taken at import
    # under names built at run time: the attribute wrappers never see them, the dispatcher does.
    *(Attack(name, {"test_forbidden_apis": pattern}, exercise=exercise,
             fails_only=frozenset({"test_forbidden_apis"}))
      for name, exercise, pattern in (
          ("softmax_kept", "30_stable_activations",
           r"called \[.*aten\._softmax \(reached at torch's dispatcher\).*aten\.gelu"),
          ("sigmoid_kept", "32_bce_with_logits", r"called \[.*aten\.sigmoid \(reached at torch's dispatcher\)"),
          ("nll_kept", "34_weighted_smoothed_ce", r"called \[.*aten\.nll_loss_forward \(reached at torch's dispatcher\)"),
          ("soft_ce_kept", "34_weighted_smoothed_ce",
           r"called \[.*aten\.cross_entropy_loss \(reached at torch's dispatcher\)"),
          ("losses_kept", "35_regression_losses",
           r"called \[.*aten\.huber_loss \(reached at torch's dispatcher\).*aten\.mse_loss"))),
    # and 21, 26 and 27's (F.linear, torch.dropout, torch.batch_norm and torch.layer_norm): the
    # dispatcher sees them, and so does the spy's call watch (the builtin called by the candidate)
    *(Attack(name, {check: pattern}, exercise=exercise, fails_only=frozenset({check}))
      for name, exercise, check, pattern in (
          ("linear_kept", "21_linear_semantics", "test_manual_linear_forbidden",
           r"called \[\"aten\.linear \(reached at torch's dispatcher\)\", 'torch\.nn\.functional\.linear'\]"),
          ("dropout_kept", "26_inverted_dropout", "test_no_builtin_dropout",
           r"called \[\"aten\.dropout \(reached at torch's dispatcher\)\", 'torch\.dropout'\]"),
          ("norms_kept", "27_batchnorm_vs_layernorm", "test_no_builtin_norms",
           r"called \[\"aten\.batch_norm \(reached at torch's dispatcher\)\", 'torch\.batch_norm'\]"))),
    # 52's laziness check spies on numpy's whole-file readers; numpy.fromfile kept in a list is seen
    # by the spy's call watch, and the check also measures the construction's memory from outside
    # the worker (what failed it before the watch)
    Attack("fromfile_kept", {"test_construct_is_lazy": r"MemmapDataset\.__init__ read the file \(\['numpy\.fromfile'\]\)"
                                                       r"|constructing MemmapDataset over a 400 MB file raised "
                                                       r"resident memory by \d+ MiB \(limit 20 MiB\)"},
           exercise="52_out_of_core_data", fails_only=frozenset({"test_construct_is_lazy"})),
    # 46's check that __getitem__ converts nothing spies on the converters; torch.from_numpy and
    # torch.as_tensor kept in a list are seen by the spy's call watch, and ds[0] gives new tensors
    # on every call (what failed it before the watch)
    Attack("getitem_kept", {"test_no_conversion_per_item": r"made 2000 tensor conversions \(\['torch\.as_tensor', "
                                                           r"'torch\.from_numpy'\]\)|ds\[0\] returned new tensors for "
                                                           r"its features and label on each call"},
           exercise="46_map_style_dataset", fails_only=frozenset({"test_no_conversion_per_item"})),
    # Calls the attribute spies of 16, 70 and 71 never saw (references kept from import under names
    # built at run time): the call watch (grader.sandbox.callwatch) sees the function's own code
    # run, or the builtin called by the candidate's code, whatever reference reached it
    *(Attack(name, {check: pattern}, exercise=exercise, fails_only=frozenset({check}))
      for name, exercise, check, pattern in (
          ("hessian_kept", "16_higher_order_grads", "test_no_explicit_hessian",
           r"hessian_vector_product called torch\.autograd\.functional\.hessian: never form the Hessian"),
          ("moved_kept", "71_export_for_serving", "test_model_not_moved",
           r"the model was moved \(\['torch\.nn\.Module\._apply'\] called on it\)"),
          ("clock_kept", "70_gpu_benchmarking", "test_uses_perf_counter", r"benchmark read \['time\.time'\]"))),
    # The same kept hessian with the profile function switched off around the call and put back,
    # from C code (map): the audit hook counted a sys.setprofile the grader did not make
    Attack("profile_off", {"test_no_explicit_hessian": TAMPERED + r".*call watch \(sys\.setprofile was called\)",
                           "*": VOIDED},
           exercise="16_higher_order_grads", flags=("reaches into __builtins__",), evidence=_tampering_flagged),
    # 33's classifier computing log(softmax) through a softmax kept in a list: the dispatcher sees
    # it, and so does the spy's call watch (the builtin called by the candidate's code)
    Attack("softmax_log_kept", {"test_no_softmax": r"forward called \[\"aten\._softmax \(reached at torch's dispatcher\)\", "
                                                   r"'torch\.softmax'\]",
                                "test_nll_equals_ce": r"model\(x\) is not finite for large logits"},
           exercise="33_log_prob_losses", fails_only=frozenset({"test_no_softmax", "test_nll_equals_ce"})),
    # The registries themselves lie (a dict subclass, a class-level property), or the guard that
    # refuses such registries is taken off torch first: tampering, the exercise scores 0.
    *(Attack(name, {"*": VOIDED + r"|raised TamperingDetected: the submission replaced|should differ between calls"},
             exercise="18_custom_mlp_module", evidence=_tampering_flagged)
      for name in ("lying_registry", "shadow_registry", "unguard_torch")),
    # A one-Linear model whose state_dict, named_parameters, parameters, named_modules, children and
    # load_state_dict show decoy hidden layers: it earns what the same model without decoys earns
    # (the two shape checks), as the checks read torch's registries and the real forward.
    Attack("decoy_layers", {"test_registered_layers": r"state_dict has no \['layers\.0\.weight', 'layers\.1\.weight'\]"},
           exercise="18_custom_mlp_module", passes=frozenset({"test_forward_shape", "test_output_shapes"})),
]


def _shared_submissions(attacks: list[Attack]) -> list[Attack]:
    """The attacks shared out over as few submissions as their exercises allow: the n-th attack on
    an exercise goes into submission `hidden_<n>`, beside attacks on other exercises, as a
    candidate's folder of exercises is graded (one judge, one container, one fork server for them
    all). Each check still runs in a fresh worker, and an attack that reached past its own exercise
    (a fork server it stopped, a process it left, state it planted) now shows on its neighbours'
    verdicts too. In Docker each submission is a container (about 2.8 CPU-s of start-up): one per
    attack made this batch cost twice its checks."""
    seen: dict[str, int] = {}
    shared = []
    for attack in attacks:
        n = seen[attack.exercise] = seen.get(attack.exercise, -1) + 1
        shared.append(replace(attack, together=f"hidden_{n}"))
    return shared


HIDDEN = _shared_submissions(HIDDEN)


# --- grading a batch ----------------------------------------------------------------------------

@dataclass
class Batch:
    runtime: str
    report: dict
    texts: dict[str, str]  # report kind -> text
    evidence: dict = field(default_factory=dict)

    def exercise(self, submission: str, exercise: str) -> dict:
        for ex in self.report["exercises"]:
            if ex["submission"] == submission and ex["id"] == exercise:
                return ex
        raise AssertionError(f"no {exercise} for {submission} in the report")

    def submission(self, name: str) -> dict:
        return next(s for s in self.report["submissions"] if s["name"] == name)


def _copy_submission(name: str, dest: Path, reference_10: bool = False) -> Path:
    target = dest / name
    shutil.copytree(SUBMISSIONS / name, target)
    for stored in target.rglob("*.attack"):
        stored.rename(stored.with_suffix(""))
    for path in target.rglob("*.py"):  # parts too big (or too deep for ruff) to keep in git
        text = path.read_text()
        if "GENERATED" in text and name == "deep_parse":
            path.write_text(text + "_ = " + "+".join(["1"] * 200_000) + "\n")
        elif "GENERATED" in text and name == "flag_flood":
            path.write_text(text + "".join(f"torch.{'a' * 2000}{i} = {i}\n" for i in range(1500)))
    if name == "pyc_shadow":  # its bytecode cache is made here: git keeps no .pyc
        import importlib.util
        import py_compile

        stub = target / "broadcast_bias.py"
        py_compile.compile(str(target / "shadow.txt"), cfile=importlib.util.cache_from_source(str(stub)),
                           dfile=str(stub), invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH, doraise=True)
    if reference_10:
        ref = target / "autograd" / "10_autograd_basics" / "autograd_basics.py"
        ref.parent.mkdir(parents=True)
        shutil.copy(REFERENCE_10, ref)
    return target


def _archives(dest: Path, runtime: str) -> list[Path]:
    victim = (SUBMISSIONS / "victim" / "broadcast_bias.py").read_bytes()
    slip = dest / "zip_slip.zip"
    with zipfile.ZipFile(slip, "w") as zf:
        zf.writestr("zip_slip/broadcast_bias.py", victim)
        zf.writestr("../../torch-grader-attack-zip-slip.py", b"print('escaped')\n")
    link = dest / "tar_link.tar.gz"
    with tarfile.open(link, "w:gz") as tf:
        info = tarfile.TarInfo("broadcast_bias.py")
        info.type, info.linkname = tarfile.SYMTYPE, _reference_path(runtime)
        tf.addfile(info)
    bomb = dest / "zip_bomb.zip"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("broadcast_bias.py", b"#" * (300 << 20))
    return [slip, link, bomb]


def _reference_path(runtime: str) -> str:
    """Where the reference of 05 is, seen by the judge of this runtime."""
    return str(REFERENCE_05) if runtime == "local" else "/opt/grader/solutions/tensors/05_broadcast_bias/broadcast_bias.py"


class _Listeners:
    """TCP, UDP and Unix-socket listeners on this machine's loopback, recording what arrives."""

    def __init__(self, folder: Path, socket_dir: Path):
        self.received: list[tuple[str, bytes]] = []
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        # where the host keeps its sockets (a stand-in for /var/run/docker.sock): outside the
        # submission (a socket in the candidate's own folder is the candidate's to use)
        socket_dir.mkdir(exist_ok=True)
        self.unix_path = str(socket_dir / "listener.sock")
        self.unix = socket.socket(socket.AF_UNIX)
        self.unix.bind(self.unix_path)
        self.unix.listen()
        (folder / "tcp_port.txt").write_text(str(self.tcp.getsockname()[1]))
        (folder / "udp_port.txt").write_text(str(self.udp.getsockname()[1]))
        (folder / "unix_path.txt").write_text(self.unix_path)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        import select

        while not self.stop.is_set():
            ready, _, _ = select.select([self.tcp, self.udp, self.unix], [], [], 0.1)
            for sock in ready:
                try:
                    if sock is self.udp:
                        self.received.append(("udp", sock.recvfrom(1024)[0]))
                    else:
                        conn, _ = sock.accept()
                        conn.settimeout(1)
                        with conn:
                            self.received.append(("tcp" if sock is self.tcp else "unix", conn.recv(1024)))
                except OSError:
                    continue

    def close(self) -> list[tuple[str, bytes]]:
        self.stop.set()
        self.thread.join()
        for sock in (self.tcp, self.udp, self.unix):
            sock.close()
        return self.received


def _our_template(pid: int) -> bool:
    """Whether `pid` is a judge template (grader.runtimes.template) this test process started."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
        return (b"grader.runtimes.template" in Path(f"/proc/{pid}/cmdline").read_bytes()
                and int(stat[stat.rfind(b")") + 2:].split()[1]) == os.getpid())
    except (OSError, ValueError, IndexError):
        return False


class _JudgeMemory:
    """Peak resident memory of every judge process on this machine (the container's too: its
    processes are visible from here) while a batch is graded."""

    def __init__(self):
        self.peak = 0
        self.pids: set[str] = set()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        page = os.sysconf("SC_PAGE_SIZE")
        while not self.stop.wait(0.05):
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                try:
                    cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
                    if b"grader.judge\0" in cmd:
                        stat = Path(f"/proc/{pid}/stat").read_bytes()
                        parent = int(stat[stat.rfind(b")") + 2:].split()[1])
                        if parent == os.getpid() or _our_template(parent):
                            self.pids.add(pid)  # a local judge of ours (others may run on this machine)
                        self.peak = max(self.peak, int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * page)
                except (OSError, ValueError, IndexError):
                    continue

    def close(self) -> int:
        self.stop.set()
        self.thread.join()
        return self.peak


def _ax_processes() -> list[str]:
    found = []
    for comm in glob.glob("/proc/[0-9]*/comm"):
        try:
            name = Path(comm).read_text().strip()
        except OSError:
            continue
        if name.startswith("ax-"):
            found.append(f"{comm.split('/')[2]}:{name}")
    return found


def _sysv_objects() -> list[str]:
    """System V objects with the ipc_keyring attack's key (0x7ac0ffee) on this machine."""
    found = []
    for kind in ("shm", "sem", "msg"):
        try:
            lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
        except OSError:
            continue
        found += [f"{kind}: {line.split()[0]}" for line in lines if line.split() and line.split()[0] == str(0x7AC0FFEE)]
    return found


def _write_outside_markers(dest: Path) -> list[str]:
    import sys

    import torch

    import grader

    name = "torch-grader-attack-write-outside"
    return [p for p in (str(Path(grader.__file__).parent / f"{name}.py"), str(Path(torch.__file__).parent.parent / f"{name}.pth"),
                        str(Path(sys.prefix) / "bin" / name), f"/tmp/{name}", f"/dev/shm/{name}",
                        *glob.glob(f"/tmp/grader-*/{name}"), *glob.glob(f"{dest}/**/{name}", recursive=True))
            if os.path.exists(p)]


def _terminal(run) -> str:
    """What `grader grade` and `grader check` print, on a terminal (a report, too)."""
    import io

    from rich.console import Console

    from grader.reports.terminal import render, render_checks

    console = Console(file=io.StringIO(), force_terminal=True, color_system=None, width=100)
    render(run, console)
    render_checks(run, console)
    return console.file.getvalue()


def _containers_left(run_id: str) -> list[str]:
    """This batch's containers still present, named with the candidate they graded."""
    from grader.image import docker_client
    from grader.runtimes.docker import LABEL

    return [f"{c.name} ({c.labels.get(f'{LABEL}.candidate')})"
            for c in docker_client().containers.list(all=True, filters={"label": f"{LABEL}.run={run_id}"})]


def _run_batch(runtime: str, paths: list[Path], dest: Path, *, visibility: str, timeout_s: float | None,
               limits: Limits, env: dict[str, str] | None = None, exercises: list[str] | None = None,
               listeners: _Listeners | None = None) -> Batch:
    for marker in MARKERS:
        Path(marker).unlink(missing_ok=True)
    memory = _JudgeMemory()
    run_id = f"attacks-{uuid.uuid4().hex[:8]}"  # this batch's containers, and no one else's
    options = {"image": IMAGE, "gpus": "none", "run_id": run_id} if runtime == "docker" else {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GRADER_TEST_SECRET", SECRET)  # in the grader's environment: it must reach no worker, no report
        for key, value in (env or {}).items():
            mp.setenv(key, value)
        run = grade(paths, exercises=exercises, runtime=runtime, visibility=visibility, timeout_s=timeout_s,
                    limits=limits, runtime_options=options)
    evidence = {"judge_peak_rss": memory.peak, "judges": memory.pids, "received": listeners.close() if listeners else [],
                "leftover_processes": _ax_processes(), "written_markers": _write_outside_markers(dest),
                "filled": glob.glob("/tmp/grader-*/**/fill0.bin", recursive=True),
                "deep_chains": glob.glob("/tmp/grader-*/**/w*/d/d/d"), "sysv_left": _sysv_objects(),
                "markers": {m: Path(m).read_text(errors="replace") for m in MARKERS if os.path.exists(m)},
                "containers_left": _containers_left(run_id) if runtime == "docker" else []}
    memory.close()
    for marker in MARKERS:
        Path(marker).unlink(missing_ok=True)
    reports = dest / "reports"
    texts = {}
    for audience, prefix in (("interviewer", ""), ("candidate", "candidate-")):
        shown = for_audience(run, audience)
        for kind, name in (("json", "report.json"), ("junit", "junit.xml"), ("gradescope", "results.json"),
                           ("markdown", "summary.md"), ("html", "report.html")):
            write_report(kind, shown, reports / audience / name)
            texts[prefix + kind] = (reports / audience / name).read_text(encoding="utf-8")
        texts[prefix + "terminal"] = _terminal(shown)
    for path in evidence["written_markers"]:  # leave the machine as it was (the assertion comes later)
        Path(path).unlink(missing_ok=True)
    return Batch(runtime, json.loads(texts["json"]), texts, evidence)


@pytest.fixture(scope="module")
def batches(tmp_path_factory):
    """batches(name, runtime): the batch graded once per module, on first use."""
    done: dict[tuple[str, str], Batch] = {}

    def get(name: str, runtime: str) -> Batch:
        if (name, runtime) not in done:
            dest = tmp_path_factory.mktemp(f"{name}-{runtime}")
            done[(name, runtime)] = BUILDERS[name](runtime, dest)
        return done[(name, runtime)]

    yield get


def _main(runtime: str, dest: Path) -> Batch:
    subs = dest / "submissions"
    subs.mkdir()
    paths = [_copy_submission(a.name, subs, a.reference_10) for a in MAIN]
    link = subs / "link_out"
    link.mkdir()
    (link / "broadcast_bias.py").symlink_to(_reference_path(runtime))
    paths += [link, *_archives(subs, runtime)]
    listeners = _Listeners(subs / "network", dest / "host-sockets")
    try:
        return _run_batch(runtime, paths, dest, visibility="public", timeout_s=2, limits=Limits(memory_bytes=1 * GiB),
                          listeners=listeners)
    finally:
        listeners.close()


def _hidden(runtime: str, dest: Path) -> Batch:
    paths: list[Path] = []
    for attack in HIDDEN:  # each in its shared submission (`_shared_submissions`)
        target = dest / attack.together
        for path in (SUBMISSIONS / attack.name).iterdir():
            assert not (target / path.name).exists(), f"{attack.name}: {path.name} is another attack's in {target}"
            target.mkdir(exist_ok=True)
            shutil.copy(path, target / path.name)
        if target not in paths:
            paths.append(target)
    paths.append(_copy_submission("probe_snoop", dest))
    return _run_batch(runtime, paths, dest, visibility="all", timeout_s=None, limits=Limits())


def _single_files(runtime: str, dest: Path) -> Batch:
    shutil.copytree(SUBMISSIONS / "single_file", dest / "single_file")
    paths = [dest / "single_file" / "peeker.py", dest / "single_file" / "victim.py"]
    return _run_batch(runtime, paths, dest, visibility="public", timeout_s=2, limits=Limits(), exercises=["05"])


NO_LANDLOCK = {"docker": ("read_hidden", "snoop_secrets", "fake_results", "write_outside"),
               # a worker's own processes are all it sees (PID namespace): snoop_secrets finds none
               "local": ("read_hidden", "fake_results", "write_outside")}


def _no_landlock(runtime: str, dest: Path) -> Batch:
    """As on a kernel without Landlock (GRADER_LANDLOCK=0): in the container, users, mounts and the
    read-only root must hold on their own; locally, the worker's namespaces (the mount namespace
    covering the checkout and /tmp, read-only binds; the PID namespace)."""
    names = ["zygote_killer", *NO_LANDLOCK[runtime]]
    refs = {"zygote_killer", "read_hidden", "write_outside"}
    paths = [_copy_submission(name, dest, name in refs) for name in names]
    return _run_batch(runtime, paths, dest, visibility="public", timeout_s=2, limits=Limits(memory_bytes=1 * GiB),
                      env={"GRADER_LANDLOCK": "0"})


def _containment(runtime: str, dest: Path) -> Batch:
    paths = [_copy_submission(a.name, dest, a.reference_10) for a in CONTAINMENT]
    return _run_batch(runtime, paths, dest, visibility="public", timeout_s=60, limits=Limits(memory_bytes=1 * GiB))


BUILDERS = {"main": _main, "hidden": _hidden, "single": _single_files, "no_landlock": _no_landlock,
            "containment": _containment}


@pytest.fixture(scope="module")
def image() -> str:
    """The grading image, (re)built from this checkout (skipped when nothing changed), as in
    tests/runtimes/test_docker.py."""
    try:
        from grader.image import build_image, docker_client

        docker_client()
    except Exception as exc:  # noqa: BLE001
        if os.environ.get("CI"):
            pytest.fail(f"CI must provide a Docker daemon: {exc}")
        pytest.skip(f"no Docker daemon: {exc}")
    build_image(root=ROOT, base_image=BASE, tag=IMAGE, log=lambda msg: None)
    return IMAGE


def _cases(attacks: list[Attack], runtimes: tuple[str, ...] = ("local", "docker")) -> list:
    return [pytest.param(a, rt, id=f"{a.name}-{rt}", marks=[pytest.mark.docker] if rt == "docker" else [])
            for rt in runtimes for a in attacks if rt in a.runtimes]


def _runtimes(*names: str) -> list:
    return [pytest.param(rt, id=rt, marks=[pytest.mark.docker] if rt == "docker" else []) for rt in names]


def _use(request: pytest.FixtureRequest, runtime: str) -> None:
    if runtime == "docker":
        request.getfixturevalue("image")


# --- the checks ---------------------------------------------------------------------------------

def assert_contained(batch: Batch, attack: Attack, submission: str | None = None) -> None:
    name = submission or attack.graded_as
    ex = batch.exercise(name, attack.exercise)
    checks = [c for c in ex["checks"] if c["outcome"] != "not_run"]
    passed = {c["name"] for c in checks if c["outcome"] == "passed"}
    honest = set(attack.passes)
    if attack.fails_only is not None:
        assert attack.fails_only <= {c["name"] for c in checks}, (name, sorted(attack.fails_only), "not run")
        honest = {c["name"] for c in checks} - attack.fails_only
    assert passed == honest, (
        f"{name} on {batch.runtime}: passed {sorted(passed)}, its honest part earns {sorted(honest)}; "
        + "; ".join(f"{c['name']}: {c['message'][:300]}" for c in checks if c["outcome"] != "passed"))
    baseline = sum(c["max_score"] for c in checks if c["name"] in honest)
    assert ex["score"] == pytest.approx(baseline, abs=1e-3), (ex["score"], baseline)
    for c in checks:
        if c["outcome"] == "passed":
            continue
        assert c["message"].strip(), f"{c['name']} failed without saying why"
        pattern = attack.expect.get(c["name"], attack.expect.get("*"))
        if pattern:
            assert re.search(pattern, c["message"], re.S), f"{name} {c['name']} on {batch.runtime}: {c['message'][:1500]}"
    if attack.reference_10:
        ref = batch.exercise(name, "10_autograd_basics")
        assert ref["score"] == ref["max_score"] == 10, [(c["name"], c["message"][:200]) for c in ref["checks"]]
    for flag in attack.flags:
        found = [f for f in ex["flags"] if flag in f["message"] and f["line"] > 0]
        assert found, f"{name}: no flag {flag!r} in {ex['flags']}"
        assert f"{attack.exercise} line {found[0]['line']}: {safe.markdown(found[0]['message'])}" in batch.texts["markdown"]
        assert html.escape(found[0]["message"]) in batch.texts["html"]
    if attack.evidence is not None:
        attack.evidence(batch, attack)


@pytest.mark.parametrize(("attack", "runtime"), _cases(MAIN))
def test_attack_is_contained(attack, runtime, request, batches):
    _use(request, runtime)
    assert_contained(batches("main", runtime), attack)


@pytest.mark.parametrize(("archive", "runtime"), [
    pytest.param(name, rt, id=f"{name}-{rt}", marks=[pytest.mark.docker] if rt == "docker" else [])
    for rt in ("local", "docker") for name in [*ARCHIVES, "link_out"]])
def test_hostile_archive_or_link_is_refused(archive, runtime, request, batches):
    _use(request, runtime)
    batch = batches("main", runtime)
    if archive == "link_out":
        ex = batch.exercise("link_out", "05_broadcast_bias")
        assert ex["score"] == 0 and ex["problem"] == "broadcast_bias.py is a symbolic link: refused; submit the file itself"
        assert all("symbolic link: refused" in c["message"] for c in ex["checks"])
    else:
        sub = batch.submission(archive.removesuffix(".zip").removesuffix(".tar.gz"))
        assert sub["score"] == 0 and re.search(ARCHIVES[archive], sub["error"]), sub
        assert "/tmp/torch-grader-attack-zip-slip.py" not in batch.evidence["markers"]


@pytest.mark.parametrize("runtime", _runtimes("local", "docker"))
def test_reports_are_complete_and_leak_nothing(runtime, request, batches):
    """Every report is written, names every submission, and holds no secret, no hidden line, no
    forged verdict."""
    _use(request, runtime)
    batch = batches("main", runtime)
    names = {s["name"] for s in batch.report["submissions"]}
    assert names == {a.name for a in MAIN} | {"link_out", "zip_slip", "tar_link", "zip_bomb"}
    hidden = _hidden_lines()
    for kind, text in batch.texts.items():
        for variant in (text, html.unescape(text)):
            assert SECRET not in variant, f"the planted secret reached the {kind} report"
            for forged in FORGERIES:
                assert forged not in variant, f"{forged!r} reached the {kind} report"
            leaked = [line for line in hidden if line in variant]
            assert not leaked, f"hidden lines in the {kind} report: {leaked[:3]}"
    notes = " ".join(batch.report["environment"]["notes"])
    assert "RAN" not in notes, notes


def _hidden_lines() -> set[str]:
    """Lines of the pilot exercises' hidden checks and solutions that nothing public or submitted holds."""
    public = set()
    for path in [*ROOT.glob("exercises/*/*/test_public.py"), *ROOT.glob("exercises/*/*/[!t]*.py"),
                 *SUBMISSIONS.rglob("*.py"), *SUBMISSIONS.rglob("*.attack")]:
        public |= {line.strip() for line in path.read_text().splitlines()}
    secret = set()
    for ex in ("tensors/05_broadcast_bias", "autograd/10_autograd_basics", "tensors/09_sparse_adjacency"):
        for path in [ROOT / "exercises" / ex / "test_hidden.py", *(ROOT / "solutions" / ex).glob("*.py")]:
            secret |= {line.strip() for line in path.read_text().splitlines() if len(line.strip()) >= 24}
    return secret - public


@pytest.mark.parametrize("runtime", _runtimes("local", "docker"))
def test_nothing_is_left_behind(runtime, request, batches):
    _use(request, runtime)
    batch = batches("main", runtime)
    assert _ax_processes() == []
    assert batch.evidence["judges"] or runtime == "docker", "no judge was seen running"
    alive = [pid for pid in batch.evidence["judges"] if os.path.exists(f"/proc/{pid}")]
    assert alive == [], f"judges still running: {alive}"
    # only this batch's containers (its run label): other graders, or an earlier run killed
    # half-way, may have containers of their own on the same daemon
    assert batch.evidence["containers_left"] == [], batch.evidence["containers_left"]


@pytest.mark.parametrize(("attack", "runtime"), _cases(CONTAINMENT[:2]))
def test_worker_tree_and_scratch_are_contained(attack, runtime, request, batches):
    """Memory over the worker's whole process tree; scratch removed however deep it goes; the
    submission graded after them (victim) is graded in full."""
    _use(request, runtime)
    assert_contained(batches("containment", runtime), attack)


@pytest.mark.parametrize(("attack", "runtime"), _cases(HIDDEN))
def test_forged_observation_is_refused(attack, runtime, request, batches):
    """Probes observe the candidate's code in the worker; a submission that replaces what they
    rely on must not turn their observations into points."""
    _use(request, runtime)
    assert_contained(batches("hidden", runtime), attack)


@pytest.mark.parametrize("runtime", _runtimes("local", "docker"))
def test_single_file_submissions_cannot_read_each_other(runtime, request, batches):
    _use(request, runtime)
    batch = batches("single", runtime)
    peeker = batch.exercise("peeker", "05_broadcast_bias")
    assert peeker["score"] == 0
    assert all(re.search(r"(Permission denied|No such file or directory): '[^']*/victim\.py'", c["message"])
               for c in peeker["checks"]), [c["message"][:300] for c in peeker["checks"]]
    victim = batch.exercise("victim", "05_broadcast_bias")
    assert victim["score"] == victim["max_score"] == 10
    assert "VICTIM-ANSWER-7f3a" not in json.dumps(batch.report)


@pytest.mark.parametrize("runtime", _runtimes("local", "docker"))
def test_fork_server_killed_or_stopped_without_landlock(runtime, request, batches):
    """Without Landlock's signal scoping a worker tries to kill (SIGKILL) or stop (SIGSTOP) the
    fork server, its parent. Local: the worker runs as PID 1 of a PID namespace of its own
    (grader.sandbox.namespaces): it has no parent to name (getppid() is 0, and signal 0 is its own
    process group), nothing outside is touched, the checks fail on their own (the first at its time
    limit), the honest check and exercise 10 pass, and nothing is reported about the fork server.
    Docker: the worker can signal the fork server (same user, no PID namespace inside the
    container): reported, and the later checks fail saying why (the judge cannot start processes
    as the worker's user)."""
    _use(request, runtime)
    batch = batches("no_landlock", runtime)
    notes = batch.report["environment"]["notes"]
    ex = batch.exercise("zygote_killer", "05_broadcast_bias")
    ref = batch.exercise("zygote_killer", "10_autograd_basics")
    by_name = {c["name"]: c for c in ex["checks"]}
    if runtime == "local":
        assert re.search(TIME_LIMIT, by_name[FEATURE]["message"]), by_name[FEATURE]["message"]
        assert not any("fork server" in n for n in notes), notes
        assert by_name[SAMPLE]["outcome"] == "failed" and "differs from the expected values" in by_name[SAMPLE]["message"]
        assert by_name[PAIRWISE]["outcome"] == "passed"
        assert ref["score"] == ref["max_score"] == 10
    else:
        assert "fork server was killed" in by_name[FEATURE]["message"], by_name[FEATURE]["message"]
        assert any("the worker fork server was killed" in n and "zygote_killer" in n for n in notes), notes
        later = [c for c in ex["checks"] + ref["checks"] if c["name"] != FEATURE]
        assert all("cannot be restarted inside the container" in c["message"] for c in later), \
            [c["message"] for c in later]
        assert ex["score"] == 0 and ref["score"] == 0 if runtime == "local" else "reported"


@pytest.mark.parametrize("runtime, name", [
    *[pytest.param("docker", n, id=f"{n}-docker", marks=pytest.mark.docker) for n in NO_LANDLOCK["docker"]],
    *[pytest.param("local", n, id=f"{n}-local") for n in NO_LANDLOCK["local"]]])
def test_walls_hold_without_landlock(runtime, name, request, batches):
    """Without Landlock, the container's own walls (two users, read-only root and submission, no
    network, the judge's private folders), or locally the worker's namespaces (the checkout and
    /tmp covered, what is bound back read-only, its own PID namespace), contain the attacks."""
    _use(request, runtime)
    if runtime == "local" and namespaces.available() is not None:
        pytest.skip(f"no namespaces here: {namespaces.available()}")
    batch = batches("no_landlock", runtime)
    attack = next(a for a in MAIN if a.name == name)
    assert_contained(batch, attack)
    for text in batch.texts.values():
        assert SECRET not in text


def test_announced_size_is_not_allocated():
    """The judge's receive buffer grows with what arrives, not with what a worker announces."""
    from grader.sandbox.protocol import ChannelTimeout, recv_msg

    judge, worker = socket.socketpair()
    worker.sendall(struct.pack("<Q", (1 << 31) - 1) + b"x" * 100)
    tracemalloc.start()
    try:
        with pytest.raises(ChannelTimeout):
            recv_msg(judge, deadline=time.monotonic() + 0.3)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        judge.close()
        worker.close()
    assert peak < 8 << 20, f"{peak >> 20} MiB allocated for 108 bytes received"


def test_torch_changing_itself_is_not_tampering():
    """The probe guard must not fail honest code: torch rebinds some of its own attributes
    (an optimizer's first step, set_default_dtype, torch.compile), which is not the candidate
    replacing them."""
    import subprocess
    import sys

    script = """if True:
        import time, torch
        from grader.sandbox.zygote import warm_up
        warm_up(torch, {"autograd"})
        from grader.sandbox.tamper import TamperGuard
        guard = TamperGuard()
        layer = torch.nn.Linear(2, 2)
        layer(torch.ones(1, 2)).sum().backward()
        torch.optim.SGD(layer.parameters(), lr=0.1).step()  # imports torch._dynamo, which wraps manual_seed
        torch.set_default_dtype(torch.float64)
        torch.compile(torch.nn.Linear(2, 2), backend="eager")(torch.ones(1, 2))
        torch.manual_seed(1)
        assert guard.changed() == [], guard.changed()
        time.perf_counter = lambda: 0.0
        torch.Tensor.to_dense = lambda self: self
        assert sorted(guard.changed()) == ["time.perf_counter", "torch.Tensor.to_dense"], guard.changed()
        # torch's own decorators and a claimed __wrapped__ are no provenance
        real_equal, real_seed, real_init = torch.equal, torch.manual_seed, torch.nn.Module.__init__
        torch.equal = torch.no_grad()(lambda a, b: True)
        torch.equal.__wrapped__ = real_equal
        torch.manual_seed = torch._disable_dynamo(lambda seed: None)
        torch.manual_seed.__wrapped__ = real_seed
        torch.nn.Module.__init__ = torch._disable_dynamo(real_init)
        torch._C._get_cudnn_benchmark = lambda: False
        changed = sorted(guard.changed())
        assert changed == ["time.perf_counter", "torch.Tensor.to_dense", "torch._C._get_cudnn_benchmark",
                           "torch.equal", "torch.manual_seed", "torch.nn.Module.__init__"], changed
    """
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-2000:]


@pytest.mark.parametrize("runtime", _runtimes("local", "docker"))
def test_candidate_reports_carry_no_hidden_check(runtime, request, batches):
    """The candidate's form of every report (what a pull request shows) holds no hidden check's
    name, location or message, so no exception text a submission crafted in one (probe_snoop puts
    a probe's compiled code in it); the interviewer's form keeps them."""
    _use(request, runtime)
    batch = batches("hidden", runtime)
    hidden = {c["name"].split("[")[0] for ex in batch.report["exercises"] for c in ex["checks"]
              if c["visibility"] == "hidden"}
    assert hidden
    for kind, text in batch.texts.items():
        if not kind.startswith("candidate-"):
            continue
        assert "PROBE-CODE" not in text, f"a probe's code reached the {kind} report"
        assert "test_hidden.py" not in text
        # whole names: a hidden test_multilabel_predict is not leaked by a public test_multilabel_predict_example.
        # A check's name is an identifier, so it occurs whole exactly where it is one of the text's
        # maximal runs of word characters: one pass over the text, not one regular expression search
        # per name (hundreds of names over megabytes of HTML took a minute of CPU per runtime)
        words = set(re.findall(r"\w+", text))
        assert all(re.fullmatch(r"\w+", name) for name in hidden), sorted(hidden)
        leaked = sorted(hidden & words)
        assert not leaked, f"hidden check names in the {kind} report: {leaked[:5]}"
    snoop = [c["message"] for c in batch.exercise("probe_snoop", "05_broadcast_bias")["checks"]]
    assert any("PROBE-CODE" in m for m in snoop), "probe_snoop no longer reaches its probe: the test proves nothing"


@pytest.mark.docker
def test_docker_grades_a_candidate_bundle_with_the_hidden_checks(image, tmp_path):
    """`grader grade .` in a candidate's copy of the bundle, on docker: the checks come from the
    image (public and hidden), never from the bundle's folders (public only)."""
    from grader.export import export_bundle

    bundle = tmp_path / "bundle"
    export_bundle(bundle, exercises=["05"], root=ROOT)
    answer = next(bundle.glob("exercises/tensors/05_broadcast_bias/broadcast_bias.py"))
    shutil.copy(REFERENCE_05, answer)
    run = grade([bundle], exercises=["05"], runtime="docker", root=bundle,
                runtime_options={"image": IMAGE, "gpus": "none"})
    checks = run.submissions[0].exercises[0].checks
    assert {c.visibility for c in checks} == {"public", "hidden"}, [(c.name, c.visibility) for c in checks]
    assert run.score == run.max_score == 10


@pytest.mark.docker
def test_a_stale_image_is_refused(image, tmp_path):
    """A checkout whose checks differ from the image's: refused, or graded with a note when allowed."""
    from grader.errors import StaleImage

    root = tmp_path / "checkout"
    for part in ("grader", "exercises", "solutions"):
        shutil.copytree(ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    for part in ("pyproject.toml", "constraints.txt", "docker/Dockerfile"):
        (root / part).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / part, root / part)
    hidden = root / "exercises" / "tensors" / "05_broadcast_bias" / "test_hidden.py"
    hidden.write_text(hidden.read_text() + "\n# changed after the image was built\n")
    options = {"image": IMAGE, "gpus": "none"}
    with pytest.raises(StaleImage, match="--allow-stale-image"):
        grade([REFERENCE_05], exercises=["05"], runtime="docker", root=root, runtime_options=options)
    run = grade([REFERENCE_05], exercises=["05"], runtime="docker", root=root, visibility="public",
                runtime_options={**options, "allow_stale_image": True})
    assert any(n.startswith("graded with a stale image") for n in run.environment.notes)
    auto = grade([REFERENCE_05], exercises=["05"], runtime="auto", root=root, visibility="public",
                 runtime_options=options)
    assert auto.environment.runtime == "local" and "is stale" in auto.environment.notes[0]


@pytest.mark.parametrize("runtime", _runtimes("local", "docker"))
def test_dev_shm_is_private(runtime, request, batches):
    """The worker may write /dev/shm (torch and multiprocessing share memory there), but in a
    /dev/shm of its own (local: its mount namespace; docker: its container): nothing outlives it.
    This was a known gap of the local runtime."""
    _use(request, runtime)
    batch = batches("main", runtime)
    messages = [c["message"] for c in batch.exercise("write_outside", "05_broadcast_bias")["checks"]]
    assert all(re.search(r"dev shm: (written|Permission denied)", m) for m in messages), messages
    assert not [p for p in batch.evidence["written_markers"] if p.startswith("/dev/shm/")]
