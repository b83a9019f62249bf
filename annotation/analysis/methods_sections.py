"""Sections that apps above annotation add to the methods statement (modeling's baselines).

An app registers a writer from its apps.py ready(); `methods_document` calls each with
the document being written, after the dataset's own sections, so annotation never
imports the apps that report on it. A writer appends blocks (`doc.blocks`) and names
its figures through `doc.figure`, like the document's own sections.
"""

from __future__ import annotations

from collections.abc import Callable

_WRITERS: list[Callable] = []


def methods_section_register(writer: Callable) -> None:
    """Add `writer(doc)` to every methods statement (once, however often registered)."""
    if writer not in _WRITERS:
        _WRITERS.append(writer)


def methods_sections() -> list[Callable]:
    """The registered writers, in the order they were registered."""
    return list(_WRITERS)
