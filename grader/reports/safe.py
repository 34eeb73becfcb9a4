"""Candidate-controlled text, made inert for each medium a report is read in.

Everything a submission can influence (exception messages, its file and folder names, static
flags quoting its identifiers, anything a worker prints) is data. Before it is rendered:

- `plain`: control characters (C0, DEL, C1: escape sequences that move the cursor, erase lines or
  set a window title) and bidirectional overrides are shown as `\\xNN` / `\\uNNNN`; newlines kept
  only where asked. Every medium applies it first.
- `terminal`: `plain`, rich markup escaped (`[bold]` prints as is, a stray `[/]` cannot crash the
  render), and `::` broken up so that no line of stdout, however rich wraps it, can start a GitHub
  workflow command (`::notice::`, `::add-mask::`, `::stop-commands::`).
- `markdown`: `plain`, HTML escaped (no `<h2>`, `<img>`, `<details>` of its own), and the Markdown
  that would make links, images, emphasis, headings, table cells, code spans or @-mentions
  written as character references, so GitHub shows the text the candidate wrote, nothing more.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")
_CONTROL_NO_NEWLINE = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")
_MARKDOWN = {c: f"&#{ord(c)};" for c in "[]!`*_~|#@\\<>&"}


def plain(text: object, newlines: bool = False) -> str:
    """`text` with every control character escaped (newlines kept when `newlines`)."""
    pattern = _CONTROL if newlines else _CONTROL_NO_NEWLINE

    def show(match: re.Match) -> str:
        code = ord(match.group())
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return pattern.sub(show, str(text).replace("\r\n", "\n") if newlines else str(text))


def inert(text: object, newlines: bool = False) -> str:
    """For a console where it is printed as a rich `Text` (no markup parsed): no control
    characters, no workflow command."""
    return plain(text, newlines).replace("::", ": :")


def terminal(text: object, newlines: bool = False) -> str:
    """For a rich console printed with markup on: no markup, no control, no workflow command."""
    from rich.markup import escape

    return escape(inert(text, newlines))


def markdown(text: object) -> str:
    """For a line of GitHub-flavoured Markdown (newlines become spaces): shows as text only."""
    text = plain(str(text).replace("\r", " ").replace("\n", " "))
    return "".join(_MARKDOWN.get(c, c) for c in text).replace("://", "&#58;//")  # no autolinks either


def markdown_block(text: object) -> str:
    """For the inside of a `<pre>` block in GitHub-flavoured Markdown (newlines kept): every
    character that could start markup is an entity, so the block shows the candidate's text
    exactly and nothing in it can close the block, open a tag, a link or a mention."""
    text = plain(text, newlines=True)
    return "".join(_MARKDOWN.get(c, c) for c in text).replace("://", "&#58;//")

