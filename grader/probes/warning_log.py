"""Warnings raised in the worker, recorded with every filter set to "always", and whether the code
replaced `warnings`' functions or filters while they were recorded."""

from __future__ import annotations

from typing import Any


class WarningLog:
    """What `capture_warnings` saw: `records` (plain dicts: `category`, `categories` (the
    category's class and its bases, by name), `message`, `filename`, `lineno`), in order, and
    `tampered` (names in `warnings` that the code inside the block replaced, or `filters` when it
    changed the filters: a warning may then have been hidden)."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.tampered: list[str] = []

    def count(self, category: str | None = None, match: str | None = None) -> int:
        """Warnings of `category` (a class name, its bases count: "Warning" counts all) whose
        message contains `match`."""
        return sum(1 for r in self.records
                   if (category is None or category in r["categories"]) and (match is None or match in r["message"]))

    def as_data(self) -> dict[str, Any]:
        return {"records": list(self.records), "tampered": list(self.tampered)}


class _CaptureWarnings:
    _WATCH = ("warn", "warn_explicit", "showwarning", "_showwarnmsg", "_showwarnmsg_impl", "formatwarning")

    def __init__(self) -> None:
        self.log = WarningLog()
        self._inner: Any = None

    def __enter__(self) -> WarningLog:
        import warnings

        self._inner = warnings.catch_warnings(record=True)
        self._raw = self._inner.__enter__()
        warnings.simplefilter("always")
        self._filters = list(warnings.filters)
        self._names = {name: vars(warnings).get(name) for name in self._WATCH}
        return self.log

    def __exit__(self, *exc: Any) -> None:
        import warnings

        try:
            self.log.tampered = [n for n, v in self._names.items() if vars(warnings).get(n) is not v]
            if list(warnings.filters) != self._filters:
                self.log.tampered.append("filters")
            for w in self._raw:
                cat = w.category
                self.log.records.append({
                    "category": cat.__name__, "categories": [c.__name__ for c in cat.__mro__ if c is not object],
                    "message": str(w.message), "filename": str(w.filename), "lineno": int(w.lineno or 0)})
        finally:
            self._inner.__exit__(*exc)


def capture_warnings() -> _CaptureWarnings:
    """Record every warning raised inside the `with` block (in the worker: `pytest.warns` in the
    judge cannot see them), with every filter set to "always" so that none is swallowed as a
    repeat, and restore the `warnings` module when the block ends:

        with probes.capture_warnings() as seen:
            mod.run_steps(opt, sched, closure, 5)
        return seen.as_data()        # {"records": [{"category": "UserWarning", "message": ...}], "tampered": []}

    A submission that replaces `warnings.warn`/`showwarning` or changes the filters inside the
    block is named in `tampered`; checks that rely on the absence of a warning must require it
    to be empty. (A replacement left behind after the block also trips the worker's tamper guard.)"""
    return _CaptureWarnings()
