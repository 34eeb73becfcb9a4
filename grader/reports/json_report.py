"""JSON report: the versioned result model (`results.SCHEMA_VERSION`), keys in stable order."""

from __future__ import annotations

import json

from grader.results import GradeRun


def render(run: GradeRun) -> str:
    return json.dumps(run.to_dict(), indent=2, ensure_ascii=False) + "\n"
