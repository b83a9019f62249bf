"""Subjects of answers imported from a provider's results file (a lab's past batches):
the proverb and narrative each answer names, matched with the dataset's or created (a
proverb as curated, a narrative as imported under the batch's name).
"""

from __future__ import annotations

from annotation.models import Narrative, Proverb
from annotation.quality.similarity_scan import imported_similarity_check_queue
from annotation.task_parts.spans import resolve_span
from annotation.text import normalize_text
from crowd.models import Batch
from crowd.task_types import SubmissionError


def imported_proverb(*, batch: Batch, fields: dict[str, str]) -> Proverb:
    """The answer's proverb, matched by its normalised text or created (source: the
    batch's provider)."""
    text = fields.get("proverb", "")
    if not text:
        raise SubmissionError("The proverb is empty.")
    key = normalize_text(text)
    proverb = Proverb.objects.filter(normalized_text=key).first()
    if proverb is None:
        proverb = Proverb.objects.create(
            text=text, normalized_text=key, source=batch.provider, status=Proverb.Status.CURATED
        )
    return proverb


def imported_narrative(*, batch: Batch, fields: dict[str, str]) -> Narrative:
    """The answer's narrative under its proverb, matched by text or created as an approved
    imported narrative (its similarity check queued)."""
    proverb = imported_proverb(batch=batch, fields=fields)
    text = fields.get("narrative", "")
    if not text:
        raise SubmissionError("The narrative is empty.")
    narrative = Narrative.objects.filter(proverb=proverb, text=text).order_by("id").first()
    if narrative is None:
        narrative = Narrative.objects.create(
            proverb=proverb,
            text=text,
            source=Narrative.Source.IMPORTED,
            source_label=batch.name,
            status=Narrative.Status.APPROVED,
        )
        imported_similarity_check_queue(narratives=[narrative])
    return narrative


def imported_span(text: str, span: str, *, side: str, number: int) -> dict:
    """The span as a submission gives it ({"start", "end", "text"}), found in `text`."""
    found = resolve_span(text, span)
    if found is None:
        raise SubmissionError(f"The {side} span of pair {number} ({span!r}) is not in the {side}.")
    start, end, _ = found
    return {"start": start, "end": end, "text": text[start:end]}
