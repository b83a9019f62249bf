"""Selectors of writing-integrity flags: one narrative's flags (the review list and the
review queue call `narrative_flags`), and flags of many narratives for analysis and export."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from django.db.models import QuerySet

from annotation.models import Narrative, NarrativeIntegrity
from annotation.quality.integrity import (
    FLAG_TITLES,
    Flag,
    IntegritySettings,
    process_flags,
    similarity_flags,
    telemetry_summary,
)


def _integrity_settings(narrative: Narrative) -> IntegritySettings:
    assignment = narrative.assignment
    if assignment is None:
        return IntegritySettings()
    try:
        return IntegritySettings.from_dict(assignment.item.batch.settings.get("integrity"))
    except ValueError:
        return IntegritySettings()


def _integrity(narrative: Narrative) -> NarrativeIntegrity | None:
    try:
        return narrative.integrity
    except NarrativeIntegrity.DoesNotExist:
        return None


def flags_of(narrative: Narrative, *, settings: IntegritySettings | None = None) -> list[Flag]:
    """A narrative's flags without the matching stories' text (no extra queries when
    `integrity` and `assignment__item__batch` were selected)."""
    settings = settings or _integrity_settings(narrative)
    integrity = _integrity(narrative)
    flags = []
    if narrative.source == Narrative.Source.CROWD:
        telemetry = integrity.telemetry if integrity else None
        flags += process_flags(telemetry, text_length=len(narrative.text), settings=settings)
    if integrity is not None:
        flags += similarity_flags(integrity.similarity, settings=settings)
    return flags


def narrative_flags(narrative: Narrative) -> list[dict]:
    """A narrative's integrity flags, each {"code", "title", "explanation", "details"}.

    A similarity flag's details carry the matching story: {"narrative", "similarity",
    "text", "proverb", "worker"} so it can be shown side by side. Flags inform a
    reviewer; they never reject anything.
    """
    result = []
    for flag in flags_of(narrative):
        details = dict(flag.details)
        if "narrative" in details:
            match = (
                Narrative.objects.select_related("proverb", "worker")
                .filter(pk=details["narrative"])
                .first()
            )
            if match is not None:
                details["text"] = match.text
                details["proverb"] = match.proverb.text
                details["worker"] = str(match.worker) if match.worker else match.source_label
        result.append(
            {
                "code": flag.code,
                "title": FLAG_TITLES[flag.code],
                "explanation": flag.explanation,
                "details": details,
            }
        )
    return result


def with_integrity(narratives: QuerySet, *, chunk_size: int = 2000) -> Iterator[Narrative]:
    """The narratives with what their flags need (integrity, batch), embeddings left out."""
    return (
        narratives.select_related("integrity", "assignment__item__batch")
        .defer("integrity__embedding")
        .order_by("id")
        .iterator(chunk_size=chunk_size)
    )


def flags_by_narrative(narrative_ids: Iterable[int]) -> dict[int, dict]:
    """For each narrative id: {"flags": [codes], "writing": telemetry summary or None}."""
    result = {}
    for narrative in with_integrity(Narrative.objects.filter(pk__in=list(narrative_ids))):
        integrity = _integrity(narrative)
        result[narrative.pk] = {
            "flags": [flag.code for flag in flags_of(narrative)],
            "writing": telemetry_summary(
                integrity.telemetry if integrity else None, text_length=len(narrative.text)
            )
            or None,
        }
    return result
