"""What becomes of a story written in a round: the model's answer, its review, its validation
by a choose batch, and the bonus for fooling the model.

A story fooled its opponent when the model did not rank its proverb first. Where the round
validates, it counts once a `fooled_only` choose batch's workers chose its proverb (more than
half of its approved answers, once it has as many as the batch wants); one they did not is
left out of the round's figures (it stays in the dataset, marked). In a bonus round an
approved fooling (and confirmed) story is owed the bonus (`bonus_due_since`);
`opponent_bonus_pay` pays it outside any transaction through crowd's once-only bonus. Beat
queues a lost payment again; a refusal is kept and not retried.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Min, Q, QuerySet
from django.utils import timezone

from annotation.models import NarrativeRound, OpponentCheck
from common.task_queue import queue_on_commit, waiting_past_grace
from crowd.chaining import batches_feed
from crowd.models import Assignment, Batch
from crowd.review import BonusAlreadyPaid, ReviewError, assignment_bonus

FOOLED_ONLY = "fooled_only"  # the choose batch setting that makes its answers a validation
# Its schema, as a property of the choose type's settings schema.
FOOLED_ONLY_SCHEMA = {FOOLED_ONLY: {"type": "boolean"}}


def fooling_stories() -> Q:
    """The narratives that fooled their round's opponent (a filter on Narrative): what a
    validation batch draws."""
    return Q(round_record__fooled=True)


def fooled_only_clean(settings: dict) -> dict:
    """A choose batch's `fooled_only`, checked (ValueError unless true or false); kept in
    the settings only when true."""
    cleaned = dict(settings)
    value = cleaned.pop(FOOLED_ONLY, False)
    if not isinstance(value, bool):
        raise ValueError(f"{FOOLED_ONLY} must be true or false.")
    return {**cleaned, FOOLED_ONLY: True} if value else cleaned


def bonus_reason(record: NarrativeRound) -> str:
    """The bonus's reason, the same for every payment of it (crowd pays a reason once)."""
    return f"Your story fooled the model in round {record.round}."


def bonus_owed(record: NarrativeRound) -> bool:
    """An approved story of a bonus round that fooled its opponent (and, where the round
    validates, that humans matched to its proverb), not paid yet."""
    approved = record.narrative.assignment.status == Assignment.Status.APPROVED
    confirmed = not record.validate or record.validation == NarrativeRound.Validation.CONFIRMED
    return (
        record.mode == "bonus"
        and record.fooled is True
        and record.bonus_paid_at is None
        and approved
        and confirmed
    )


def _bonus_check(record: NarrativeRound) -> None:
    """Record the bonus as owed and queue its payment when it has just become owed."""
    if record.bonus_due_since is None and bonus_owed(record):
        record.bonus_due_since = timezone.now()
        record.save(update_fields=["bonus_due_since", "updated_at"])
        queue_on_commit("annotation.opponent_bonus_pay", record.narrative_id)


def _record(**lookup) -> NarrativeRound | None:
    return (
        NarrativeRound.objects.select_for_update(of=("self",))
        .select_related("narrative__assignment")
        .filter(**lookup)
        .first()
    )


@transaction.atomic
def story_answered(*, check: OpponentCheck) -> None:
    """The model answered on a submitted story: whether it fooled the model is known now.
    An approved story is offered again to the batches chained to its batch (a validation
    batch takes fooling stories only), and its bonus may be owed."""
    record = _record(submit_check=check)
    if record is None:
        return
    record.fooled = check.fooled
    record.save(update_fields=["fooled", "updated_at"])
    assignment = record.narrative.assignment
    if assignment.status == Assignment.Status.APPROVED:
        batches_feed(assignment=assignment)
    _bonus_check(record)


def story_reviewed(*, assignment: Assignment, approved: bool) -> None:
    """A story of a round was approved or rejected (the write type's on_reviewed, in the
    review's transaction): an approved fooling story's bonus may be owed now; a story no
    longer approved owes nothing."""
    record = _record(narrative__assignment=assignment)
    if record is None:
        return
    if approved:
        _bonus_check(record)
    elif record.bonus_due_since is not None:
        record.bonus_due_since = None
        record.save(update_fields=["bonus_due_since", "updated_at"])


def validation_answer_reviewed(*, assignment: Assignment, story_answers: QuerySet) -> None:
    """An answer of a validation batch (a choose batch with `fooled_only`) was reviewed:
    decide its story's validation again from the approved answers (in the review's
    transaction). `story_answers` are the choose type's answers about the story."""
    if not (assignment.item.batch.settings or {}).get(FOOLED_ONLY) or assignment.item.is_gold:
        return
    narrative_id = assignment.item.narrative_id
    record = _record(narrative_id=narrative_id)
    if record is None:
        return
    answers = story_answers.filter(
        assignment__status=Assignment.Status.APPROVED,
        assignment__item__is_gold=False,
        assignment__item__withdrawn_at__isnull=True,
        **{f"assignment__item__batch__settings__{FOOLED_ONLY}": True},
    )
    given = answers.count()
    wanted = Batch.objects.filter(pk__in=answers.values("assignment__item__batch")).aggregate(
        wanted=Min("target_per_item")
    )["wanted"]
    validation = NarrativeRound.Validation.NONE
    if given and given >= wanted:
        matched = answers.filter(is_correct=True).count()
        validation = (
            NarrativeRound.Validation.CONFIRMED
            if 2 * matched > given
            else NarrativeRound.Validation.UNMATCHED
        )
    if validation != record.validation:
        record.validation = validation
        record.validated_at = timezone.now() if validation else None
        record.save(update_fields=["validation", "validated_at", "updated_at"])
    _bonus_check(record)


def opponent_bonus_pay(*, narrative_id: int) -> NarrativeRound | None:
    """Pay a story's owed bonus once, through crowd's review service (outside any
    transaction: it tells the provider); idempotent. A bonus already paid (a second
    task, a crash after paying) is recorded as paid; one the review service refuses
    (work not approved or not vouched for) keeps the refusal and is not owed any more."""
    record = (
        NarrativeRound.objects.select_related("narrative__assignment")
        .filter(narrative_id=narrative_id, bonus_due_since__isnull=False)
        .first()
    )
    if record is None:
        return None
    now = timezone.now()
    if not bonus_owed(record):
        NarrativeRound.objects.filter(pk=record.pk).update(bonus_due_since=None, updated_at=now)
        return record
    try:
        assignment_bonus(
            assignment=record.narrative.assignment,
            cents=record.bonus_cents,
            reason=bonus_reason(record),
        )
    except BonusAlreadyPaid:
        pass
    except ReviewError as refusal:
        NarrativeRound.objects.filter(pk=record.pk).update(
            bonus_due_since=None, bonus_error=str(refusal), updated_at=now
        )
        return record
    NarrativeRound.objects.filter(pk=record.pk).update(
        bonus_due_since=None, bonus_paid_at=now, bonus_error="", updated_at=now
    )
    return record


def bonuses_waiting(*, now=None, limit: int = 100) -> list[int]:
    """Stories whose owed bonus is still unpaid after the grace period (its task lost):
    beat queues their payment again."""
    owed = NarrativeRound.objects.filter(bonus_due_since__isnull=False)
    return waiting_past_grace(
        owed, since="bonus_due_since", limit=limit, now=now, id_field="narrative_id"
    )
