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
from grader.errors import ExitCode, GraderError

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _console() -> Console:
    console = Console(highlight=False)
    if not console.is_terminal:
        console = Console(highlight=False, width=120)
    return console


def handle_errors(fn):
    """Turn GraderError into a one-line message and its exit code; nothing else is caught."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except GraderError as exc:
            click.echo(f"Error: {exc}", err=True)
            sys.exit(int(exc.exit_code))

    return wrapper


def limit_options(fn):
    fn = click.option("--timeout-s", type=click.FloatRange(min=0.1), default=None,
                      help="Time limit per check in seconds (default: each exercise's timeout_s).")(fn)
    fn = click.option("--memory-gb", type=click.FloatRange(min=0.1), default=4.0, show_default=True,
                      help="Memory limit per worker process.")(fn)
    return fn


def output_options(fn):
    for name, what in (("html", "the HTML report (one self-contained page)"), ("json", "the JSON report"),
                       ("junit", "JUnit XML"), ("gradescope", "Gradescope results.json"),
                       ("markdown", "the Markdown summary")):
        if name == "markdown":
            fn = click.option("--markdown-limit", metavar="pr|step|BYTES", default="step", show_default=True,
                              callback=_markdown_limit,
                              help="Size cap of the Markdown summary: pr (a pull-request comment, 64 KiB), step "
                                   "(a step summary, 1 MiB) or bytes; a longer one is cut with a notice.")(fn)
        fn = click.option(f"--{name}", f"{name}_path", type=click.Path(dir_okay=False, path_type=Path),
                          default=None, help=f"Write {what} to this file.")(fn)
    return fn


def _markdown_limit(ctx: click.Context, param: click.Parameter, value: str) -> int:
    from grader.reports.markdown import parse_limit

    try:
        return parse_limit(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _limits(memory_gb: float):
    from grader.sandbox.limits import Limits

    return Limits(memory_bytes=int(memory_gb * (1 << 30)))


def _warn_problems(catalog) -> None:
    for name, problem in catalog.problems.items():
        click.echo(f"Warning: exercise {name} is skipped: {problem}", err=True)


@click.group(context_settings=CONTEXT)
@click.version_option(__version__, prog_name="grader")
def cli() -> None:
    """Grade PyTorch coding exercises: public checks for candidates, hidden checks for graders.

    \b
    Candidates:    grader list, grader show 05, grader check 05
    Interviewers:  grader grade submission.zip --json report.json
    Authors:       grader validate 05
    """


@cli.command("list")
@handle_errors
def list_cmd() -> None:
    """List the exercises with their track, difficulty, GPU policy and points."""
    from grader.catalog import Catalog

    catalog = Catalog.load()
    rows = [("exercise", "track", "difficulty", "gpu", "points", "title")]
    rows += [(ex.id, ex.track, ex.difficulty, ex.gpu, f"{ex.points:g}", ex.title) for ex in catalog.exercises]
    click.echo(_columns(rows, right={4}))
    click.echo(f"{len(catalog.exercises)} exercises")
    _warn_problems(catalog)


def _columns(rows: list[tuple[str, ...]], right: set[int] = frozenset()) -> str:
    """Plain aligned columns (no trailing spaces), for output that scripts and tests can read."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [cell.rjust(w) if i in right else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


@cli.command()
@click.argument("exercise")
@handle_errors
def show(exercise: str) -> None:
    """Print an exercise's README and where its stub is.

    Example: grader show 05
    """
    from grader.catalog import Catalog

    ex = Catalog.load().get(exercise)
    click.echo((ex.dir / "README.md").read_text(encoding="utf-8").rstrip())
    click.echo("")
    click.echo(f"Stub to fill in: {ex.stub}")
    click.echo(f"Check it with:   grader check {ex.number:02d}")


@cli.command()
@click.argument("exercises", nargs=-1)
@click.option("--all", "all_", is_flag=True, help="Check every exercise.")
@click.option("--path", "path", type=click.Path(exists=True, path_type=Path), default=None,
              help="Where your files are (default: the exercises' own folders, edited in place).")
@limit_options
@handle_errors
def check(exercises: tuple[str, ...], all_: bool, path: Path | None, timeout_s: float | None,
          memory_gb: float) -> None:
    """Run the public checks of EXERCISES on your files, with messages you can act on.

    An exercise is named by its folder name, its number or a unique prefix. Exits 0 when every
    public check passes and 3 when one fails.

    Example: grader check 05 10
    """
    from grader.catalog import Catalog
    from grader.grading import grade
    from grader.reports.terminal import render_checks

    if not exercises and not all_:
        raise click.UsageError("name one or more exercises (e.g. `grader check 05`), or use --all")
    catalog = Catalog.load()
    refs = [ex.id for ex in catalog.select(None if all_ else list(exercises))]
    run = grade([path or catalog.root / "exercises"], exercises=refs, visibility="public", timeout_s=timeout_s,
                limits=_limits(memory_gb))
    render_checks(run, _console())
    failed = any(c.outcome in ("failed", "error") for s in run.submissions for e in s.exercises for c in e.checks)
    sys.exit(int(ExitCode.UNDER_THRESHOLD if failed else ExitCode.OK))


@cli.command("grade")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--exercises", "-e", multiple=True,
              help="Exercises to grade (repeat, or a comma list; default: those with a file in the submission).")
@click.option("--runtime", type=click.Choice(["auto", "local", "docker"]), default="auto", show_default=True,
              help="Where the judge runs: docker (one container per submission, hidden checks out of reach), "
                   "local (subprocesses here), or auto (docker when a daemon answers and the image exists, "
                   "else local with a warning).")
@click.option("--image", default=None, help="Grading image for --runtime docker [default: torch-grader:latest].")
@click.option("--gpus", default="auto", show_default=True,
              help="Docker runtime: auto (a GPU when the daemon can give one), none, all, or ids such as 0,1.")
@click.option("--require-gpu", is_flag=True, help="Fail instead of grading on CPU when no GPU is available.")
@click.option("--fail-under", type=click.FloatRange(0, 100), default=None,
              help="Exit with code 3 when the total score is under this percentage.")
@click.option("--quiet", "-q", is_flag=True, help="Do not print the score table.")
@output_options
@limit_options
@handle_errors
def grade_cmd(paths: tuple[Path, ...], exercises: tuple[str, ...], runtime: str, image: str | None, gpus: str,
              require_gpu: bool, fail_under: float | None,
              quiet: bool, json_path: Path | None, junit_path: Path | None, gradescope_path: Path | None,
              markdown_path: Path | None, markdown_limit: int, html_path: Path | None, timeout_s: float | None,
              memory_gb: float) -> None:
    """Grade one or more submissions (folders, .py files, .zip or .tar.gz archives) with the
    public and hidden checks, and write reports.

    Exits 0 when graded, whatever the score; 3 when the score is under --fail-under; 2 on a usage
    error (bad path, unknown exercise); 1 on a grader or infrastructure error.

    Example: grader grade submission.zip --exercises 05,10 --json report.json --fail-under 60
    """
    from grader.grading import grade
    from grader.image import DEFAULT_TAG
    from grader.reports import write_report
    from grader.reports.terminal import render
    from grader.runtimes.docker import GpuRequest

    GpuRequest.parse(gpus)  # a bad --gpus is a usage error whatever the runtime
    options = {"image": image or DEFAULT_TAG, "gpus": gpus, "require_gpu": require_gpu}
    run = grade(list(paths), exercises=list(exercises) or None, runtime=runtime, timeout_s=timeout_s,
                limits=_limits(memory_gb), runtime_options=options)
    for note in run.environment.notes:
        if note.startswith("no Docker daemon"):
            click.echo(f"Warning: {note}", err=True)
    if require_gpu and not run.environment.gpus:
        click.echo("Error: --require-gpu: no GPU was available to grade on", err=True)
        sys.exit(int(ExitCode.ERROR))
    for kind, target in (("json", json_path), ("junit", junit_path), ("gradescope", gradescope_path),
                         ("markdown", markdown_path), ("html", html_path)):
        if target is not None:
            write_report(kind, run, target, **({"limit": markdown_limit} if kind == "markdown" else {}))
    if not quiet:
        render(run, _console())
    if fail_under is not None and run.percent < fail_under:
        click.echo(f"Score {run.percent:g} % is under --fail-under {fail_under:g} %", err=True)
        sys.exit(int(ExitCode.UNDER_THRESHOLD))


@cli.command()
@click.argument("exercises", nargs=-1)
@click.option("--timeout-s", type=click.FloatRange(min=0.1), default=None, help="Time limit per check.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Judges run at once, each over a share of the exercises (default: the CPU cores).")
@handle_errors
def validate(exercises: tuple[str, ...], timeout_s: float | None, jobs: int | None) -> None:
    """Prove exercises' checks right: the reference scores 100 %, the stub 0, and every known
    mistake fails the checks its docstring names. Exits 3 when a problem is found.

    Example: grader validate 05 10 18 --jobs 2
    """
    from grader.results import fmt_points
    from grader.validate import validate as run_validate

    results = run_validate(list(exercises) or None, timeout_s=timeout_s, jobs=jobs)
    console = _console()
    rows = [("exercise", "reference", "stub", "mistakes caught", "status")]
    for v in results:
        caught = sum(not m.problems for m in v.mistakes)
        rows.append((v.exercise.id, f"{fmt_points(v.reference.score)}/{fmt_points(v.reference.max_score)}",
                     f"{fmt_points(v.stub.score)}/{fmt_points(v.stub.max_score)}", f"{caught}/{len(v.mistakes)}",
                     "ok" if v.ok else "FAIL"))
    click.echo(_columns(rows))
    for v in results:
        for problem in v.problems:
            console.print(f"[red]{v.exercise.id}[/]: {problem}", markup=True)
        for m in v.mistakes:
            if m.unverified:
                console.print(f"[dim]{v.exercise.id}: mistake {m.name}: {', '.join(m.unverified)} "
                              f"not run here (needs CUDA?)[/]")
    bad = [v for v in results if not v.ok]
    console.print(f"{len(results) - len(bad)}/{len(results)} exercises valid")
    sys.exit(int(ExitCode.UNDER_THRESHOLD if bad else ExitCode.OK))


@cli.group()
def image() -> None:
    """Build the grading image (the docker runtime's container image)."""


@image.command("build")
@click.option("--base-image", default=None,
              help="Base image with Python (and ideally torch) [default: the Dockerfile's pinned PyTorch CUDA "
                   "runtime image; offline: torch-grader-base:offline from docker/build-offline-base.sh].")
@click.option("--tag", default="torch-grader:latest", show_default=True, help="Tag of the image to build.")
@click.option("--force", is_flag=True, help="Rebuild even when nothing changed.")
@handle_errors
def image_build(base_image: str | None, tag: str, force: bool) -> None:
    """Fill docker/wheelhouse with `pip download` and build the grading image through the Docker
    SDK: the grader, the exercises with their hidden checks, and the reference solutions (readable
    by the judge's user only). Skipped when nothing changed since the last build.

    Example: grader image build --base-image torch-grader-base:offline
    """
    from grader.catalog import default_root
    from grader.image import build_image

    build_image(root=default_root(), base_image=base_image, tag=tag, force=force, log=click.echo)


@cli.command("export")
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--exercises", "-e", multiple=True,
              help="Exercises to include (repeat, or a comma list; default: every exercise).")
@handle_errors
def export_cmd(out: Path, exercises: tuple[str, ...]) -> None:
    """Write the candidate bundle to OUT, a new or empty folder: the exercises' READMEs, stubs and
    public checks, the grader, a candidate README and the pull-request autograding workflows. No
    hidden check, solution or grader's note goes in: the bundle is scanned, and nothing is written
    when it would carry one.

    Example: grader export /tmp/bundle --exercises 05,10,18
    """
    from grader.export import export_bundle

    bundle = export_bundle(out, exercises=list(exercises) or None)
    click.echo(f"Exported {len(bundle.exercises)} exercises to {bundle.path} ({len(bundle.files)} files); "
               f"scanned for {bundle.secret_lines} lines of hidden checks, solutions and graders' notes: none found")
    for name, problem in bundle.skipped.items():
        click.echo(f"Warning: exercise {name} is left out: {problem}", err=True)


def main() -> None:
    cli(prog_name="grader")


if __name__ == "__main__":
    main()
