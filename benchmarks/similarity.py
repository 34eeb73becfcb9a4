"""`grader similarity` at scale, and the fingerprinting libraries compared (one run; it is a
shared machine, so the sizes are few and each is timed once).

    .venv/bin/python benchmarks/similarity.py [--submissions 300] [--exercises 10]

1. Generates N submissions x E exercises (the first E exercises' stubs with generated bodies: 3-12
   statements per function from a vocabulary of tensor operations, random local names): folders
   in the exercise layout, every 5th one a .zip, every 7th one with notebooks instead of .py files.
   Every 25th submission is a planted copy of the one before (locals renamed, functions reordered,
   comments added). Times `compare()` (open, locate, convert notebooks, fingerprint, score) at
   N/4, N/2 and N submissions to show how it grows, and checks that every planted pair is found.
2. Library comparison on one exercise with max(50, N/6) submissions: the copydetect engine (winnowing,
   inverted index) against pycode_similar (AST diff per pair of functions) and difflib (sequence
   matching of normalized tokens, per pair): time, and the rank of the planted pairs among all
   pairs (1.0: every planted pair above every other pair).
"""
from __future__ import annotations

import argparse
import difflib
import io
import random
import re
import shutil
import sys
import tempfile
import time
import tokenize
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.catalog import Catalog  # noqa: E402
from grader.similarity import compare  # noqa: E402

OPS = ["{v} = {a} + {b}", "{v} = torch.matmul({a}, {b}.T)", "{v} = {a}.sum(dim={d}, keepdim=True)",
       "{v} = torch.relu({a}) * {k}", "{v} = {a}.view(-1, 1) - {b}", "{v} = torch.clamp({a}, min={k})",
       "{v} = {a}.unsqueeze({d}).expand_as({b})", "{v} = torch.where({a} > {k}, {a}, {b})",
       "{v} = {a}.transpose(0, 1).contiguous()", "{v} = ({a} ** 2).mean(dim={d})", "{v} = torch.cat([{a}, {b}], dim={d})",
       "{v} = F.softmax({a}, dim=-1)", "{v} = {a}.detach().clone()", "{v} = torch.einsum('ij,jk->ik', {a}, {b})",
       "for _i in range({k}):\n        {v} = {v} + {a}[_i]", "if {a}.dim() > {d}:\n        {v} = {a}.flatten({d})",
       "{v} = torch.stack([{a}, {b}]).amax(0)", "{v} = {a}.new_zeros({a}.shape).scatter_add_({d}, {b}.long(), {a})"]
WORDS = ["x", "y", "z", "out", "acc", "tmp", "res", "val", "buf", "h", "w", "q", "k", "s", "m", "t", "u", "p"]


def body(rng: random.Random, args: list[str]) -> list[str]:
    names = list(args) or ["x"]
    lines = []
    for _ in range(rng.randint(3, 12)):
        v = rng.choice(WORDS) + str(rng.randint(0, 99))
        a, b = rng.choice(names), rng.choice(names)
        lines.append("    " + rng.choice(OPS).format(v=v, a=a, b=b, d=rng.randint(0, 2), k=rng.randint(1, 9)))
        names.append(v)
    lines.append(f"    return {names[-1]}")
    return lines


def answer(stub: str, rng: random.Random) -> str:
    """The stub with every `raise NotImplementedError` replaced by a generated body."""
    out, args = [], []
    for line in stub.splitlines():
        sig = re.match(r"\s*def \w+\((.*?)\)", line)
        if sig:
            args = [a.split(":")[0].split("=")[0].strip() for a in sig.group(1).split(",")]
            args = [a for a in args if a and a not in ("self", "*", "/") and not a.startswith("*")]
        if line.strip() == "raise NotImplementedError":
            out += [("    " * (len(line) - len(line.lstrip()) > 4)) + ln for ln in body(rng, args)]
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def disguise(text: str, rng: random.Random) -> str:
    """A planted copy: locals renamed, top-level functions reordered, comments added."""
    for word in set(re.findall(r"\b(?:" + "|".join(WORDS) + r")\d+\b", text)):
        text = re.sub(rf"\b{word}\b", f"renamed_{word}_{rng.randint(0, 999)}", text)
    head, *funcs = re.split(r"\n(?=def |class )", text)
    rng.shuffle(funcs)
    return "\n".join([head, *funcs]).replace("\n    return", "\n    # result\n    return")


def notebook(text: str, path: Path) -> None:
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    nb = new_notebook()
    nb.cells = [new_markdown_cell("my answer")] + [new_code_cell(c) for c in re.split(r"\n(?=def |class )", text)]
    nbformat.write(nb, path)


def generate(out: Path, n: int, exercises, seed: int = 0) -> tuple[list[Path], set[tuple[str, str]]]:
    rng = random.Random(seed)
    paths, planted = [], set()
    previous: dict[str, str] = {}
    for i in range(n):
        name = f"cand{i:03d}"
        folder = out / name
        copy = i % 25 == 24
        for ex in exercises:
            text = disguise(previous[ex.id], rng) if copy else answer(ex.stub.read_text(), rng)
            previous[ex.id] = text
            target = folder / ex.track / ex.id
            target.mkdir(parents=True, exist_ok=True)
            if i % 7 == 3:
                notebook(text, target / f"{ex.name}.ipynb")
            else:
                (target / f"{ex.name}.py").write_text(text)
        if copy:
            planted.add((f"cand{i - 1:03d}", name))
        if i % 5 == 1:
            archive = out / f"{name}.zip"
            with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
                for f in folder.rglob("*"):
                    zf.write(f, f.relative_to(out))
            shutil.rmtree(folder)
            paths.append(archive)
        else:
            paths.append(folder)
    return paths, planted


def planted_rank(scores: dict[tuple[str, str], float], planted: set[tuple[str, str]]) -> float:
    """The share of planted pairs scoring above every pair that is not planted."""
    others = max((s for p, s in scores.items() if p not in planted), default=0.0)
    return sum(scores.get(p, 0.0) > others for p in planted) / max(len(planted), 1)


def tokens(text: str) -> list[str]:
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME:
            out.append("N")
        elif tok.type in (tokenize.OP, tokenize.NUMBER):
            out.append(tok.string)
    return out


def libraries(paths: list[Path], planted, exercise) -> None:
    from grader.similarity.engine import collect

    names_in = {p.name.removesuffix(".zip") for p in paths}
    planted = {p for p in planted if p[0] in names_in and p[1] in names_in}
    labels, sources, _ = collect(paths, [exercise], explicit=True)
    mine = sources[exercise.id]
    names = [label for label in labels if label in mine]
    print(f"\n2. libraries on {exercise.id}, {len(names)} submissions ({len(names) * (len(names) - 1) // 2} pairs)")
    t0 = time.perf_counter()
    report = compare(paths, exercises=[exercise.id], threshold=0.0)
    t_cd = time.perf_counter() - t0
    cd = {(p.a, p.b): p.score for p in report.pairs}
    import pycode_similar

    t0 = time.perf_counter()
    pcs = {}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            try:
                result = pycode_similar.detect([mine[a].text, mine[b].text])
                pcs[(a, b)] = pycode_similar.summarize(result[0][1])[0]
            except Exception:  # noqa: BLE001 - a file without functions
                pcs[(a, b)] = 0.0
    t_pcs = time.perf_counter() - t0
    t0 = time.perf_counter()
    toks = {a: tokens(mine[a].text) for a in names}
    dl = {}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            dl[(a, b)] = difflib.SequenceMatcher(None, toks[a], toks[b], autojunk=False).ratio()
    t_dl = time.perf_counter() - t0
    print(f"{'method':42} {'seconds':>8} {f'planted pairs ranked first (of {len(planted)})':>36}")
    for method, seconds, scores in (("copydetect winnowing + index (chosen)", t_cd, cd),
                                    ("pycode_similar (AST diff per pair)", t_pcs, pcs),
                                    ("difflib on normalized tokens, per pair", t_dl, dl)):
        print(f"{method:42} {seconds:8.2f} {planted_rank(scores, planted):36.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--submissions", type=int, default=300)
    parser.add_argument("--exercises", type=int, default=10)
    args = parser.parse_args()
    exercises = Catalog.load(ROOT).exercises[: args.exercises]
    with tempfile.TemporaryDirectory(prefix="grader-similarity-bench-") as tmp:
        t0 = time.perf_counter()
        paths, planted = generate(Path(tmp), args.submissions, exercises)
        print(f"generated {len(paths)} submissions x {len(exercises)} exercises in {time.perf_counter() - t0:.1f} s "
              f"({len(planted)} planted copies)")
        print(f"\n1. grader similarity (all {len(exercises)} exercises)")
        print(f"{'submissions':>11} {'pairs':>9} {'seconds':>8} {'us/pair':>8} {'planted found':>14} "
              f"{'planted ranked first':>21}")
        for n in sorted({max(2, args.submissions // 4), max(2, args.submissions // 2), args.submissions}):
            subset = paths[:n]
            mine = {p for p in planted if int(p[1][4:]) < n}
            t0 = time.perf_counter()
            report = compare(subset, exercises=[ex.id for ex in exercises], threshold=0.5)
            seconds = time.perf_counter() - t0
            pairs = len(exercises) * n * (n - 1) // 2
            found = {(p.a, p.b) for p in report.pairs}
            scores: dict = {}
            for p in report.pairs:
                scores[(p.a, p.b)] = min(scores.get((p.a, p.b), 1.0), p.score)
            print(f"{n:11d} {pairs:9d} {seconds:8.1f} {seconds / pairs * 1e6:8.1f} "
                  f"{len(mine & found):>7d}/{len(mine):<6d} {planted_rank(scores, mine):21.2f}")
        libraries(paths[: max(50, args.submissions // 6)], planted, exercises[min(4, len(exercises) - 1)])


if __name__ == "__main__":
    main()
