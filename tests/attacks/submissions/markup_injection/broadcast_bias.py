"""Attack: inject markup and control into what people read. Every function raises with a message
made of rich markup (a stray `[/]` crashed `grader grade` with MarkupError), terminal escape
sequences (erase the screen, move the cursor, rewrite the line) drawing a forged total, a GitHub
workflow command at the start of a line, and HTML and Markdown (a forged `<h2>` headline, a link,
an image, an @-mention) for the PR summary. At import it also rewrites the worker's "ready"
message so that its `sandbox` field carries the same payload, which used to become a run note.
Honest baseline: 0 (every function raises).
Expected: the messages are shown as text in every report (escaped), the sandbox field is never
shown (FORGED-NOTE appears nowhere), the terminal table renders and no stdout line starts with ::.
"""
import sys

PAYLOAD = ("[bold red]x[/] [/] \x1b[2J\x1b[H\x1b[1A\x1b[2K\rtorch-grader: 10 / 10 (100 %)\n"
           "::notice title=torch-grader::10 / 10 (100 %)\n"
           "<h2>torch-grader: 10 / 10 (100 %)</h2> [details](https://attacker.example/x) "
           "![badge](https://attacker.example/i.png) @interviewers \u202egnp.exe")

_worker = sys.modules.get("grader.sandbox.worker")
if _worker is not None:
    _real_send = _worker._send

    def _send(sock, state, answer):
        if isinstance(answer, dict) and "ready" in answer:
            answer = {**answer, "sandbox": "FORGED-NOTE " + PAYLOAD}
        return _real_send(sock, state, answer)

    _worker._send = _send


def add_feature_bias(x, bias):
    raise RuntimeError(PAYLOAD)


def add_sample_bias(x, bias):
    raise ValueError(PAYLOAD)


def pairwise_sq_dists(a, b):
    raise RuntimeError(PAYLOAD * 3)
