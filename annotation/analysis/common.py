"""Small pieces the dataset analysis modules share: self-filling dicts (per-word caches,
token numbering), the size at which a cache is emptied, a call deferred until its result
is read, and the garbage collector's setting for reading a whole dataset."""

from __future__ import annotations

import functools
import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

CACHE_LIMIT = 1_000_000  # entries of a per-word cache before it is emptied

# The collector's thresholds while a whole dataset is read and kept (the defaults are
# 700, 10, 10): young passes every 100,000 allocations, older ones far more rarely.
LONG_READ_GC_THRESHOLDS = (100_000, 50, 100)
_gc_lock = threading.Lock()
_gc_depth = 0
_gc_saved: tuple[int, ...] = ()


@contextmanager
def long_read_gc() -> Iterator[None]:
    """Run the garbage collector less often (LONG_READ_GC_THRESHOLDS) inside: reading a
    dataset keeps almost all it allocates, which the default thresholds re-examine every
    few hundred allocations (4 s of an export of 100,000 narratives). Cycles are still
    freed; the last of nested or concurrent uses to leave restores the thresholds."""
    global _gc_depth, _gc_saved
    with _gc_lock:
        if _gc_depth == 0:
            _gc_saved = gc.get_threshold()
            gc.set_threshold(*LONG_READ_GC_THRESHOLDS)
        _gc_depth += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_depth -= 1
            if _gc_depth == 0:
                gc.set_threshold(*_gc_saved)


def built_once(build: Callable[[], Any]) -> Callable[[], Any]:
    """``build()``'s result, made on the first call whatever the threads, then kept: a
    model shared by every analysis in the process."""
    lock = threading.Lock()
    made: list = []

    @functools.wraps(build)
    def shared() -> Any:
        if not made:
            with lock:
                if not made:
                    made.append(build())
        return made[0]

    return shared


class Deferred:
    """A call made in this process when its result is asked for, read like a pool's
    AsyncResult (``get``, ``ready``): the analysis' work when no worker pool runs."""

    def __init__(self, function: Callable[..., Any], *args: Any) -> None:
        self.function, self.args = function, args

    def get(self) -> Any:
        return self.function(*self.args)

    def ready(self) -> bool:
        return False  # made when collected, at the end


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
    """Two-sided p-value of Student's t with ``df`` degrees of freedom, from scipy.special
    (importing scipy.stats costs an analysis more time than the statistics themselves)."""
    from scipy.special import stdtr

    return float(2.0 * stdtr(df, -abs(t)))


def mean_or_none(total: float, count: int) -> float | None:
    """``total / count``, or None (the mean of nothing) when ``count`` is 0."""
    return total / count if count else None
