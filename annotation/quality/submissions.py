"""Selectors of the review queue: the next submission of a batch and how it is shown.

`submission_review` gives one submission as plain JSON: what every task type shares
(worker, approval rate, gold score, time taken, flags) and a `display` of the task
type's own (a narrative with the words it shares with its proverb marked, an alignment
in its pair colours, a rating form, a choice). Text stays text: the page writes it
with `textContent`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.db.models import Count, Q

from annotation import spans
from annotation.models import ChoiceAnswer, Narrative, Proverb, SpanPair
from annotation.quality.flags import narrative_flags
from annotation.quality.reports import quality_report
from annotation.text import check_overlap
from crowd import task_types
from crowd.models import Assignment, Batch
from crowd.providers import get_provider


def duration_text(seconds: float) -> str:
    """A duration as people read it: "3 min 05 s", or "42 s" under a minute."""
    minutes, seconds = divmod(round(seconds), 60)
    return f"{minutes} min {seconds:02d} s" if minutes else f"{seconds} s"


def submission_next(*, batch: Batch, skip: Iterable[int] = ()) -> Assignment | None:
    """The oldest submission of the batch awaiting review, leaving out the skipped ones."""
    return (
        Assignment.objects.filter(item__batch=batch, status=Assignment.Status.SUBMITTED)
        .exclude(pk__in=list(skip))
        .select_related("worker", "item__batch", "item__proverb", "item__narrative__proverb")
        .order_by("submitted_at", "id")
        .first()
    )


def submission_counts(*, batch: Batch) -> dict[str, int]:
    """How many of the batch's submissions await review, were approved, were rejected."""
    return Assignment.objects.filter(item__batch=batch).aggregate(
        awaiting=Count("id", filter=Q(status=Assignment.Status.SUBMITTED)),
        approved=Count("id", filter=Q(status=Assignment.Status.APPROVED)),
        rejected=Count("id", filter=Q(status=Assignment.Status.REJECTED)),
    )


def submission_flags(*, assignment: Assignment, worker_quality: dict) -> list[dict]:
    """Everything the reviewer should look at twice, as {"code", "message"} entries.

    One place gathers every kind of flag, so a new check adds its entries here.
    """
    flags = []
    if worker_quality.get("flagged"):
        flags.append(
            {
                "code": "gold",
                "message": f"Worker below the gold threshold: {worker_quality['gold_correct']} "
                f"of {worker_quality['gold_total']} gold answers right.",
            }
        )
    if assignment.worker.blocked:
        flags.append({"code": "blocked", "message": "This worker is blocked."})
    if assignment.item.withdrawn_at is not None:
        flags.append({"code": "withdrawn", "message": "This item was withdrawn."})
    narrative = Narrative.objects.filter(assignment=assignment).first()
    if narrative is not None:
        for flag in narrative_flags(narrative):
            entry = {"code": flag["code"], "message": f"{flag['title']}: {flag['explanation']}"}
            if "text" in flag["details"]:  # a similarity flag: the story it matches
                entry["match"] = {
                    "narrative": flag["details"]["narrative"],
                    "worker": flag["details"]["worker"],
                    "text": flag["details"]["text"],
                }
            flags.append(entry)
    return flags


def submission_review(*, assignment: Assignment) -> dict:
    """One submission as the review queue shows it (JSON-ready)."""
    batch = assignment.item.batch
    quality = next(
        (
            row
            for row in quality_report(batch=batch)["workers"]
            if row["worker"] == assignment.worker_id
        ),
        {},
    )
    seconds = (assignment.submitted_at - assignment.started_at).total_seconds()
    display = DISPLAYS.get(batch.task_type, _result_display)(assignment)
    return {
        "assignment": assignment.pk,
        "status": assignment.status,
        "submitted_at": assignment.submitted_at.isoformat(),
        "time_taken": duration_text(seconds),
        "worker": {
            "id": assignment.worker_id,
            "name": str(assignment.worker),
            "approval_rate": quality.get("approval_rate"),
            "approved": quality.get("approved", 0),
            "rejected": quality.get("rejected", 0),
            "gold_correct": quality.get("gold_correct", 0),
            "gold_total": quality.get("gold_total", 0),
        },
        "gold_item": assignment.item.is_gold,
        "flags": submission_flags(assignment=assignment, worker_quality=quality),
        "display": display,
        # The provider's state of the work (a Prolific session still working...), if any.
        "provider_state": get_provider(batch.provider).review_state(assignment=assignment),
    }


def marked_pieces(proverb: str, text: str) -> list[dict]:
    """The text in pieces, those it shares with the proverb marked ({"text", "mark"})."""
    pieces, position = [], 0
    for start, end in check_overlap(proverb, text, {"min_words": 0})["highlights"]:
        pieces.append({"text": text[position:start], "mark": False})
        pieces.append({"text": text[start:end], "mark": True})
        position = end
    pieces.append({"text": text[position:], "mark": False})
    return [piece for piece in pieces if piece["text"]]


def overlap_lines(overlap: dict) -> list[str]:
    """A narrative's stored overlap figures as short lines."""
    lines = [
        f"{n}-grams shared: {overlap[str(n)]['shared']} of {overlap[str(n)]['proverb']}"
        for n in (1, 2, 3)
        if isinstance(overlap.get(str(n)), dict)
    ]
    if overlap.get("shared_words"):
        lines.append("Shared words: " + ", ".join(overlap["shared_words"]))
    return lines


def _write_display(assignment: Assignment) -> dict:
    narrative = Narrative.objects.select_related("proverb").get(assignment=assignment)
    return {
        "kind": "write",
        "proverb": narrative.proverb.text,
        "pieces": marked_pieces(narrative.proverb.text, narrative.text),
        "word_count": narrative.word_count,
        "overlap": overlap_lines(narrative.overlap or {}),
    }


def _alignment_drawing(narrative: Narrative, pairs: list[SpanPair]) -> dict:
    drawing = spans.drawing(proverb=narrative.proverb.text, narrative=narrative.text, pairs=pairs)
    return {
        "proverb": drawing["proverb"],
        "narrative": drawing["narrative"],
        "pairs": [
            {
                "colour": pair["colour"],
                "proverb": pair["proverb"]["text"],
                "narrative": pair["narrative"]["text"],
            }
            for pair in drawing["pairs"]
        ],
    }


def _align_display(assignment: Assignment) -> dict:
    narrative = Narrative.objects.select_related("proverb").get(pk=assignment.item.narrative_id)
    pairs = list(SpanPair.objects.filter(assignment=assignment))
    return {"kind": "align", **_alignment_drawing(narrative, pairs)}


def _rate_display(assignment: Assignment) -> dict:
    from annotation.task_types.rate import gold_passes

    item = assignment.item
    narrative = Narrative.objects.select_related("proverb").get(pk=item.narrative_id)
    criteria = item.batch.settings.get("criteria", [])
    labels = {criterion["key"]: criterion.get("label", criterion["key"]) for criterion in criteria}
    given = {rating.criterion: rating.value for rating in assignment.ratings.order_by("id")}
    display = {
        "kind": "rate",
        "proverb": narrative.proverb.text,
        "ratings": [
            {"label": labels.get(criterion, criterion), "value": value}
            for criterion, value in given.items()
        ],
        "gold": (gold_passes(item.gold_answer, given) if item.is_gold else None),
    }
    if item.source_assignment_id is not None:
        pairs = list(SpanPair.objects.filter(assignment_id=item.source_assignment_id))
        display["alignment"] = _alignment_drawing(narrative, pairs)
    else:
        display["narrative"] = narrative.text
    return display


def _choose_display(assignment: Assignment) -> dict:
    answer = ChoiceAnswer.objects.select_related("question__narrative").get(assignment=assignment)
    question = answer.question
    texts = Proverb.objects.in_bulk(question.options)
    item = assignment.item
    return {
        "kind": "choose",
        "narrative": question.narrative.text,
        "options": [
            {
                "text": texts[pk].text if pk in texts else str(pk),
                "correct": pk == question.correct_id,
                "chosen": pk == answer.chosen_id,
            }
            for pk in question.options
        ],
        "is_correct": answer.is_correct,
        "gold": (answer.chosen_id == (item.gold_answer or {}).get("chosen"))
        if item.is_gold
        else None,
    }


def _result_display(assignment: Assignment) -> dict:
    """Task types without a display of their own: their stored result, as returned to a retry."""
    result = task_types.get(assignment.item.batch.task_type).result(assignment=assignment)
    return {"kind": "result", "fields": [[str(key), str(value)] for key, value in result.items()]}


DISPLAYS: dict[str, Callable[[Assignment], dict]] = {
    "write": _write_display,
    "align": _align_display,
    "rate": _rate_display,
    "choose": _choose_display,
}
