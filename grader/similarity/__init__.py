"""`grader similarity`: who copied from whom, per exercise.

    from grader.similarity import compare
    report = compare(["alice.zip", "bob/", "carol.ipynb"], exercises=["05"])
    for pair in report.pairs_above(0.5):
        print(pair.exercise, pair.a, pair.b, pair.score)

Each submission's file for an exercise (a .py, or the code cells of a notebook) is fingerprinted
with copydetect's winnowing (MOSS's algorithm) over Python tokens with every name replaced by one
symbol (renaming changes nothing), comments and whitespace dropped (`fingerprint`): hashes of
k-grams kept by a sliding-window minimum (so reordering functions keeps the same fingerprints). The exercise's stub
is fingerprinted too and its hashes are removed from every file (boilerplate never counts), and
so are hashes that more than half of the submissions share (the idioms everybody writes, as MOSS's
`-m`). A pair's score is the Dice coefficient of the two fingerprint sets (2|A∩B| / (|A|+|B|)); pairs
are found through an inverted index, so only pairs that share a fingerprint are ever compared.
Matching regions (for the HTML page) come from copydetect's `compare_files`.

Needs the `similarity` extra: `pip install 'torch-grader[similarity]'`.
"""

from grader.similarity.engine import Pair, SimilarityReport, compare

__all__ = ["Pair", "SimilarityReport", "compare"]
