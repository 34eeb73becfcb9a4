"""Shell completion of exercise names (click's completion: see the README's "Shell completion").

Completes exercise folder names and track names, also after a comma (`-e 05,1<TAB>`) and from a
number (`0<TAB>`); the titles go along as descriptions where the shell shows them (zsh, fish).
"""

from __future__ import annotations

import click
from click.shell_completion import CompletionItem


def complete_exercises(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Exercise ids and track names starting with what was typed (the last part of a comma list)."""
    from grader.catalog import Catalog
    from grader.errors import GraderError

    try:
        catalog = Catalog.load()
    except GraderError:
        return []
    head, comma, last = incomplete.rpartition(",")
    prefix = head + comma
    items = [CompletionItem(prefix + ex.id, help=ex.title) for ex in catalog.exercises
             if ex.id.startswith(last) or ex.name.startswith(last)]
    items += [CompletionItem(prefix + track, help=f"track: {len(exs)} exercises")
              for track, exs in catalog.tracks.items() if track.startswith(last)]
    return items
