"""`grader similarity`: planted pairs rank above independent solutions of the same exercise, the
stub never counts, folders, archives and notebooks all work, and the HTML page (side by side,
matching regions highlighted) is checked in a real headless Chromium like tests/reports/test_html.py."""
from __future__ import annotations

import ast
import json
import re
import zipfile
from pathlib import Path

import nbformat
import pytest
from click.testing import CliRunner
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from grader.cli import cli
from grader.similarity import compare

pytest.importorskip("copydetect", reason="the similarity extra is not installed (pip install -e '.[similarity]')")

ROOT = Path(__file__).resolve().parents[2]
STUB = (ROOT / "exercises/tensors/05_broadcast_bias/broadcast_bias.py").read_text()
HEADER = STUB.split("\n\n\ndef ", 1)[0]

ORIGINAL = {  # alice's answer: the stub's signatures and docstrings, her bodies
    "add_feature_bias": '''def add_feature_bias(x: Tensor, bias: Tensor) -> Tensor:
    """x (N,F) + bias (F,) broadcast over rows."""
    row_vector = bias.view(1, -1)
    summed = x + row_vector
    return summed
''',
    "add_sample_bias": '''def add_sample_bias(x: Tensor, bias: Tensor) -> Tensor:
    """x (N,F) with bias[i] added to every element of row i; bias is (N,); correct even when N == F."""
    column = bias.reshape(-1, 1).to(dtype=x.dtype)
    shifted = x + column.expand(-1, x.shape[1])
    return shifted
''',
    "pairwise_sq_dists": '''def pairwise_sq_dists(a: Tensor, b: Tensor) -> Tensor:
    """(N,D),(M,D) -> (N,M) squared Euclidean distances via broadcasting, using O(N*M) extra memory (not O(N*M*D)), clamped at 0."""
    norms_left = torch.sum(a ** 2, dim=1, keepdim=True)
    norms_right = torch.sum(b ** 2, dim=1, keepdim=True).transpose(0, 1)
    cross_terms = torch.matmul(a, b.transpose(0, 1))
    distances = norms_left + norms_right - 2 * cross_terms
    distances = torch.clamp(distances, min=0.0)
    return distances
''',
}


def renamed_copy() -> str:
    """bob's copy of alice: every local renamed, functions reordered, comments and blank lines added."""
    renames = {"row_vector": "b_row", "summed": "res", "column": "col_b", "shifted": "output", "norms_left": "na",
               "norms_right": "nb", "cross_terms": "ab", "distances": "d"}
    parts = []
    for name in ("pairwise_sq_dists", "add_sample_bias", "add_feature_bias"):
        text = ORIGINAL[name]
        for old, new in renames.items():
            text = re.sub(rf"\b{old}\b", new, text)
        parts.append(text.replace("    return", "\n    # done\n    return"))
    return HEADER + "\n\n\n# my solutions\n" + "\n\n".join(parts)


# the answers carry the stub's own docstrings, as a candidate who fills the stub in does
STUB_DOCS = {node.name: ast.get_docstring(node) for node in ast.parse(STUB).body if isinstance(node, ast.FunctionDef)}
WRITTEN_DOCS = {"add_feature_bias": "x (N,F) + bias (F,) broadcast over rows.",
                "add_sample_bias": "x (N,F) with bias[i] added to every element of row i; bias is (N,); correct even when "
                                   "N == F.",
                "pairwise_sq_dists": "(N,D),(M,D) -> (N,M) squared Euclidean distances via broadcasting, using O(N*M) "
                                     "extra memory (not O(N*M*D)), clamped at 0."}


def _stub_docstrings(text: str) -> str:
    for name, doc in WRITTEN_DOCS.items():
        text = text.replace(f'"""{doc}"""', f'"""{STUB_DOCS[name]}"""')
    return text


INDEPENDENT = [
    '''def add_feature_bias(x: Tensor, bias: Tensor) -> Tensor:
    """x (N,F) + bias (F,) broadcast over rows."""
    return x + bias


def add_sample_bias(x: Tensor, bias: Tensor) -> Tensor:
    """x (N,F) with bias[i] added to every element of row i; bias is (N,); correct even when N == F."""
    return x + bias.unsqueeze(1)


def pairwise_sq_dists(a: Tensor, b: Tensor) -> Tensor:
    """(N,D),(M,D) -> (N,M) squared Euclidean distances via broadcasting, using O(N*M) extra memory (not O(N*M*D)), clamped at 0."""
    a_sq = (a * a).sum(dim=1, keepdim=True)
    b_sq = (b * b).sum(dim=1).unsqueeze(0)
    return (a_sq + b_sq - 2.0 * a @ b.T).clamp_min(0.0)
''',
    '''def add_feature_bias(x: Tensor, bias: Tensor) -> Tensor:
    """x (N,F) + bias (F,) broadcast over rows."""
    return torch.add(x, bias[None, :])


def add_sample_bias(x: Tensor, bias: Tensor) -> Tensor:
    """x (N,F) with bias[i] added to every element of row i; bias is (N,); correct even when N == F."""
    return torch.add(x, bias[:, None])


def pairwise_sq_dists(a: Tensor, b: Tensor) -> Tensor:
    """(N,D),(M,D) -> (N,M) squared Euclidean distances via broadcasting, using O(N*M) extra memory (not O(N*M*D)), clamped at 0."""
    sq = torch.einsum("nd,nd->n", a, a)[:, None] + torch.einsum("md,md->m", b, b)[None, :]
    return torch.relu(sq - 2 * torch.einsum("nd,md->nm", a, b))
''',
    '''def add_feature_bias(x: Tensor, bias: Tensor) -> Tensor:
    """x (N,F) + bias (F,) broadcast over rows."""
    y = x.clone()
    y += bias.unsqueeze(0)
    return y


def add_sample_bias(x: Tensor, bias: Tensor) -> Tensor:
    """x (N,F) with bias[i] added to every element of row i; bias is (N,); correct even when N == F."""
    y = x.clone()
    y += bias.view(-1, 1)
    return y


def pairwise_sq_dists(a: Tensor, b: Tensor) -> Tensor:
    """(N,D),(M,D) -> (N,M) squared Euclidean distances via broadcasting, using O(N*M) extra memory (not O(N*M*D)), clamped at 0."""
    aa = a.pow(2).sum(-1).view(-1, 1)
    bb = b.pow(2).sum(-1).view(1, -1)
    out = aa + bb - 2 * (a @ b.t())
    out[out < 0] = 0
    return out
''',
]


@pytest.fixture(scope="module")
def submissions(tmp_path_factory) -> list[Path]:
    """alice (a folder), bob (a zip: her renamed and reordered copy), three independent answers
    (one as a notebook), and two candidates who left the stub as it was."""
    base = tmp_path_factory.mktemp("subs")
    alice = base / "alice" / "tensors" / "05_broadcast_bias"
    alice.mkdir(parents=True)
    (alice / "broadcast_bias.py").write_text(HEADER + "\n\n\n" + _stub_docstrings("\n\n".join(ORIGINAL.values())))
    with zipfile.ZipFile(base / "bob.zip", "w") as zf:
        zf.writestr("bob/broadcast_bias.py", _stub_docstrings(renamed_copy()))
    paths = [base / "alice", base / "bob.zip"]
    for i, body in enumerate(INDEPENDENT):
        folder = base / f"indep{i}"
        folder.mkdir()
        (folder / "broadcast_bias.py").write_text(HEADER + "\n\n\n" + _stub_docstrings(body))
        paths.append(folder)
    nb = new_notebook()
    nb.cells = [new_markdown_cell("answers"), new_code_cell(HEADER)]
    nb.cells += [new_code_cell("def " + part) for part in _stub_docstrings(INDEPENDENT[1]).split("\n\n\ndef ")[1:]]
    nb.cells[2].source = nb.cells[2].source.removeprefix("def ")
    nbformat.write(nb, base / "nora.ipynb")
    paths[3] = base / "nora.ipynb"  # indep1 as a notebook instead of a folder
    for name in ("stub1", "stub2"):
        (base / name).mkdir()
        (base / name / "broadcast_bias.py").write_text(STUB)
        paths.append(base / name)
    return paths


def all_scores(report) -> dict[frozenset, float]:
    return {frozenset((p.a, p.b)): p.score for p in report.pairs}


def test_the_planted_copy_ranks_above_independent_solutions(submissions):
    report = compare(submissions, exercises=["05"], threshold=0.0)
    assert report.problems == []
    assert set(report.sources["05_broadcast_bias"]) == {"alice", "bob", "indep0", "nora", "indep2", "stub1", "stub2"}
    assert report.sources["05_broadcast_bias"]["nora"].shown == "nora.ipynb"
    scores = all_scores(report)
    copied = scores[frozenset(("alice", "bob"))]
    others = {pair: score for pair, score in scores.items() if pair != frozenset(("alice", "bob"))}
    assert copied > 0.6, copied
    assert copied > max(others.values(), default=0) + 0.3, (copied, others)
    assert report.pairs[0].a == "alice" and report.pairs[0].b == "bob"


def test_the_stub_never_counts(submissions):
    report = compare(submissions, exercises=["05"], threshold=0.0)
    scores = all_scores(report)
    # two untouched stubs are textually identical, yet share nothing once the stub is removed
    assert frozenset(("stub1", "stub2")) not in scores
    assert all(not ({"stub1", "stub2"} & set(pair)) for pair in scores)
    # and the stub's text is never highlighted as a match
    pair = report.pairs[0]
    regions_a, _ = report.regions(pair)
    text = report.sources["05_broadcast_bias"][pair.a].text
    assert all(doc in text for doc in STUB_DOCS.values())  # the answer holds the stub's text...
    assert regions_a and all(not any(doc in text[s:e] for doc in STUB_DOCS.values()) and HEADER not in text[s:e]
                             for s, e in regions_a)  # ...never highlighted


def test_threshold_keeps_only_close_pairs(submissions):
    report = compare(submissions, exercises=["05"], threshold=0.6)
    assert [(p.a, p.b) for p in report.pairs] == [("alice", "bob")]
    data = report.to_dict()
    assert data["exercises"] == [{"id": "05_broadcast_bias", "files": 7, "pairs_above": 1,
                                  "max_score": round(report.pairs[0].score, 4)}]


def test_cli_writes_json_and_html(submissions, tmp_path):
    result = CliRunner().invoke(cli, ["similarity", *map(str, submissions), "--exercises", "05",
                                      "--json", str(tmp_path / "s.json"), "--html", str(tmp_path / "s.html")])
    assert result.exit_code == 0, result.output
    assert re.search(r"05_broadcast_bias\s+alice\s+bob\s+0\.\d+", result.output), result.output
    data = json.loads((tmp_path / "s.json").read_text())
    assert [(p["a"], p["b"]) for p in data["pairs"]] == [("alice", "bob")]
    assert (tmp_path / "s.html").read_text().startswith("<!doctype html>")


def test_cli_needs_two_submissions(submissions):
    result = CliRunner().invoke(cli, ["similarity", str(submissions[0])])
    assert result.exit_code == 2 and "at least two submissions" in result.output


# --- the HTML page in a real headless Chromium -------------------------------------------------------

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (dev extras)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def open_page(browser, path: Path, screenshot: Path):
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors, requests = [], []
    page.on("console", lambda m: m.type in ("error", "warning") and errors.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    page.screenshot(path=str(screenshot), full_page=True)
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return page, errors, requests


def test_html_page_shows_pairs_side_by_side_with_matches_highlighted(browser, submissions, tmp_path):
    from grader.similarity.report import write_html

    report = compare(submissions, exercises=["05"], threshold=0.02)
    path = tmp_path / "similarity.html"
    write_html(report, path)
    page, errors, requests = open_page(browser, path, tmp_path / "similarity.png")
    assert errors == [] and requests == [path.as_uri()]
    rows = page.locator("table.pairs tbody tr")
    assert rows.count() == len(report.pairs) >= 3
    assert (rows.first.get_attribute("data-a"), rows.first.get_attribute("data-b")) == ("alice", "bob")
    first = page.locator("section.pair").first
    assert float(first.get_attribute("data-score")) == pytest.approx(report.pairs[0].score, abs=1e-4)
    left, right = first.locator("figure[data-side=a]"), first.locator("figure[data-side=b]")
    # side by side: same row, left then right
    lbox, rbox = left.bounding_box(), right.bounding_box()
    assert abs(lbox["y"] - rbox["y"]) < 2 and lbox["x"] + lbox["width"] <= rbox["x"] + 1
    marked_left = left.locator("mark").all_inner_texts()
    marked_right = right.locator("mark").all_inner_texts()
    assert len(marked_left) >= 8 and len(marked_right) >= 8
    assert any("torch.matmul(" in m for m in marked_left) and any("torch.matmul(" in m for m in marked_right)
    stub_lines = {line.strip() for line in STUB.splitlines() if line.strip()}
    assert not [m for m in marked_left + marked_right if m.strip() in stub_lines]
    # the copy is mostly highlighted, an independent pair barely
    def coverage(figure) -> float:
        """The share of the candidate's own code (lines not in the stub) that is highlighted."""
        own = [line.strip() for line in figure.locator("pre").inner_text().splitlines()]
        own = [line for line in own if line not in stub_lines]
        return len("".join(m.strip() for m in figure.locator("mark").all_inner_texts())) / len("".join(own))

    # the last pair of two submissions (the pairs with the reference solution come after them)
    last = page.locator('section.pair:not([data-b="reference solution"])').last
    assert coverage(left) > 0.8 and coverage(last.locator("figure[data-side=a]")) < 0.4, \
        (coverage(left), coverage(last.locator("figure[data-side=a]")))
    # a notebook's lines are labelled with their cell
    nora = page.locator('section.pair[data-a="nora"] figure[data-side=a], '
                        'section.pair[data-b="nora"] figure[data-side=b]').first
    assert re.fullmatch(r"c\d+:\d+", nora.locator(".l").first.get_attribute("data-n"))
    page.close()


def test_html_shows_untrusted_text_as_text(browser, submissions, tmp_path):
    from grader.similarity.report import render

    hostile = tmp_path / "<img src=x onerror=alert(1)>"
    hostile.mkdir()
    payload = '<script>document.title="pwned"</script>'
    (hostile / "broadcast_bias.py").write_text(HEADER + "\n\n\n" + ORIGINAL["add_feature_bias"] + f"\n# {payload}\n"
                                               + ORIGINAL["pairwise_sq_dists"])
    report = compare([submissions[0], hostile], exercises=["05"], threshold=0.1)
    assert len(report.pairs) == 1
    path = tmp_path / "hostile.html"
    path.write_text(render(report))
    page, errors, requests = open_page(browser, path, tmp_path / "hostile.png")
    assert errors == [] and requests == [path.as_uri()]
    assert page.title().startswith("torch-grader similarity") and page.locator("script, img").count() == 0
    assert payload in page.locator("figure[data-side=b] pre").inner_text()
    page.close()
