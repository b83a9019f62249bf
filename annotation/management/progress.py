"""Progress lines on stderr for long management commands."""

from __future__ import annotations

import time
from typing import TextIO

from common.progress import ProgressCallback


def progress_printer(stream: TextIO, *, every: float = 2.0) -> ProgressCallback:
    """A progress(done, total, stage) callback: a line when a stage starts or ends, and
    at most one every `every` seconds in between."""
    state = {"stage": None, "done": None, "at": 0.0}

    def progress(done: int, total: int, stage: str) -> None:
        now = time.monotonic()
        same_stage = stage == state["stage"]
        if same_stage and (done == state["done"] or (done < total and now - state["at"] < every)):
            return
        state.update(stage=stage, done=done, at=now)
        stream.write(f"{stage}: {done:,} of {total:,}\n")
        stream.flush()

    return progress
