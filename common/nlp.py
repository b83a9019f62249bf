"""spaCy pipelines, each loaded once per process (never inside a request: the tasks that
need one load it, after the response where tasks run in-process)."""

from __future__ import annotations

import functools
import threading

_loading = threading.Lock()


@functools.cache
def _load(name: str):
    import spacy

    return spacy.load(name)


def spacy_pipeline(name: str):
    """The spaCy pipeline `name` (a package or a path), loaded once per process: a caller
    arriving during the load waits for it instead of loading a second copy."""
    with _loading:
        return _load(name)
