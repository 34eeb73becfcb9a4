"""`grader watch`'s short time limit: an endless loop is reported in seconds, not after the
exercise's full limit.

A check's time limit counts the CPU time of its worker (`grader.sandbox.client`). `grader check`
and grading give each check its full limit (the exercise's `timeout_s`, 30 s by default, or the
check's own); `grader watch` reruns at every save, where waiting half a minute for a loop that
never ends is the slowest feedback there is. It gives each check `watch_limit(limit)`: WATCH_LIMIT_S
(5 s) for a check with the default limit, a sixth of a longer limit that an author set on purpose
(a cold torch.export or torch.compile: 15 or 20 s), never more than the full limit. `--timeout-s`
on `grader watch` sets the limit itself. A check stopped by the short limit says so, and how to
give it the full limit (`grader check`).

The judge reads `QUICK_KEY` from its spec (set by `grader.practice.session` only).
"""

from __future__ import annotations

WATCH_LIMIT_S = 5.0  # CPU seconds per check in `grader watch`
SHARE_OF_LONGER_LIMITS = 1 / 6
QUICK_KEY = "quick_limits"  # the judge's spec: give each check `watch_limit` of its limit


def watch_limit(limit: float) -> float:
    """The CPU seconds a check whose full limit is `limit` gets in `grader watch`."""
    return min(limit, max(WATCH_LIMIT_S, limit * SHARE_OF_LONGER_LIMITS))


def endless_loop_note(message: str, quick: float, full: float, exercise: str = "") -> str:
    """`message` of a check stopped by the short limit, with what it likely means."""
    if quick >= full or "time limit" not in message:
        return message
    check = f"`grader check {exercise.split('_', 1)[0]}`" if exercise else "`grader check`"
    likely = "waiting forever (a sleep, a blocking call)" if "sleeping or blocked" in message else "an endless loop"
    return (f"{message}\nlikely {likely}: `grader watch` stops a check after {quick:g} s of CPU time "
            f"({check} allows {full:g} s, if your code is only slow)")
