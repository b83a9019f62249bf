"""Small pieces the dataset analysis modules share: self-filling dicts (per-word caches,
token numbering), the size at which a cache is emptied, the progress callback's type and
its no-op."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

CACHE_LIMIT = 1_000_000  # entries of a per-word cache before it is emptied

ProgressCallback = Callable[[int, int, str], None]


def progress_noop(done: int, total: int, stage: str) -> None:
    """The progress callback of a caller that does not watch."""
    return None


class Index(dict):
    """A dict that numbers new keys 0, 1, 2, ... on first lookup (``index[key]``)."""

    __slots__ = ()

    def __missing__(self, key: Any) -> int:
        value = self[key] = len(self)
        return value


class Computed(dict):
    """A dict that fills a missing key with ``function(key)`` on first lookup."""

    __slots__ = ("function",)

    def __init__(self, function: Callable[[Any], Any]) -> None:
        super().__init__()
        self.function = function

    def __missing__(self, key: Any) -> Any:
        value = self[key] = self.function(key)
        return value


def t_two_sided_p(t: float, df: float) -> float:
    """Two-sided p-value of Student's t statistic ``t`` with ``df`` degrees of freedom.

    scipy.special's t distribution (what scipy.stats uses underneath): importing
    scipy.stats costs a command-line analysis more time than the statistics themselves.
    """
    from scipy.special import stdtr

    return float(2.0 * stdtr(df, -abs(t)))


def mean_or_none(total: float, count: int) -> float | None:
    """``total / count``, or None (the mean of nothing) when ``count`` is 0."""
    return total / count if count else None
