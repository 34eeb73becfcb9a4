"""`grader watch` driven as a candidate drives it: in a real pseudo-terminal (pexpect) and, for
plain mode, through pipes; each session a real `grader` process in an exported bundle, saving
real files, with the warm judge, its fork server and workers as real processes.

Two sessions serve every test of their kind (each start costs a few seconds): the tests of a
class run in order and share the session."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect", reason="pexpect drives the terminal: install the dev extras")
from pexpect.popen_spawn import PopenSpawn  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GRADER = str(Path(sys.executable).parent / "grader")
REF = ROOT / "solutions" / "tensors" / "05_broadcast_bias" / "broadcast_bias.py"
STUB_REL = Path("exercises/tensors/05_broadcast_bias/broadcast_bias.py")
TIMEOUT = 90


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("watch") / "bundle"
    subprocess.run([GRADER, "export", str(out), "-e", "05,06"], cwd=ROOT, check=True, capture_output=True)
    return out


def _env(tmp: Path) -> dict[str, str]:
    """A private TMPDIR: every process of the session (warm judge, fork server, workers) carries
    it in its command line, so a leftover one can be found."""
    tmp.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("GRADER_ROOT", "PYTHONPATH")}
    return env | {"TMPDIR": str(tmp), "COLUMNS": "140", "LINES": "60"}


def leftovers(marker: Path) -> list[str]:
    """Processes whose command line mentions `marker` (the session's TMPDIR)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if str(marker) in cmdline and state != "Z":
            found.append(f"{entry}: {cmdline}")
    return found


def no_leftovers(marker: Path, within_s: float = 5.0) -> list[str]:
    deadline = time.monotonic() + within_s
    while (found := leftovers(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def save(path: Path, text: str) -> None:
    path.write_text(text)


def vim_save(path: Path, text: str) -> None:
    """How vim writes a file by default (backupcopy=auto on a plain file): probe file, rename the
    original to a backup, write a new file, remove the backup."""
    probe = path.with_name("4913")
    probe.write_text("")
    probe.unlink()
    backup = path.with_name(path.name + "~")
    os.rename(path, backup)
    path.write_text(text)
    backup.unlink()


def _sigint_default() -> None:
    """SIGINT as a terminal's user has it: a shell running the suite in the background (`... &`)
    ignores it for its children, and a Python started with it ignored never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


# --- in a terminal -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tty_session(bundle, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tty-tmp")
    child = pexpect.spawn(GRADER, ["watch"], cwd=str(bundle), env=_env(tmp), encoding="utf-8",
                          timeout=TIMEOUT, dimensions=(60, 140), preexec_fn=_sigint_default)
    yield child, bundle, tmp
    if child.isalive():
        child.kill(signal.SIGKILL)


class TestTerminal:
    """One `grader watch` in a pseudo-terminal, driven through a whole exercise."""

    @pytest.fixture
    def session(self, tty_session):
        return tty_session

    def test_starts_at_the_first_unsolved_exercise_and_shows_failures(self, session):
        child, bundle, _ = session
        child.expect(r"grader watch.*05_broadcast_bias")
        child.expect(r"0/3 checks passed")
        child.expect(r"✗\S* test_feature_bias_example")
        child.expect(r"Progress ░+ 0/2 exercises pass their public checks")
        child.expect("h hint · l list · n next unsolved · r rerun · q quit")

    def test_a_wrong_answer_saved_shows_a_cross(self, session):
        child, bundle, _ = session
        wrong = REF.read_text().replace("return x + bias.unsqueeze(1)", "return x + bias")
        save(bundle / STUB_REL, wrong)
        child.expect(r"2/3 checks passed")
        child.expect(r"✗\S* test_sample_bias_example")

    def test_the_reference_saved_passes_and_offers_the_next_exercise(self, session):
        child, bundle, _ = session
        save(bundle / STUB_REL, REF.read_text())
        child.expect(r"3/3 checks passed")
        child.expect(r"✓\S* test_pairwise_example")
        child.expect(r"Progress █+░+ 1/2 exercises pass their public checks")
        child.expect(r"05_broadcast_bias passes all its public checks\. Next unsolved: 06_gather_and_masks "
                     r"\(press n to go on\)")

    def test_h_shows_the_next_hint(self, session):
        child, _, _ = session
        child.send("h")
        child.expect(r"Hint 1/3 for 05_broadcast_bias:")
        child.expect(r"2 more hints: press h again")
        child.send("h")
        child.expect(r"Hint 2/3 for 05_broadcast_bias:")

    def test_l_lists_the_exercises_with_their_status(self, session):
        child, _, _ = session
        child.send("l")
        child.expect(r"\n05_broadcast_bias\s+easy\s+10\s+passing 3/3\s+2\s")
        child.expect(r"\n06_gather_and_masks\s+medium\s+20\s+not started\s+-\s")
        child.expect(r"Type an exercise's number \(e\.g\. 05\) or name and Enter to switch")
        child.send("\x1b")  # back to the exercise
        child.expect("h hint · l list")

    def test_n_goes_to_the_next_unsolved_exercise(self, session):
        child, _, _ = session
        child.send("n")
        child.expect(r"grader watch.*06_gather_and_masks")
        child.expect(r"06_gather_and_masks\S* \(tensors/06_gather_and_masks/gather_and_masks\.py\): 0/4 checks passed")

    def test_l_picks_an_exercise_by_number(self, session):
        """By its number as shown everywhere else (05, or 5), not by its place in the list."""
        child, _, _ = session
        child.send("l")
        child.expect("Type an exercise's number")
        child.send("5\r")
        child.expect(r"05_broadcast_bias\S* \(tensors/05_broadcast_bias/broadcast_bias\.py\): 3/3 checks passed")
        child.send("l")
        child.expect("Type an exercise's number")
        child.send("10\r")  # no exercise 10 in this bundle: said so, watching goes on
        child.expect(r"no exercise '10' in this bundle: press l and type one of 05, 06 \(or its name\)")
        child.send("l")
        child.expect("Type an exercise's number")
        child.send("gather\r")  # a name's prefix, as `grader check gather` takes it
        child.expect(r"06_gather_and_masks\S* \(tensors/06_gather_and_masks/gather_and_masks\.py\): 0/4 checks passed")
        child.send("l")
        child.expect("Type an exercise's number")
        child.send("05\r")
        child.expect(r"05_broadcast_bias\S* \(tensors/05_broadcast_bias/broadcast_bias\.py\): 3/3 checks passed")

    def test_all_passing_says_what_the_hidden_checks_cover(self, session):
        child, bundle, _ = session
        child.send("n")
        child.expect(r"06_gather_and_masks\S* \(tensors")
        save(bundle / "exercises/tensors/06_gather_and_masks/gather_and_masks.py",
             (ROOT / "solutions/tensors/06_gather_and_masks/gather_and_masks.py").read_text())
        child.expect(r"4/4 checks passed")
        words = ("All 2 exercises pass their public checks. Your work is graded later by hidden checks that test "
                 "the same functions more thoroughly. They cover: shape, dtype, value, grad, device")
        child.expect(r"\s+".join(map(re.escape, words.split())))  # the terminal wraps it

    def test_q_quits_with_0_and_leaves_no_process(self, session):
        child, _, tmp = session
        child.send("q")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
        assert no_leftovers(tmp) == []


# --- plain mode, through pipes ----------------------------------------------------------------------------

BLOCK = re.compile(r"--- (\d\d_\w+) · ([^·]+) · \d\d:\d\d:\d\d ---")


@pytest.fixture(scope="module")
def plain_session(tmp_path_factory):
    out = tmp_path_factory.mktemp("plain") / "bundle"
    subprocess.run([GRADER, "export", str(out), "-e", "05,06"], cwd=ROOT, check=True, capture_output=True)
    tmp = tmp_path_factory.mktemp("plain-tmp")
    child = PopenSpawn([GRADER, "watch", "05", "--timeout-s", "3"], cwd=str(out), env=_env(tmp), preexec_fn=_sigint_default,
                       encoding="utf-8", timeout=TIMEOUT)
    yield child, out, tmp
    if child.proc.poll() is None:
        child.proc.kill()


class TestPlain:
    """One `grader watch 05` whose stdout is a pipe: plain mode, one block per rerun."""

    @pytest.fixture
    def session(self, plain_session):
        return plain_session

    def blocks_so_far(self, child) -> list[str]:
        return BLOCK.findall(child.before or "")

    def test_plain_output_is_one_block_per_run_with_no_terminal_codes(self, session):
        child, _, _ = session
        child.expect(r"grader watch: 2 exercises in .*\. Save your file to rerun its public checks\. Keys: h hint")
        child.expect(r"--- 05_broadcast_bias · started · \d\d:\d\d:\d\d ---\r?\n"
                     r"05_broadcast_bias \(tensors/05_broadcast_bias/broadcast_bias\.py\): 0/3 checks passed\r?\n"
                     r"  ✗ test_feature_bias_example \(shape\)\r?\n"
                     r"      broadcast_bias\.add_feature_bias\(\) raised NotImplementedError\r?\n")
        child.expect(r"Progress ░{30} 0/2 exercises pass their public checks\r?\n")
        assert "\x1b" not in child.before and "\x1b" not in child.after  # nothing redrawn, no colours

    def test_a_vim_style_rename_save_triggers_exactly_one_rerun(self, session):
        child, bundle, _ = session
        vim_save(bundle / STUB_REL, REF.read_text())
        child.expect(r"3/3 checks passed")
        assert len(self.blocks_so_far(child)) == 1 and "is gone" not in child.before, child.before
        child.expect(r"Progress ")
        time.sleep(1.5)  # time for a second (wrong) rerun to show up
        child.sendline("r")  # a marker: the next block is the one r asks for
        child.expect(r"--- 05_broadcast_bias · rerun \(r\) · ")
        assert self.blocks_so_far(child) == [], f"more than one rerun for one save: {child.before}"
        child.expect(r"Progress ")

    def test_a_burst_of_saves_gives_one_result(self, session):
        child, bundle, _ = session
        wrong = REF.read_text().replace("return x + bias.unsqueeze(1)", "return x + bias")
        for text in (wrong, REF.read_text(), wrong, REF.read_text()):
            save(bundle / STUB_REL, text)
            time.sleep(0.02)
        child.expect(r"Progress ")
        assert len(self.blocks_so_far(child)) == 1 and "3/3 checks passed" in child.before, child.before
        time.sleep(1.5)
        child.sendline("r")
        child.expect(r"--- 05_broadcast_bias · rerun \(r\) · ")
        assert "2/3 checks passed" not in child.before and self.blocks_so_far(child) == [], child.before
        child.expect(r"3/3 checks passed")

    def test_a_newer_save_cancels_the_rerun_in_progress(self, session):
        child, bundle, _ = session
        save(bundle / STUB_REL, REF.read_text().replace("return x + bias\n", "while True:\n        pass\n"))
        time.sleep(1.0)  # its rerun is in the endless loop now (the time limit is 3 s)
        save(bundle / STUB_REL, REF.read_text())
        child.expect(r"3/3 checks passed")
        assert "time limit" not in child.before, "the endless loop's rerun was not cancelled"
        child.expect(r"Progress ")

    def test_a_syntax_error_shows_its_line_and_watching_goes_on(self, session):
        child, bundle, _ = session
        broken = REF.read_text().replace("return x + bias\n", "return x +\n")
        save(bundle / STUB_REL, broken)
        line = broken.splitlines().index("    return x +") + 1
        child.expect(rf"exercises/tensors/05_broadcast_bias/broadcast_bias\.py:{line}: SyntaxError: invalid syntax\r?\n"
                     r"        return x \+\r?\n"
                     r"                  \^")
        assert "Traceback" not in child.before
        save(bundle / STUB_REL, REF.read_text())
        child.expect(r"3/3 checks passed")

    def test_an_endless_loop_fails_its_check_and_the_next_save_reruns(self, session):
        child, bundle, _ = session
        save(bundle / STUB_REL, REF.read_text().replace("return x + bias\n", "while True:\n        pass\n"))
        child.expect(r"2/3 checks passed")
        child.expect(r"worker killed: time limit 3 s exceeded while broadcast_bias\.add_feature_bias\(\)")
        save(bundle / STUB_REL, REF.read_text())
        child.expect(r"3/3 checks passed")

    def test_a_deleted_file_names_grader_reset_and_watching_goes_on(self, session):
        child, bundle, _ = session
        (bundle / STUB_REL).unlink()
        child.expect(r"exercises/tensors/05_broadcast_bias/broadcast_bias\.py is gone \(deleted or renamed\)\. "
                     r"Restore the stub with `grader reset 05`")
        save(bundle / STUB_REL, REF.read_text())
        child.expect(r"3/3 checks passed")

    def test_a_crashed_warm_judge_is_restarted_and_reruns(self, session):
        child, _, tmp = session
        servers = [line.split(":")[0] for line in leftovers(tmp) if "grader.practice.server" in line]
        assert len(servers) == 1, leftovers(tmp)
        os.kill(int(servers[0]), signal.SIGKILL)
        child.expect(r"--- 05_broadcast_bias · judge restarted · ")
        child.expect(r"3/3 checks passed")
        child.expect(r"the warm judge stopped \(status -9\): restarting it")
        assert not any(line.startswith(f"{servers[0]}:") for line in leftovers(tmp))

    def test_ctrl_c_exits_130_and_leaves_no_process(self, session):
        child, bundle, tmp = session
        save(bundle / STUB_REL, REF.read_text().replace("return x + bias\n", "while True:\n        pass\n"))
        child.expect(r"--- 05_broadcast_bias · file saved|Progress")
        time.sleep(0.5)  # a worker is looping now, or about to
        assert leftovers(tmp), "the warm judge should be running"
        child.kill(signal.SIGINT)
        child.expect(pexpect.EOF)
        assert child.wait() == 130
        assert no_leftovers(tmp) == []


# --- usage errors --------------------------------------------------------------------------------------

def test_watch_outside_a_bundle_says_where_to_run_it(tmp_path):
    result = subprocess.run([GRADER, "watch"], cwd=tmp_path, capture_output=True, text=True, env=_env(tmp_path / "t"),
                            timeout=60)
    assert result.returncode == 2
    assert result.stderr.startswith(f"Error: `grader watch` works on the exercise files of the bundle or checkout you "
                                    f"run it in, and {tmp_path.resolve()} is not inside one: cd into your bundle")


def test_watch_of_an_unknown_exercise_is_a_usage_error(bundle, tmp_path):
    result = subprocess.run([GRADER, "watch", "99"], cwd=bundle, capture_output=True, text=True,
                            env=_env(tmp_path / "t"), timeout=60)
    assert result.returncode == 2
    assert result.stderr == "Error: unknown exercise '99': see `grader list` for the exercises\n"


def test_reset_keeps_a_backup_of_the_candidates_file(bundle, tmp_path):
    bundle = Path(shutil.copytree(bundle, tmp_path / "bundle"))
    stub = bundle / "exercises" / "tensors" / "06_gather_and_masks" / "gather_and_masks.py"
    stub.write_text((bundle / ".grader" / "stubs" / "06_gather_and_masks.py.orig").read_text())
    original = stub.read_text()
    mine = original.replace("raise NotImplementedError", "return None  # my work", 1)
    stub.write_text(mine)
    result = subprocess.run([GRADER, "reset", "06", "--yes"], cwd=bundle / "exercises", capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    backups = list(stub.parent.glob("gather_and_masks.py.*.bak"))
    assert len(backups) == 1 and backups[0].read_text() == mine
    assert stub.read_text() == original
    assert result.stdout == f"Reset {stub} to its stub. Your file is kept in {backups[0]}\n"
