"""The batch options of `grader grade` (--jobs, --results-dir, --gpus-per-job, --address,
--node-runtime), kept out of cli.py. Parsing only: the engine is grader/batch.py."""

from __future__ import annotations

from pathlib import Path

import click


def batch_options(fn):
    fn = click.option("--node-runtime", type=click.Choice(["docker", "local"]), default="docker", show_default=True,
                      help="--runtime ray: the runtime each Ray task runs on its node (the grading image must be "
                           "on every node for docker; see docs/scaling.md).")(fn)
    fn = click.option("--address", default=None, metavar="auto|ray://HOST:PORT|HOST:PORT",
                      help="--runtime ray: the Ray cluster to submit to (default: $RAY_ADDRESS, else auto: "
                           "the cluster started on this machine with `ray start --head`).")(fn)
    fn = click.option("--gpus-per-job", type=click.FloatRange(min=0.01), default=1.0, show_default=True,
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


def make_batch(paths: tuple[Path, ...], jobs: int | None, results_dir: Path | None, gpus_per_job: float,
               address: str | None, node_runtime: str, quiet: bool, on_note=None):
    """BatchOptions for the CLI, with a progress reporter on stderr when several are graded;
    `on_note` is told the runtime's warnings before grading starts."""
    from grader.batch import BatchOptions
    from grader.progress import make_progress

    progress = make_progress(quiet=quiet) if len(paths) > 1 else None
    return BatchOptions(jobs=jobs, results_dir=results_dir, gpus_per_job=gpus_per_job, address=address,
                        node_runtime=node_runtime, progress=progress, on_note=on_note)
