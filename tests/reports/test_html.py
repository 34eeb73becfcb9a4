"""The HTML report (`--html`) in a real headless Chromium: it loads with no console error and no
request but its own file, shows the same numbers as the JSON report, sorts its overview table,
and shows untrusted text (the candidate's messages) as text. A screenshot of each page is saved
under the test's tmp_path."""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from grader.reports import html
from grader.results import CheckResult, Environment, ExerciseResult, Flag, GradeRun, SubmissionResult

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> tuple[Path, dict]:
    """Two submissions graded by the real CLI: the sample (partial credit) and the references."""
    out = tmp_path_factory.mktemp("html")
    result = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(ROOT / "examples" / "sample_submission"),
         str(ROOT / "solutions"), "--exercises", "05,10,18", "--runtime", "local", "--quiet",
         "--json", str(out / "report.json"), "--html", str(out / "report.html")],
        cwd=out, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return out / "report.html", json.loads((out / "report.json").read_text())


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (dev extras)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class Page:
    """A page opened from a file, with what it logged and requested."""

    def __init__(self, browser, path: Path, screenshot: Path):
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: m.type in ("error", "warning") and self.errors.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.goto(path.as_uri())
        self.page.wait_for_load_state("load")
        self.page.screenshot(path=str(screenshot), full_page=True)
        assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and screenshot.stat().st_size > 10_000

    def __getattr__(self, name):
        return getattr(self.page, name)


def number(text: str) -> float:
    return float(text.strip())


def test_report_loads_with_no_console_error_and_no_fetch(browser, graded, tmp_path):
    path, _ = graded
    page = Page(browser, path, tmp_path / "report.png")
    assert page.errors == []
    assert page.requests == [path.as_uri()]
    assert page.title().startswith("torch-grader: ")
    page.close()


def test_numbers_on_the_page_equal_the_json_report(browser, graded, tmp_path):
    path, report = graded
    page = Page(browser, path, tmp_path / "report.png")
    assert page.locator("#total").count() == 0  # several candidates: no total across them

    assert page.locator("section.submission").count() == len(report["submissions"]) == 2
    for sub in report["submissions"]:
        section = page.locator(f'section.submission[data-submission="{sub["name"]}"]')
        head = section.locator("h2")
        assert number(head.locator("[data-field=score]").inner_text()) == pytest.approx(sub["score"], abs=0.005)
        assert number(head.locator("[data-field=max-score]").inner_text()) == pytest.approx(sub["max_score"], abs=0.005)
        assert number(head.locator("[data-field=percent]").inner_text()) == pytest.approx(sub["percent"], abs=0.005)
        row = page.locator(f'#overview-table tr[data-submission="{sub["name"]}"]')
        assert number(row.locator("[data-field=score]").inner_text()) == pytest.approx(sub["score"], abs=0.005)
        assert number(row.locator("[data-field=percent]").inner_text()) == pytest.approx(sub["percent"], abs=0.005)
        assert section.evaluate("s => s.id") == row.locator("a").get_attribute("href").lstrip("#")

    for ex in report["exercises"]:
        section = page.locator(f'section.submission[data-submission="{ex["submission"]}"]')
        row = section.locator(f'tr[data-exercise="{ex["id"]}"]')
        assert number(row.locator("[data-field=score]").inner_text()) == pytest.approx(ex["score"], abs=0.005)
        assert number(row.locator("[data-field=max-score]").inner_text()) == pytest.approx(ex["max_score"], abs=0.005)
        shown = {cell.get_attribute("data-kind"): cell.inner_text() for cell in row.locator("[data-kind]").all()}
        assert shown == {kind: f"{v['passed']}/{v['total']}" for kind, v in ex["by_kind"].items()}
        overview = page.locator(f'#overview-table tr[data-submission="{ex["submission"]}"] '
                                f'[data-exercise="{ex["id"]}"]')
        assert number(overview.inner_text()) == pytest.approx(ex["score"], abs=0.005)

        failing = [c for c in ex["checks"] if c["outcome"] in ("failed", "error")]
        boxes = section.locator(f'.check[data-exercise="{ex["id"]}"]')
        assert boxes.count() == len(failing)
        for check in failing:
            box = section.locator(f'.check[data-exercise="{ex["id"]}"][data-check="{check["name"]}"]')
            assert box.locator("pre").inner_text() == check["message"]
            assert f'check at {check["file"]}:{check["line"]}' in box.locator(".where").inner_text()
    page.close()


def test_environment_is_shown(browser, graded, tmp_path):
    path, report = graded
    env = report["environment"]
    page = Page(browser, path, tmp_path / "report.png")
    assert page.locator("#environment").evaluate("d => d.open") is False  # after the scores, collapsed
    page.locator("#environment > summary").click()
    assert page.locator("#environment [data-field=runtime]").inner_text() == env["runtime"] == "local"
    assert page.locator("#environment [data-field=torch]").inner_text() == env["torch"]
    gpu = page.locator("#environment [data-field=gpu]").inner_text()
    assert gpu == ("graded without GPU" if not env["gpus"] else f"CUDA {env['cuda']} · {env['gpu_summary']}")
    assert page.locator("#environment [data-field=protections] li").all_inner_texts() == env["protections"]
    page.close()


def test_overview_table_sorts_by_any_column(browser, graded, tmp_path):
    path, report = graded
    page = Page(browser, path, tmp_path / "report.png")
    order = lambda: page.locator("#overview-table tbody tr").evaluate_all(  # noqa: E731
        "rows => rows.map(r => r.dataset.submission)")
    by_percent = [s["name"] for s in sorted(report["submissions"], key=lambda s: s["percent"])]
    header = page.locator("#overview-table th", has_text="%")
    header.click()
    assert order() == by_percent
    assert header.get_attribute("aria-sort") == "ascending"
    header.click()
    assert order() == by_percent[::-1]
    page.locator("#overview-table th", has_text="submission").click()
    assert order() == sorted(by_percent, key=str.lower)
    assert page.errors == []
    page.close()


def hostile_run() -> GradeRun:
    payload = '<img src=x onerror="document.title=\'pwned\'"><script>document.title="pwned"</script>'
    check = CheckResult(name="test_x", kind="value", weight=1.0, visibility="hidden", outcome="failed",
                        message=f"expected 1, got {payload}", duration_s=0.1, file="exercises/t/05_x/test_hidden.py",
                        line=7, score=0.0, max_score=5.0)
    passed = dataclasses.replace(check, name="test_y", outcome="passed", message="", score=5.0)
    gpu_check = dataclasses.replace(check, name="test_cuda", kind="device", outcome="not_run", message="no CUDA",
                                    max_score=0.0)
    ex = ExerciseResult(id="05_x", title=f"title {payload}", track="t", difficulty="easy", points=10.0,
                        file="t/05_x/x.py", checks=(check, passed, gpu_check),
                        flags=(Flag(3, f"assigns to torch.cuda.is_available {payload}"),))
    subs = (SubmissionResult(name=f"alice{payload}", path="/a", exercises=(ex,)),
            SubmissionResult(name="bob", path="/b.zip", exercises=(), error=f"refused: {payload}"))
    env = Environment(runtime="docker", python="3.11", torch="2.13.0", cuda="12.8", gpus=("NVIDIA H100",),
                      protections=("network none", "read-only root"), notes=(f"note {payload}",))
    return GradeRun(submissions=subs, environment=env, started_at="2026-01-01T00:00:00+00:00", duration_s=1.0,
                    tool_version="0.1.0")


def test_untrusted_text_is_shown_as_text(browser, tmp_path):
    path = tmp_path / "hostile.html"
    path.write_text(html.render(hostile_run()), encoding="utf-8")
    page = Page(browser, path, tmp_path / "hostile.png")
    assert page.errors == [] and page.requests == [path.as_uri()]
    assert page.title() == "torch-grader: 2 submissions"  # no total across candidates
    assert page.locator("img").count() == 0 and page.locator("script").count() == 1
    assert "<script>" in page.locator(".check pre").inner_text()
    assert "<img src=x" in page.locator(".flags li").inner_text()
    page.locator("#environment > summary").click()
    assert page.locator("#environment [data-field=gpu]").inner_text() == "CUDA 12.8 · NVIDIA H100"
    assert "refused: <img" in page.locator(".error-box").inner_text()
    assert "1 check(s) could not run here" in page.locator("#environment").inner_text()
    page.close()


def test_page_is_self_contained():
    text = html.render(hostile_run())
    assert text.count("<style>") == 1 and text.count("<script>") == 1
    for needle in ("http://", "https://", " src=", "<link rel=\"stylesheet\"", "@import", "url("):
        assert needle not in text.replace("&lt;img src=x", ""), needle
    assert "Content-Security-Policy" in text and "default-src 'none'" in text
