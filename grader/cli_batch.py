"""The batch options of `grader grade` (--jobs, --results-dir, --gpus-per-job, --address,
--node-runtime), kept out of cli.py. Parsing only: the engine is grader/grading/, whose
`GradeOptions` defines every default (`DEFAULTS`) that these options show."""

from __future__ import annotations

from pathlib import Path

import click

from grader.grading.options import DEFAULTS, NODE_RUNTIMES


def batch_options(fn):
    fn = click.option("--node-runtime", type=click.Choice(NODE_RUNTIMES), default=DEFAULTS.node_runtime, show_default=True,
                      help="--runtime ray: the runtime each Ray task runs on its node (the grading image must be "
                           "on every node for docker; see docs/scaling.md).")(fn)
    fn = click.option("--address", default=None, metavar="auto|ray://HOST:PORT|HOST:PORT",
                      help="--runtime ray: the Ray cluster to submit to (default: $RAY_ADDRESS, else auto: "
                           "the cluster started on this machine with `ray start --head`).")(fn)
    fn = click.option("--gpus-per-job", type=click.FloatRange(min=0.01), default=DEFAULTS.gpus_per_job, show_default=True,
                      help="Docker runtime with several GPUs: GPUs pinned to each container grading GPU "
                           "exercises (0.5: two containers share a GPU). Exercises needing no GPU get none.")(fn)
    fn = click.option("--results-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                      help="Write each submission's result here as soon as it is graded (one JSON each); a "
                           "rerun with the same folder grades only what is missing or changed.")(fn)
    fn = click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
                      help="Submissions graded at once, each in its own judge or container "
                           "[default: min(CPUs, free memory / (--memory-gb + 2 GiB))]; fewer submissions "
                           "than jobs: one with 16+ exercises is shared out over several judges.")(fn)
    return fn


def make_options(paths: tuple[Path, ...], quiet: bool, **fields):
    """GradeOptions for `grader grade`, with a progress reporter on stderr when several are graded."""
    from grader.grading import GradeOptions
    from grader.progress import make_progress

    return GradeOptions(progress=make_progress(quiet=quiet) if len(paths) > 1 else None, **fields)
