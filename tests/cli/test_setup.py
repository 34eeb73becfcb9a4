"""The set-up a new user goes through: `make demo` installs only what grading needs, and the
package metadata builds without setuptools' deprecation warnings."""
from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_make_demo_installs_no_dev_extras(tmp_path):
    # a dry run into a venv that does not exist yet: the commands a fresh clone's `make demo` runs
    result = subprocess.run(["make", "-n", "demo", f"VENV={tmp_path / 'venv'}"], cwd=ROOT, capture_output=True,
                            text=True, check=True)
    installs = [line for line in result.stdout.splitlines() if "pip install" in line and "-e" in line]
    assert installs, result.stdout
    assert not [line for line in installs if "[dev" in line], installs
    assert "grader grade examples/sample_submission" in result.stdout


def test_make_install_still_brings_the_dev_tools(tmp_path):
    result = subprocess.run(["make", "-n", "install", f"VENV={tmp_path / 'venv'}"], cwd=ROOT, capture_output=True,
                            text=True, check=True)
    assert "-e '.[dev" in result.stdout


def test_license_is_an_spdx_string_with_a_setuptools_that_reads_it():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert data["project"]["license"] == "MIT"
    (requirement,) = [r for r in data["build-system"]["requires"] if r.startswith("setuptools")]
    minimum = tuple(int(x) for x in re.search(r">=\s*([\d.]+)", requirement).group(1).split("."))
    assert minimum >= (77,), "setuptools reads the SPDX license string from version 77 on"
