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
  GitHub's autolinks are broken too: `scheme://` and `www.` by a character reference (matched
  while parsing), and bare e-mail addresses (`user@example.com`, `mailto:`/`xmpp:` ones), which
  GitHub matches after character references are decoded, by an invisible `<wbr>` after the `@`.

Lone surrogates and non-UTF-8 bytes of file names are shown as escapes too (`\\ud800`, `\\xff`):
nothing a report writes can fail to encode. The result model already applies this when a result
is built (`grader.results.safe_text`); `plain` applies it again for text from elsewhere.
"""

from __future__ import annotations

import re

from grader.results import safe_text

_MARKDOWN = {c: f"&#{ord(c)};" for c in "[]!`*_~|#@\\<>&"}
_WWW = re.compile(r"(?i)\b(www)\.")
_AT = "&#64;"


def plain(text: object, newlines: bool = False) -> str:
    """`text` with every control character escaped (newlines kept when `newlines`), and every
    surrogate (`grader.results.safe_text`)."""
    return safe_text(str(text), newlines=newlines)


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
    text = "".join(_MARKDOWN.get(c, c) for c in text).replace("://", "&#58;//")  # no autolinks either:
    return _WWW.sub(r"\1&#46;", text).replace(_AT, _AT + "<wbr>")  # nor www. ones, nor e-mail addresses


def markdown_block(text: object) -> str:
    """For the inside of a `<pre>` block in GitHub-flavoured Markdown (newlines kept): every
    character that could start markup is an entity, so the block shows the candidate's text
    exactly and nothing in it can close the block, open a tag, a link or a mention."""
    text = plain(text, newlines=True)
    return _WWW.sub(r"\1&#46;", "".join(_MARKDOWN.get(c, c) for c in text).replace("://", "&#58;//"))

