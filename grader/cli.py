"""The `grader` command line. Thin by design: parse, call an engine function, render.

Exit codes: 0 graded (whatever the score), 1 grader or infrastructure error, 2 usage error,
3 score under --fail-under (for `check`: a public check failed; for `validate`: a problem found).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import click
from rich.console import Console

from grader import __version__
from grader.cli_batch import batch_options
from grader.completion import complete_exercises
from grader.errors import ExitCode, GraderError, UsageError
from grader.grading.options import DEFAULTS, RUNTIMES

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _console(stderr: bool = False) -> Console:
    console = Console(highlight=False, stderr=stderr)
    if not console.is_terminal:
        console = Console(highlight=False, width=120, stderr=stderr)
    return console


def _inert(text: object, newlines: bool = False) -> str:
    """Text a submission can influence (its name, paths, messages), for stderr: no control
    character, no line that starts a GitHub workflow command (`grader.reports.safe.inert`)."""
    from grader.reports import safe

    return safe.inert(text, newlines)


def handle_errors(fn):
    """Turn GraderError into a one-line message and its exit code; nothing else is caught."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except GraderError as exc:  # it may quote a submission's path or name: printed inert
            click.echo(f"Error: {_inert(exc, newlines=True)}", err=True)
            sys.exit(int(exc.exit_code))
        except KeyboardInterrupt:  # Ctrl-C outside grading (grading itself stops cleanly: Interrupted)
            click.echo("Interrupted", err=True)
            sys.exit(int(ExitCode.INTERRUPTED))

    return wrapper


def limit_options(fn):
    fn = click.option("--timeout-s", type=click.FloatRange(min=0.1), default=None,
                      help="Time limit per check in seconds (default: each exercise's timeout_s).")(fn)
    fn = click.option("--memory-gb", type=float, default=None, callback=_memory_gb,
                      help="Memory limit per worker (its whole process tree) in GiB, at least 0.5: a worker "
                           "needs about 0.25 GiB for torch alone (default: each exercise's [limits] memory_mb, "
                           "else 4).")(fn)
    return fn


def output_options(fn):
    fn = click.option("--feedback-dir", "feedback_dir", type=click.Path(file_okay=False, path_type=Path),
                      multiple=True, callback=_once,
                      help="Write one report per submission for its candidate into this folder, to send them: "
                           "NAME.html and NAME.md, named after the submission, hidden checks only in aggregate "
                           "(as --audience candidate).")(fn)
    fn = click.option("--csv-kinds", "csv_kinds", is_flag=True,
                      help="In --csv, also one column per exercise and check kind (its points).")(fn)
    for name, what in (("csv", "a gradebook CSV: one row per submission, one column per exercise (its points), "
                               "the total, percent and flags; safe to open in a spreadsheet"),
                       ("html", "the HTML report (one self-contained page)"), ("json", "the JSON report"),
                       ("junit", "JUnit XML"), ("gradescope", "Gradescope results.json"),
                       ("markdown", "the Markdown summary")):
        if name == "markdown":
            fn = click.option("--markdown-limit", metavar="pr|step|BYTES", default="step", show_default=True,
                              callback=_markdown_limit,
                              help="Size cap of the Markdown summary: pr (a pull-request comment, 64 KiB), step "
                                   "(a step summary, 1 MiB) or bytes; a longer one is cut with a notice.")(fn)
        fn = click.option(f"--{name}", f"{name}_path", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
                          multiple=True, callback=_once,  # given twice: refused, not the last silently kept
                          help=f"Write {what} to this file (- for standard output).")(fn)
    return fn


def _once(ctx: click.Context, param: click.Parameter, value: tuple) -> object:
    """An option that names one file or folder, given twice: refused (click would keep the last)."""
    if not value:
        return None
    if len(value) > 1:
        raise click.BadParameter(f"given {len(value)} times ({', '.join(map(str, value))}): give it once (each "
                                 f"report is one file)")
    return value[0]


def _columns_of(rows, right=frozenset()) -> str:
    """Plain aligned columns (`grader.reports.terminal.columns`, shared with `grader watch`)."""
    from grader.reports.terminal import columns

    return columns(rows, right=right)


def _stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def _memory_gb(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    from grader.sandbox.limits import MIN_MEMORY_GB

    if value is not None and value < MIN_MEMORY_GB:
        raise click.BadParameter(f"{value:g} GiB cannot even import torch in a worker, so every check would fail "
                                 f"for the grader's setting, not the candidate's code: use at least "
                                 f"{MIN_MEMORY_GB:g}")
    return value


def _markdown_limit(ctx: click.Context, param: click.Parameter, value: str) -> int:
    from grader.reports.markdown import parse_limit

    try:
        return parse_limit(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _limits(memory_gb: float | None):
    from grader.sandbox.limits import Limits

    if memory_gb is None:
        return Limits()
    return Limits(memory_bytes=int(memory_gb * (1 << 30)), explicit=("memory_bytes",))


def _warn_problems(catalog) -> None:
    for name, problem in catalog.problems.items():
        click.echo(f"Warning: exercise {name} is skipped: {problem}", err=True)


@click.group(context_settings=CONTEXT, invoke_without_command=True)
@click.version_option(__version__, prog_name="grader")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Grade PyTorch coding exercises: public checks for candidates, hidden checks for graders.
    `grader` alone prints this help and exits 0.

    \b
    Candidates:    grader watch, grader hint 05, grader reset 05, grader list, grader check 05,
                   grader submit (an archive to send, for take-homes without pull requests)
    Interviewers:  grader grade submission.zip --json report.json
                   grader similarity submissions/*.zip --html similarity.html
    Authors:       grader new NAME, grader validate 05 (--pack PATH: your own exercise pack)
    """
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


@cli.command("list")
@click.option("--sessions", "sessions", is_flag=True,
              help="List the interview sessions instead: named, timed sets of exercises (exercises/sessions.toml) "
                   "to export with `grader export --session NAME OUT`.")
@handle_errors
def list_cmd(sessions: bool) -> None:
    """List the exercises with their track, difficulty, GPU policy and points, and your status on
    each: not started, failing or passing its public checks (from `grader watch` and
    `grader check` runs here), and the hints you have seen; then the exercise root in use (set it
    with GRADER_ROOT).

    \b
    Examples:
      grader list
      grader list --sessions
    """
    from grader.catalog import Catalog, root_origin
    from grader.packs import catalog_lines
    from grader.practice.state import PracticeState
    from grader.practice.views import status_text

    catalog = Catalog.load()
    if sessions:
        _list_sessions(catalog)
        return
    states = PracticeState(catalog.root).load()
    rows = [("exercise", "track", "difficulty", "gpu", "points", "status", "hints", "title")]
    for ex in catalog.exercises:
        st = states.get(ex.id)
        rows.append((ex.id, ex.track, ex.difficulty, ex.gpu, f"{ex.points:g}",
                     status_text(st) if st else "not started", str(st.hints) if st and st.hints else "-", ex.title))
    click.echo(_columns_of(rows, right={4}))
    click.echo(f"{len(catalog.exercises)} exercises in {catalog.root} ({root_origin(catalog.root)})")
    for line in catalog_lines(catalog):  # the exercise packs in use (grader.packs)
        click.echo(line, err=line.startswith("Warning"))
    _warn_problems(catalog)


def _list_sessions(catalog) -> None:
    from grader.sessions import load_sessions, planned_minutes, sessions_path

    found = load_sessions(catalog.root)
    if not found:
        click.echo(f"No interview sessions: {sessions_path(catalog.root)} defines none")
        return
    for session in found.values():
        planned = planned_minutes(session, catalog)
        estimate = f" (the exercises' guides estimate {planned})" if planned is not None else ""
        click.echo(f"{session.name}: {session.title}, {session.minutes} minutes{estimate}")
        click.echo(f"  {session.purpose}")
        rows = [("  " + ex.id, ex.difficulty, ex.title) for ex in session.resolve(catalog)]
        click.echo(_columns_of(rows))
    click.echo(f"Export one with: grader export --session {next(iter(found))} OUT")




@cli.command()
@click.argument("exercise", shell_complete=complete_exercises)
@click.option("--interviewer", is_flag=True,
              help="Print the interviewer's guide instead: minutes, what the exercise reveals, follow-up "
                   "questions with model answers, signals, how to read the score, what each hint gives away.")
@handle_errors
def show(exercise: str, interviewer: bool) -> None:
    """Print an exercise's README and where its stub is.

    \b
    Examples:
      grader show 05
      grader show 05 --interviewer
    """
    from grader.catalog import Catalog

    ex = Catalog.load().get(exercise)
    if interviewer:
        from grader.guides import GUIDE_FILE, read_guide

        guide = read_guide(ex.dir)
        if guide is None:
            raise UsageError(f"{ex.id} has no interviewer's guide ({ex.dir / GUIDE_FILE}): a candidate bundle "
                             f"never carries one; use the grader's own checkout or your exercise pack")
        click.echo(guide.text.rstrip())
        if ex.tests:
            click.echo("\nWhat it tests: " + "; ".join(ex.tests))
        return
    click.echo((ex.dir / "README.md").read_text(encoding="utf-8").rstrip())
    click.echo("")
    click.echo(f"Stub to fill in: {ex.stub}")
    click.echo(f"Check it with:   grader check {ex.number:02d}" if ex.pack is None else  # a pack's: named in full
               f"Check it with:   grader check {ex.pack.name}/{ex.dir.name}")


@cli.command()
@click.argument("exercises", nargs=-1, shell_complete=complete_exercises)
@click.option("--all", "all_", is_flag=True, help="Check every exercise.")
@click.option("--path", "path", type=click.Path(exists=True, path_type=Path), default=None,
              help="Where your files are (default: the exercises' own folders, edited in place).")
@click.option("-x", "--exitfirst", is_flag=True, help="Stop at the first failing check.")
@click.option("-k", "keyword", metavar="EXPR", default=None,
              help="Run only the checks whose names match EXPR (pytest's -k: e.g. pairwise, 'not cuda').")
@click.option("-v", "--verbose", "verbose", count=True, help="Whole messages, and why a check did not run.")
@click.option("-q", "--quiet", "quiet", count=True, help="Show failing checks and the summary line only.")
@limit_options
@handle_errors
def check(exercises: tuple[str, ...], all_: bool, path: Path | None, exitfirst: bool, keyword: str | None,
          verbose: int, quiet: int, timeout_s: float | None, memory_gb: float) -> None:
    """Run the public checks of EXERCISES on your files, with messages you can act on.

    An exercise is named by its folder name, its number, a unique prefix or its file
    (broadcast_bias.py); a track name (autograd) names all its exercises. With no EXERCISES,
    inside an exercise's folder, checks that exercise. A failure shows where in your file it
    happened (file:line, the line and Python's carets). Exits 0 when every public check passes,
    3 when one fails, and 130 on Ctrl-C (the checks stop at once; nothing is recorded).

    Example: grader check 05 10 -x
    """
    from grader.catalog import Catalog
    from grader.check_select import resolve_check
    from grader.grading import grade
    from grader.reports.check_view import failed, render_checks

    catalog = Catalog.load()
    target = resolve_check(catalog, exercises, all_, path)
    pytest_args = (["-x"] if exitfirst else []) + (["-k", keyword] if keyword else [])
    # a batch of one: Ctrl-C stops the judge and its fork server, exits 130; many exercises are
    # shared among judges on the cores there are (one judge with -x: it stops the whole session)
    from grader.errors import Interrupted

    try:
        run = grade([target.path], exercises=target.exercises, visibility="public", timeout_s=timeout_s,
                    limits=_limits(memory_gb), pytest_args=pytest_args, capture_output=True, runtime="local")
    except Interrupted:  # Ctrl-C: the checks were stopped, every process with them; a candidate's words
        click.echo("Stopped: the checks were interrupted before they finished, so there is no result (nothing "
                   "was recorded). Run the same command again to check.", err=True)
        sys.exit(int(ExitCode.INTERRUPTED))
    if path is None:  # your files in the tree: `grader list` and `grader watch` show the status
        from grader.practice.state import record_run

        record_run(catalog.root, run)
    checks = [c for s in run.submissions for e in s.exercises for c in e.checks]
    if keyword and all(c.name == "grading" for c in checks):  # the judge collected nothing to run
        raise click.UsageError(f"no check matches -k {keyword!r}: `grader check EXERCISE` lists the check names")
    first = catalog.get(target.exercises[0]) if target.exercises else None  # check files: its root's (a pack's)
    render_checks(run, _console(), root=first.dir.parent.parent.parent if first else catalog.root,
                  verbosity=verbose - quiet)
    sys.exit(int(ExitCode.UNDER_THRESHOLD if failed(run) else ExitCode.OK))


@cli.command("grade")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--exercises", "-e", multiple=True, shell_complete=complete_exercises,
              help="Exercises to grade (repeat, or a comma list; default: those with a file in the submission).")
@click.option("--runtime", type=click.Choice(RUNTIMES), default=DEFAULTS.runtime, show_default=True,
              help="Where the judge runs: docker (one container per submission, hidden checks out of reach), "
                   "local (subprocesses here), auto (docker when a daemon answers and the image exists, "
                   "else local with a warning), or ray (one Ray task per submission on a cluster, running "
                   "--node-runtime there; needs `pip install torch-grader[ray]`).")
@click.option("--image", default=None, help="Grading image for --runtime docker [default: torch-grader:latest].")
@click.option("--gpus", default="auto", show_default=True,
              help="Docker runtime: auto (a GPU when the daemon can give one), none, all, or ids such as 0,1.")
@click.option("--require-gpu", is_flag=True,
              help="Fail before grading anything when no GPU is available, instead of grading on CPU.")
@click.option("--allow-stale-image", is_flag=True,
              help="Docker: grade with an image not built from this checkout (refused by default; noted in reports).")
@click.option("--fail-under", type=click.FloatRange(0, 100), default=None,
              help="Exit with code 3 when a submission's score is under this percentage (each submission on "
                   "its own; one that cannot be graded scores 0).")
@click.option("--quiet", "-q", is_flag=True, help="Do not print the score table.")
@click.option("--audience", type=click.Choice(["interviewer", "candidate"]), default="interviewer", show_default=True,
              help="Who the reports and the table are for: candidate shows hidden checks only in aggregate per "
                   "kind (no names, locations or messages).")
@click.option("--full-reports", "full_reports", type=click.Path(file_okay=False, path_type=Path), multiple=True,
              callback=_once,
              help="Also write the interviewer's form of every report asked for into this folder (with "
                   "--audience candidate: e.g. a PR shows the candidate's form, the artifact keeps this one).")
@click.option("--verbose", "-v", is_flag=True, help="Show every failed check's whole message under the table.")
@output_options
@limit_options
@batch_options
@handle_errors
def grade_cmd(paths: tuple[Path, ...], exercises: tuple[str, ...], runtime: str, image: str | None, gpus: str,
              require_gpu: bool, allow_stale_image: bool, fail_under: float | None,
              quiet: bool, audience: str, full_reports: Path | None, verbose: bool, json_path: Path | None,
              junit_path: Path | None, gradescope_path: Path | None,
              markdown_path: Path | None, markdown_limit: int, html_path: Path | None, csv_path: Path | None,
              csv_kinds: bool, feedback_dir: Path | None, timeout_s: float | None,
              memory_gb: float, jobs: int | None, results_dir: Path | None, gpus_per_job: float,
              address: str | None, node_runtime: str) -> None:
    """Grade one or more submissions (folders, .py files, Jupyter notebooks, .zip or .tar.gz
    archives) with the public and hidden checks, and write reports.

    Several submissions are graded --jobs at a time, each in its own judge or container, with
    progress on stderr; --results-dir keeps each result as it is graded, so a rerun after Ctrl-C
    grades only the rest. In a batch every submission is graded on the same exercises: those of
    --exercises, else every exercise found in any submission; one a submission lacks scores 0 of
    its points, with a note (a single submission is graded on what it holds). Each submission is
    scored on its own: no report totals across candidates. --csv writes a gradebook for a
    spreadsheet, --feedback-dir one report per candidate to send them.

    Exits 0 when graded, whatever the score; 3 when a submission's score is under --fail-under; 2
    on a usage error (bad path, unknown exercise, nothing gradable); 1 on a grader or
    infrastructure error; 130 when interrupted (the reports then hold what finished, and say "N
    of M graded"). Report paths are checked before grading; `-` writes a report to standard output
    (the table then goes to standard error). A submission that cannot be graded scores 0 in every
    report, with the reason, and the reports are still written.

    \b
    Examples:
      grader grade submission.zip --exercises 05,10 --json report.json --fail-under 60
      grader grade subs/* --jobs 4 --results-dir results/ --csv grades.csv --html report.html
      grader grade subs/* --feedback-dir feedback/
      grader grade subs/* --runtime ray --address auto --results-dir results/

    \b
    For the candidate (e.g. on their pull request), hidden checks in aggregate, the full form kept:
      grader grade sub.zip --audience candidate --junit pr/junit.xml --full-reports reports/
    """
    from grader.cli_batch import make_options
    from grader.grade_and_report import ReportRequest, grade_and_report
    from grader.image import DEFAULT_TAG
    from grader.reports.terminal import render
    from grader.runtimes.docker import GpuRequest

    GpuRequest.parse(gpus)  # a bad --gpus is a usage error whatever the runtime
    # `--markdown -` read in a terminal: the text itself, not GitHub's entities
    terminal_md = {"terminal": True} if str(markdown_path) == "-" and _stdout_is_terminal() else {}
    request = ReportRequest(
        reports={"json": json_path, "junit": junit_path, "gradescope": gradescope_path, "markdown": markdown_path,
                 "html": html_path, "csv": csv_path},
        report_options={"markdown": {"limit": markdown_limit, **terminal_md}, "csv": {"kinds": csv_kinds}},
        audience=audience, full_reports=full_reports, feedback_dir=feedback_dir, fail_under=fail_under,
        require_gpu=require_gpu)
    options = make_options(paths, exercises=list(exercises) or None, runtime=runtime, timeout_s=timeout_s,
                           limits=_limits(memory_gb), jobs=jobs, results_dir=results_dir, gpus_per_job=gpus_per_job,
                           address=address, node_runtime=node_runtime, quiet=quiet,
                           runtime_options={"image": image or DEFAULT_TAG, "gpus": gpus, "require_gpu": require_gpu,
                                            "allow_stale_image": allow_stale_image})
    code = grade_and_report(list(paths), options, request, say=lambda line: click.echo(line, err=True),
                            stdout=lambda text: click.echo(text, nl=False),
                            table=None if quiet else (
                                lambda run, to_stderr: render(run, _console(stderr=to_stderr), verbose=verbose)))
    sys.exit(code)


@cli.command()
@click.argument("exercises", nargs=-1, shell_complete=complete_exercises)
@click.option("--timeout-s", type=click.FloatRange(min=0.1), default=None, help="Time limit per check.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Judges run at once, each over a share of the exercises (default: the CPU cores).")
@handle_errors
def validate(exercises: tuple[str, ...], timeout_s: float | None, jobs: int | None) -> None:
    """Prove exercises' checks right: the reference scores 100 %, the stub 0, and every known
    mistake fails the checks its docstring names; and their content: the stub's docstrings (two
    sentences at most) and imports (only what it uses), what exercise.toml says the exercise tests,
    the interviewer's guide, and the interview sessions (every exercise they name exists and has a
    guide). Exits 3 when a problem is found.

    Example: grader validate 05 10 18 --jobs 2
    """
    from rich.markup import escape

    from grader.catalog import Catalog
    from grader.results import fmt_points
    from grader.sessions import session_problems
    from grader.validate import validate as run_validate

    results = run_validate(list(exercises) or None, timeout_s=timeout_s, progress=_validate_progress(), jobs=jobs)
    console = _console()
    rows = [("exercise", "reference", "stub", "mistakes caught", "status")]
    for v in results:
        caught = sum(not m.problems for m in v.mistakes)
        rows.append((v.exercise.id, f"{fmt_points(v.reference.score)}/{fmt_points(v.reference.max_score)}",
                     f"{fmt_points(v.stub.score)}/{fmt_points(v.stub.max_score)}", f"{caught}/{len(v.mistakes)}",
                     "ok" if v.ok else "FAIL"))
    click.echo(_columns_of(rows))
    for v in results:
        for problem in v.problems:
            console.print(f"[red]{v.exercise.id}[/]: {escape(problem)}", markup=True, soft_wrap=True)
        for m in v.mistakes:
            if m.unverified:
                console.print(f"[dim]{v.exercise.id}: mistake {m.name}: {', '.join(m.unverified)} "
                              f"not run here (needs CUDA?)[/]")
    bad = [v for v in results if not v.ok]
    console.print(f"{len(results) - len(bad)}/{len(results)} exercises valid")
    sessions = session_problems(Catalog.load())
    for problem in sessions:
        console.print(f"[red]sessions[/]: {escape(problem)}", markup=True, soft_wrap=True)
    sys.exit(int(ExitCode.UNDER_THRESHOLD if bad or sessions else ExitCode.OK))


def _validate_progress():
    """Print a line to stderr as each exercise's checks are all done (validate runs for minutes)."""
    import time

    started = time.monotonic()

    said: list[bool] = []

    def progress(exercise_id: str, done: int, total: int) -> None:
        if not said:
            said.append(True)
            click.echo("Validating: the reference, the stub and every known mistake of each exercise", err=True)
        if done == total:
            click.echo(f"  {exercise_id}: {total} checks run ({time.monotonic() - started:.0f} s)", err=True)
    return progress


@cli.command()
@click.argument("exercises", nargs=-1)
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Judges grading mutants at the same time.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the mutation report (scores, survivors as diffs) as JSON.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the mutation report as a standalone HTML page.")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=Path(".grader-mutate"),
              show_default=True, help="Results cache: a rerun (after Ctrl-C, say) grades only what is new.")
@click.option("--batch-size", type=click.IntRange(min=1), default=8, show_default=True,
              help="Mutants per judge session (smaller: less lost on Ctrl-C; larger: fewer judge starts).")
@click.option("--timeout-s", type=click.FloatRange(min=0.1), default=None, help="Time limit per check.")
@handle_errors
def mutate(exercises: tuple[str, ...], jobs: int, json_path: Path | None, html_path: Path | None,
           cache_dir: Path, batch_size: int, timeout_s: float | None) -> None:
    """Mutate each exercise's reference solution (mutmut's operators plus PyTorch ones: dims, flags,
    dropped .detach()/.clone()/no_grad, swapped arguments, in-place) and grade every mutant; one
    still scoring 100 % survives and is printed as a diff with the checks it passed. Accepted
    equivalent mutants: solutions/<track>/<id>/equivalent_mutants.toml. Exits 1 when a survivor,
    a stale equivalent entry or a reference below 100 % remains, 130 on Ctrl-C (rerun to go on).

    Example: grader mutate 10 18 --jobs 2 --json mutation.json
    """
    from grader.mutate.command import run_mutate

    sys.exit(run_mutate(list(exercises) or None, jobs, json_path, html_path, cache_dir, timeout_s, click.echo,
                        batch_size=batch_size))


@cli.group()
def image() -> None:
    """Build the grading image (the docker runtime's container image)."""


@image.command("build")
@click.option("--base-image", default=None,
              help="Base image with Python (and ideally torch) [default: the Dockerfile's pinned PyTorch CUDA "
                   "runtime image; offline: torch-grader-base:offline from docker/build-offline-base.sh].")
@click.option("--tag", default="torch-grader:latest", show_default=True, help="Tag of the image to build.")
@click.option("--force", is_flag=True,
              help="Rebuild even when nothing changed, with the newest dependencies the package index has.")
@handle_errors
def image_build(base_image: str | None, tag: str, force: bool) -> None:
    """Fill docker/wheelhouse with the dependencies' wheels (`pip download`, only what it lacks)
    and build the grading image through the Docker SDK: the grader, the exercises with their hidden
    checks, and the reference solutions (readable by the judge's user only). Skipped when nothing
    changed since the last build; the dependencies' layer is rebuilt only when they change.

    Example: grader image build --base-image torch-grader-base:offline
    """
    from grader.catalog import default_root
    from grader.image import build_image

    build_image(root=default_root(), base_image=base_image, tag=tag, force=force, log=click.echo)


@cli.command("export")
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--exercises", "-e", multiple=True, shell_complete=complete_exercises,
              help="Exercises to include (repeat, or a comma list; default: every exercise).")
@click.option("--notebooks", is_flag=True,
              help="Also give each stub as a Jupyter notebook (README as the first cell), paired with the .py "
                   "by jupytext: candidates may work in either.")
@click.option("--record-progress", is_flag=True,
              help="Live interviews: the bundle's watch/check runs and hints append (time, exercise, public "
                   "score, hints used) to exercises/.grader-progress.jsonl, submitted with the candidate's files; "
                   "`grader grade --html` shows it as a timeline, labelled unverified. The bundle README says so.")
@click.option("--session", "session", metavar="NAME", default=None,
              help="Export the exercises of this interview session, in its order; the bundle README gives "
                   "its time and order (see `grader list --sessions`).")
@handle_errors
def export_cmd(out: Path, exercises: tuple[str, ...], notebooks: bool, record_progress: bool,
               session: str | None) -> None:
    """Write the candidate bundle to OUT, a new or empty folder: the exercises' READMEs, stubs and
    public checks, the grader, a candidate README and the pull-request autograding workflows. No
    hidden check, solution, grader's note or interviewer's guide goes in: the bundle is scanned
    (notebooks too), and nothing is written when it would carry one.

    \b
    Examples:
      grader export /tmp/bundle --exercises 05,10,18 --notebooks --record-progress
      grader export /tmp/screen --session fundamentals-45
    """
    from grader.export import export_bundle

    bundle = export_bundle(out, exercises=list(exercises) or None, notebooks=notebooks,
                           record_progress=record_progress, session=session)
    what = f"session {session!r}: " if session else ""
    click.echo(f"Exported {what}{len(bundle.exercises)} exercises to {bundle.path} ({len(bundle.files)} files); "
               f"scanned for {bundle.secret_lines} lines of hidden checks, solutions, graders' notes and "
               f"interviewers' guides: none found")
    for name, problem in bundle.skipped.items():
        click.echo(f"Warning: exercise {name} is left out: {problem}", err=True)


@cli.command("similarity")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--exercises", "-e", multiple=True,
              help="Exercises to compare (repeat, or a comma list; default: those with a file in any submission).")
@click.option("--threshold", type=click.FloatRange(0, 1), default=0.5, show_default=True,
              help="Report pairs whose score (0: nothing shared, 1: the same code) is at least this.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write a page with each pair side by side, matching regions highlighted.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the pairs and per-exercise figures as JSON.")
@handle_errors
def similarity_cmd(paths: tuple[Path, ...], exercises: tuple[str, ...], threshold: float, html_path: Path | None,
                   json_path: Path | None) -> None:
    """Find pairs of SUBMISSIONS (folders, .py files, notebooks, .zip or .tar.gz archives) whose
    answers to an exercise are alike: renamed variables, reordered functions and changed
    whitespace or comments do not hide a copy, and the stub's own text never counts. Where this
    checkout has an exercise's reference solution, each answer is compared with it too. A
    submission that cannot be compared (not found, unreadable, no exercise file, binary) is
    named on stderr and not counted; exits 2 when fewer than two could be compared. Needs the
    similarity extra (pip install 'torch-grader[similarity]').

    Example: grader similarity submissions/*.zip --exercises 05,10 --html similarity.html
    """
    from grader.similarity import compare
    from grader.similarity.report import table, write_html, write_json

    report = compare(list(paths), exercises=list(exercises) or None, threshold=threshold)
    click.echo(table(report))
    left_out = f" ({len(report.failed)} could not be compared)" if report.failed else ""
    click.echo(f"{len(report.pairs)} pair(s) at or above {threshold:g} among {len(report.compared)} submissions"
               f"{left_out}, {len(report.exercises)} exercise(s)")
    if report.reference:
        click.echo(f"{len(report.reference)} answer(s) match the exercise's reference solution at or above "
                   f"{threshold:g}")
    for problem in report.problems:  # they name submissions and their files
        click.echo(f"Warning: {_inert(problem)}", err=True)
    for label, why in report.failed.items():  # as `grade` reports a submission it cannot grade
        click.echo(f"Error: {_inert(label)}: not compared: {_inert(why)}", err=True)
    if json_path is not None:
        write_json(report, json_path)
    if html_path is not None:
        write_html(report, html_path)
    if len(report.compared) < 2:  # nothing to compare: the paths are wrong
        raise UsageError(f"{len(report.compared)} of {len(report.submissions)} submissions could be compared: "
                         f"similarity needs at least two")


@cli.command()
@click.argument("exercise", required=False)
@click.option("--plain", is_flag=True,
              help="One block of output per rerun, nothing redrawn (the default when stdout is not a terminal).")
@limit_options
@handle_errors
def watch(exercise: str | None, plain: bool, timeout_s: float | None, memory_gb: float) -> None:
    """Rerun the public checks of EXERCISE (default: the first unsolved one) each time you save
    its file, shown as `grader check` shows them, with your progress over the bundle. A warm
    judge stays ready between saves, so a result takes well under a second.

    A check gets 5 s of CPU time here (a sixth of a longer limit its exercise sets), not its
    full limit: an endless loop shows in seconds, marked "likely an endless loop"; `grader check`
    (or --timeout-s) gives slow code its full time.

    \b
    Keys: h next hint, l list of exercises (type an exercise's number, e.g. 05, or its name and
    Enter to switch), n next unsolved exercise, r rerun, q quit. Run it inside your bundle (or
    the grader's checkout). Exits 0 after q and 130 after Ctrl-C.

    Example: grader watch 05
    """
    from grader.practice.watch import watch as run_watch
    from grader.roots import discover_working_root

    root = discover_working_root("watch")
    console = _console()
    code = run_watch(root, exercise, plain=plain or not console.is_terminal, console=console,
                     timeout_s=timeout_s, limits=_limits(memory_gb))
    sys.exit(code)


@cli.command()
@click.argument("exercise")
@handle_errors
def hint(exercise: str) -> None:
    """Print the next hint for EXERCISE: one to three per exercise, from the concept to the trap
    (never the solution's code). Each call shows one more; `grader list` counts them.

    Example: grader hint 05
    """
    from grader.catalog import Catalog
    from grader.practice.hints import next_hint

    catalog = Catalog.load(allow_missing_stub=True)
    click.echo(next_hint(catalog.root, catalog.get(exercise)))


@cli.command()
@click.argument("exercise")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@handle_errors
def reset(exercise: str, yes: bool) -> None:
    """Put EXERCISE's stub back. Your file is first copied to a timestamped backup beside it
    (<name>.py.<time>.bak, ignored by the bundle's .gitignore): nothing is lost. `grader list`
    then shows the exercise as not started. Asks for confirmation unless --yes (without a
    terminal to ask in: a usage error, exit 2).

    Example: grader reset 05 --yes
    """
    from grader.catalog import Catalog
    from grader.practice.reset import reset_exercise
    from grader.roots import discover_working_root

    root = discover_working_root("reset")
    ex = Catalog.load(root, allow_missing_stub=True).get(exercise)
    if not yes and not _confirm_reset(ex):
        click.echo("Nothing was changed.")
        sys.exit(int(ExitCode.OK))
    done = reset_exercise(root, ex)
    click.echo(f"Reset {done.stub} to its stub." + (f" Your file is kept in {done.backup}" if done.backup else
                                                    " (there was no work of yours to keep)"))


def _confirm_reset(ex) -> bool:
    """Ask before `reset` replaces the candidate's file. No answer to read (no terminal, input at
    its end): a usage error naming --yes, not click's bare "Aborted!"."""
    ref = f"{ex.number:02d}" if ex.pack is None else f"{ex.pack.name}/{ex.dir.name}"
    try:
        return click.confirm(f"Reset {ex.stub} to its stub (your file is kept as a backup)?")
    except click.Abort as exc:
        if isinstance(exc.__context__, EOFError):
            click.echo("", err=True)  # ends the question's line
            raise UsageError(f"`grader reset {ref}` asks before it replaces your file, and there was no answer to "
                             f"read (no terminal): run `grader reset {ref} --yes` to reset it without asking (your "
                             f"file is kept as a backup). Nothing was changed") from None
        click.echo("\nNothing was changed.", err=True)  # Ctrl-C at the question
        sys.exit(int(ExitCode.INTERRUPTED))


@cli.command()
@click.option("--output", "-o", "output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where to write the archive [default: submission.zip in your bundle; replaced if it exists].")
@handle_errors
def submit(output: Path | None) -> None:
    """Write the archive of your work to send by mail, for take-homes without pull requests:
    each exercise's file (and its notebook, if you have one) at the bundle's layout, nothing
    else: no checks, no backups, nothing of .grader/ (in a bundle that records your progress, its
    record goes in too, as the README says). It is read back as `grader grade` reads it, so the
    interviewer's grader finds every file. Run it inside your bundle; send the file it names.

    Example: grader submit -o ~/alice-pytorch.zip
    """
    from grader.practice.submit import make_submission
    from grader.roots import discover_working_root

    made = make_submission(discover_working_root("submit"), output)
    click.echo(_columns_of([("exercise", "file", "public checks"), *made.rows]))
    if made.progress:
        click.echo("Your progress record (exercises/.grader-progress.jsonl) is included, as this bundle records it.")
    for ex_id in made.untouched:
        click.echo(f"Warning: {ex_id} is the stub as you received it (not started?)", err=True)
    click.echo(f"Wrote {made.path} ({len(made.files)} files, {made.path.stat().st_size:,} bytes): send this file "
               f"as your instructions say. Running `grader submit` again replaces it.")


from grader.cli_packs import install as _install_packs  # noqa: E402 - after every command it extends

_install_packs(cli, handle_errors)  # `grader new`, and --pack PATH on every command


def main() -> None:
    cli(prog_name="grader")


if __name__ == "__main__":
    main()
