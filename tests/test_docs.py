"""The README's CLI reference is generated from --help (cog) and must be up to date; every
command must appear in it."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from grader.cli import cli

ROOT = Path(__file__).resolve().parent.parent


def test_cli_reference_is_current():
    result = subprocess.run([sys.executable, "-m", "cogapp", "--check", "README.md"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, f"README's CLI reference is stale: run `make docs`\n{result.stdout}{result.stderr}"


def test_every_command_is_documented():
    readme = (ROOT / "README.md").read_text()
    for name in cli.commands:
        assert f"$ grader {name} --help" in readme, f"`grader {name}` is missing from the README's CLI reference"


def test_quick_start_commands_exist():
    readme = (ROOT / "README.md").read_text()
    makefile = (ROOT / "Makefile").read_text()
    assert "$ make demo" in readme and "$ make test" in readme
    assert "\ndemo:" in makefile and "\ntest:" in makefile
    assert "make test" in (ROOT / ".ci" / "run").read_text()
