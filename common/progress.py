"""The progress callback long jobs report through, (done, total, stage), its no-op, and the
bars a command draws from it (tqdm): counts and time left on a terminal, nothing under
--json or without one."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

ProgressCallback = Callable[[int, int, str], None]


def progress_noop(done: int, total: int, stage: str) -> None:
    """The progress callback of a caller that does not watch."""
    return None


def progress_bar_open(*, total: int, stage: str, stream: TextIO, quiet: bool = False):
    """A tqdm bar of `total` on `stream` (a command's stderr) with its counts and the time
    left; disabled when `quiet` (the command's --json) or when `stream` is no terminal."""
    from tqdm import tqdm

    stream = getattr(stream, "_out", stream)  # a command's OutputWrapper adds newlines
    quiet = quiet or not (hasattr(stream, "isatty") and stream.isatty())
    return tqdm(total=total, desc=stage, file=stream, disable=quiet, dynamic_ncols=True)


def progress_bar(stream: TextIO, *, quiet: bool = False) -> ProgressCallback:
    """A progress(done, total, stage) callback drawing a bar per stage (progress_bar_open)."""
    current = {"bar": None, "key": None}

    def progress(done: int, total: int, stage: str) -> None:
        if current["key"] != (stage, total):
            if current["bar"] is not None:
                current["bar"].close()
            current["bar"] = progress_bar_open(total=total, stage=stage, stream=stream, quiet=quiet)
            current["key"] = (stage, total)
        current["bar"].update(done - current["bar"].n)
        if done >= total:
            current["bar"].close()
            current["key"] = None

    return progress
