# The two commands of the README's quick start: `make demo` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test install lint docs clean

# The grader and what it needs to run (all that `make demo` installs)...
$(BIN)/grader: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e .
	@# an editable install compiles nothing, and where PYTHONDONTWRITEBYTECODE is set no run ever
	@# writes a cache: every grader process compiled the package (0.15-0.2 s of CPU a grade)
	$(BIN)/python -m compileall -q grader
	touch $@

# ...and what `make test` needs besides: the development tools (ruff, cog, actionlint, playwright,
# ray, pexpect) and the exercises' extra (onnx, onnxruntime, onnxscript, tensorboard).
$(VENV)/.dev-installed: $(BIN)/grader
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev,exercises]'
	touch $@

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

## docs: regenerate the README's CLI reference from --help
docs: install
	$(BIN)/cog -r README.md

clean:
	rm -rf $(VENV) reports build *.egg-info
