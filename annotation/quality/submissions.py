"""Selectors of the review queue: the next submission of a batch and how it is shown, as
plain JSON: what every type shares (worker figures, flags) and its own `display`
(TaskType.review_display). Text stays text: the page writes it with `textContent`.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Count, Q

from annotation.models import Narrative
from annotation.quality.calibration import writing_scores
from annotation.quality.flags import narrative_flags
from annotation.quality.reports import quality_report
from crowd import task_types
from crowd.models import Assignment, Batch, BatchPledge
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
    """Everything the reviewer should look at twice, as {"code", "message"} entries: every
    kind of flag is gathered here, so a new check adds its entries here."""
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


# Flags about the worker or the item, or an unknown writing process, are not evidence
# about this work: a rejection message does not cite them.
NOT_EVIDENCE = {"blocked", "withdrawn", "no_record"}


def evidence_message(flags: list[dict]) -> str:
    """A rejection message that names the evidence the flags give ("" with none): the
    review queue offers it when the reviewer rejects, to edit or send as is."""
    evidence = [flag["message"] for flag in flags if flag["code"] not in NOT_EVIDENCE]
    if not evidence:
        return ""
    return (
        "Your work was not accepted because of what the task page and our checks recorded: "
        + " ".join(evidence)
        + " If this is wrong, reply to us and say how you wrote it."
    )


def pledge_of(*, assignment: Assignment) -> dict:
    """Whether the batch asked for a pledge and when the worker agreed:
    {"asked": bool, "agreed_at": iso | None, "text": in words}."""
    batch = assignment.item.batch
    if not batch.pledge:
        return {"asked": False, "agreed_at": None, "text": "No pledge asked in this batch."}
    pledge = BatchPledge.objects.filter(batch=batch, worker_id=assignment.worker_id).first()
    if pledge is None:
        return {"asked": True, "agreed_at": None, "text": "Pledge asked; not agreed."}
    return {
        "asked": True,
        "agreed_at": pledge.agreed_at.isoformat(),
        "text": f"Agreed to the batch's pledge on {pledge.agreed_at:%Y-%m-%d %H:%M}.",
    }


def submission_review(*, assignment: Assignment) -> dict:
    """One submission as the review queue shows it (JSON-ready): with its flags, its
    writing-process score (meaning and source), the worker's pledge, and a rejection
    message naming the evidence."""
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
    display = task_types.get(batch.task_type).review_display(assignment=assignment)
    flags = submission_flags(assignment=assignment, worker_quality=quality)
    narratives = Narrative.objects.filter(assignment=assignment)
    writing = next(iter(writing_scores(narratives).values()), None)
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
        "flags": flags,
        "writing": writing,
        "pledge": pledge_of(assignment=assignment),
        "evidence_message": evidence_message(flags),
        "display": display,
        # The provider's state of the work (a Prolific session still working...), if any.
        "provider_state": get_provider(batch.provider).review_state(assignment=assignment),
    }
