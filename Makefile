# The two commands of the README's quick start: `make demo` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test install lint docs clean

# pip installs without compiling, and `compileall -j 0` compiles on every core afterwards: pip's own
# compilation is serial (a third of the install's time, most of it torch). Where
# PYTHONDONTWRITEBYTECODE is set (as on our CI machine) no run writes a cache, so without this every
# process would compile what it imports; an editable install compiles nothing of the grader itself.
# Packages' own files that do not compile on this Python (e.g. torch's py312 samples) are skipped,
# as pip skips them, and so is what neither grading nor the tests import (NOT_IMPORTED: packages'
# own test suites, pip, matplotlib and its fonts; not torch.testing._internal or setuptools, which
# dynamo, the ONNX exporter and inductor import): 25 s instead of 30 s on 2 cores. A module left
# out still imports, compiled in memory.
# install_with(EXTRAS): the venv (made when missing), the grader with EXTRAS, then that bytecode.
NOT_IMPORTED := '/tests?/|/site-packages/(pip|matplotlib|fontTools)/'
define install_with
	[ -x $(BIN)/python ] || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --no-compile -c constraints.txt -e '.$(1)'
	$(BIN)/python -m compileall -q -j 0 -x $(NOT_IMPORTED) $(VENV)/lib >/dev/null 2>&1 || true
	$(BIN)/python -m compileall -q grader
endef

# The grader and what it needs to run (all that `make demo` installs)...
$(BIN)/grader: pyproject.toml constraints.txt
	$(call install_with,)
	touch $@

# ...and what `make test` needs besides: the development tools (ruff, cog, actionlint, playwright,
# ray, pexpect) and the exercises' extra (onnx, onnxruntime, onnxscript, tensorboard). From nothing,
# one pip run installs it all (two runs resolved and installed twice: ~20 s more on 2 cores).
DEV_EXTRAS := [dev,exercises]
$(VENV)/.dev-installed: pyproject.toml constraints.txt
	$(call install_with,$(DEV_EXTRAS))
	touch $(BIN)/grader $@

install: $(VENV)/.dev-installed

## demo: grade the bundled sample submission on the local runtime; reports go to reports/
demo: $(BIN)/grader
	$(BIN)/grader grade examples/sample_submission --runtime local \
		--json reports/report.json --junit reports/junit.xml \
		--gradescope reports/results.json --markdown reports/summary.md --html reports/report.html
	@echo "Reports written to reports/: report.json junit.xml results.json summary.md report.html"

## test: lint, then run the grader's own test suite (what .ci/run runs)
test: install
	$(BIN)/ruff check grader tests benchmarks
	$(BIN)/python -m pytest -q -n auto --dist loadfile --no-loadscope-reorder --durations=25

lint: install
	$(BIN)/ruff check grader tests benchmarks

## docs: regenerate the docs' generated parts (docs/cli.md from --help, sample outputs) with cog
docs: install
	$(BIN)/cog -r README.md docs/*.md

clean:
	rm -rf $(VENV) reports build *.egg-info
