"""The progress callback long jobs report through, (done, total, stage), and its no-op."""

from __future__ import annotations

from collections.abc import Callable

ProgressCallback = Callable[[int, int, str], None]


def progress_noop(done: int, total: int, stage: str) -> None:
    """The progress callback of a caller that does not watch."""
    return None
