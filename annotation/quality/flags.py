"""Selectors of writing-integrity flags: one narrative's flags (the review list and the
review queue call `narrative_flags`), and flags of many narratives for analysis and export."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from django.db.models import QuerySet
from django.db.models.functions import Length

from annotation.models import Narrative, NarrativeIntegrity
from annotation.quality.canary import canary_flags
from annotation.quality.integrity import (
    FLAG_TITLES,
    Flag,
    IntegritySettings,
    process_flags,
    similarity_flags,
    telemetry_summary,
)
from crowd.models import Batch
from crowd.pledges import pledge_times_of


def flags_of(narrative: Narrative, *, settings: IntegritySettings | None = None) -> list[Flag]:
    """A narrative's flags without the matching stories' text (no extra queries when
    `integrity` and `assignment__item__batch` were selected)."""
    try:
        integrity = narrative.integrity
    except NarrativeIntegrity.DoesNotExist:
        integrity = None
    if settings is None:
        assignment = narrative.assignment
        batch_settings = assignment.item.batch.settings if assignment else None
        settings = IntegritySettings.stored(batch_settings)
    return _flags(
        source=narrative.source,
        text_length=len(narrative.text),
        integrity=(integrity.telemetry, integrity.similarity, integrity.canary)
        if integrity
        else None,
        settings=settings,
    )


def _flags(
    *, source: str, text_length: int, integrity: tuple | None, settings: IntegritySettings
) -> list[Flag]:
    """The flags of a narrative of `source` with `integrity` (telemetry, similarity,
    canary) or None when it has no integrity record."""
    flags = []
    if source == Narrative.Source.CROWD:
        telemetry = integrity[0] if integrity else None
        flags += process_flags(telemetry, text_length=text_length, settings=settings)
    if integrity is not None:
        flags += canary_flags(integrity[2])
        flags += similarity_flags(integrity[1], settings=settings)
    return flags


@dataclass(frozen=True, slots=True)
class FlagRow:
    """What `flag_rows` reads of a narrative, and its flags."""

    pk: int
    source: str
    source_label: str
    worker_id: int | None
    text_length: int
    batch_id: int | None
    batch_name: str | None
    telemetry: dict | None
    has_integrity: bool
    checked: bool
    flags: list[Flag]


def flag_rows(narratives: QuerySet, *, chunk_size: int = 2000) -> Iterator[FlagRow]:
    """The narratives' flags by ascending id, read as plain values (no model instances,
    each batch's integrity settings read once): for analysis and export, where the
    flags of many narratives are counted or written."""
    settings_of: dict[int | None, IntegritySettings] = {None: IntegritySettings()}
    # Each batch's settings in one query, not in every row.
    stored_settings = dict(
        Batch.objects.filter(
            pk__in=narratives.order_by().values("assignment__item__batch_id")
        ).values_list("pk", "settings")
    )
    rows = (
        narratives.order_by("id")
        .annotate(text_length=Length("text"))
        .values_list(
            "id",
            "source",
            "source_label",
            "worker_id",
            "text_length",
            "assignment__item__batch_id",
            "assignment__item__batch__name",
            "integrity__pk",
            "integrity__telemetry",
            "integrity__similarity",
            "integrity__checked_at",
            "integrity__canary",
        )
        .iterator(chunk_size=chunk_size)
    )
    for row in rows:
        pk, source, label, worker_id, length, batch_id, batch_name = row[:7]
        integrity_id, telemetry, similarity, checked_at, canary = row[7:]
        if batch_id not in settings_of:  # a batch's settings are parsed once
            settings_of[batch_id] = IntegritySettings.stored(stored_settings.get(batch_id))
        integrity = (telemetry, similarity, canary) if integrity_id is not None else None
        yield FlagRow(
            pk=pk,
            source=source,
            source_label=label,
            worker_id=worker_id,
            text_length=length or 0,
            batch_id=batch_id,
            batch_name=batch_name,
            telemetry=telemetry,
            has_integrity=integrity_id is not None,
            checked=checked_at is not None,
            flags=_flags(
                source=source,
                text_length=length or 0,
                integrity=integrity,
                settings=settings_of[batch_id],
            ),
        )


def narrative_flags(narrative: Narrative) -> list[dict]:
    """A narrative's integrity flags, each {"code", "title", "explanation", "details"}; a
    similarity flag's details carry the matching story ("text", "proverb", "worker") to be
    shown side by side. Flags inform a reviewer; they never reject anything."""
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


def flags_by_narrative(narratives: QuerySet) -> dict[int, dict]:
    """For each of the narratives, by id: {"flags": [codes], "writing": telemetry summary
    or None, "pledged_at": when its worker agreed to its batch's pledge (ISO) or None,
    "row": its FlagRow}."""
    rows = list(flag_rows(narratives))
    pledges = pledge_times_of(
        batch_ids={row.batch_id for row in rows if row.batch_id is not None},
        worker_ids={row.worker_id for row in rows if row.worker_id is not None},
    )
    result = {}
    for row in rows:
        agreed_at = pledges.get((row.batch_id, row.worker_id))
        result[row.pk] = {
            "flags": [flag.code for flag in row.flags],
            "writing": telemetry_summary(row.telemetry, text_length=row.text_length) or None,
            "pledged_at": agreed_at.isoformat() if agreed_at else None,
            "row": row,
        }
    return result


def flag_drift(*, batch: Batch, windows: int = 10) -> dict:
    """A batch's share of stories with each flag over time, its stories in submission order
    cut into up to `windows` windows of (nearly) equal size: {"windows": [{"stories",
    "until" (its last story's time), "shares": {code: share}}], "codes": those occurring}."""
    narratives = Narrative.objects.filter(assignment__item__batch=batch)
    rows = list(flag_rows(narratives))
    times = dict(narratives.values_list("pk", "created_at"))
    count = min(windows, len(rows))
    result = []
    for index in range(count):
        window = rows[index * len(rows) // count : (index + 1) * len(rows) // count]
        shares = {
            code: round(sum(code in {f.code for f in row.flags} for row in window) / len(window), 4)
            for code in FLAG_TITLES
        }
        result.append(
            {
                "stories": len(window),
                "until": times[window[-1].pk].isoformat(),
                "shares": shares,
            }
        )
    codes = [code for code in FLAG_TITLES if any(w["shares"][code] for w in result)]
    return {"windows": result, "codes": codes}
