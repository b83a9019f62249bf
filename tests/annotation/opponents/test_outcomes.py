"""What becomes of a story written in a round: its bonus for fooling the model, paid once
through crowd's review service and only on approved, vouched work; its validation by a
choose batch that draws the round's fooling stories; a lost task queued again."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import NarrativeRound
from annotation.opponents.outcomes import bonus_reason, bonuses_waiting, opponent_bonus_pay
from annotation.tasks import opponents_requeue_task
from crowd import providers
from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.models import Assignment, Bonus
from crowd.providers.local import LocalProvider
from crowd.review import assignment_approve, assignment_reject
from tests.annotation.opponents.conftest import CHICKENS
from tests.factories import (
    round_batch_create,
    round_story_write,
    task_batch_create,
    worker_create,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def bonus_batch(opponent, proverbs):
    def make(**opponent_settings):
        settings = {"run": opponent.pk, "mode": "bonus", "bonus_cents": 30, **opponent_settings}
        return round_batch_create(
            proverbs=[proverbs[CHICKENS]], opponent=settings, target_per_item=4
        )

    return make


def test_an_approved_story_that_fooled_the_model_is_paid_its_bonus_once(
    bonus_batch, verdicts, django_capture_on_commit_callbacks
):
    _, fooled = verdicts
    assignment = round_story_write(bonus_batch(), fooled[0])
    with django_capture_on_commit_callbacks(execute=True):
        assignment_approve(assignment=assignment)
    record = NarrativeRound.objects.get()
    (bonus,) = Bonus.objects.filter(assignment=assignment)
    assert (bonus.cents, bonus.reason) == (30, "Your story fooled the model in round 2.")
    assert record.bonus_paid_at is not None and record.bonus_due_since is None
    # Paid, then the record lost before it was written (a crash): asked again, crowd's
    # once-only bonus pays nothing more and the payment is recorded.
    NarrativeRound.objects.filter(pk=record.pk).update(
        bonus_paid_at=None, bonus_due_since=timezone.now()
    )
    opponent_bonus_pay(narrative_id=record.narrative_id)
    record.refresh_from_db()
    assert record.bonus_paid_at is not None and record.bonus_error == ""
    assert Bonus.objects.filter(assignment=assignment).count() == 1
    assert Assignment.objects.get(pk=assignment.pk).bonus_cents == 30


def test_a_story_the_model_found_earns_no_bonus(
    bonus_batch, verdicts, django_capture_on_commit_callbacks
):
    found, _ = verdicts
    assignment = round_story_write(bonus_batch(), found[0])
    with django_capture_on_commit_callbacks(execute=True):
        assignment_approve(assignment=assignment)
    record = NarrativeRound.objects.get()
    assert record.fooled is False and record.bonus_due_since is None
    assert not Bonus.objects.exists()


def test_a_story_rejected_before_its_bonus_was_paid_owes_nothing(
    bonus_batch, verdicts, django_capture_on_commit_callbacks
):
    _, fooled = verdicts
    assignment = round_story_write(bonus_batch(), fooled[0])
    with django_capture_on_commit_callbacks(execute=False) as queued:
        assignment_approve(assignment=assignment)
    assert NarrativeRound.objects.get().bonus_due_since is not None
    assignment_reject(assignment=assignment, message="It copies another story.")
    assert NarrativeRound.objects.get().bonus_due_since is None
    for callback in queued:  # the payment queued with the approval comes too late
        callback()
    assert not Bonus.objects.exists()


class WithdrawingProvider(LocalProvider):
    """A provider that vouches for work until it withdraws its record of it (a Prolific
    submission returned after approval, say)."""

    key = "withdrawing"
    withdrawn: set

    def vouched(self, *, assignment) -> bool:
        return assignment.pk not in self.withdrawn


@pytest.fixture
def withdrawing():
    provider = providers.register(WithdrawingProvider())
    provider.withdrawn = set()
    yield provider
    providers._providers.pop(provider.key)


def test_the_bonus_goes_only_to_work_its_provider_vouches_for(
    withdrawing, opponent, proverbs, verdicts, django_capture_on_commit_callbacks
):
    _, fooled = verdicts
    batch = round_batch_create(
        proverbs=[proverbs[CHICKENS]],
        opponent={"run": opponent.pk, "mode": "bonus", "bonus_cents": 30},
        provider="withdrawing",
    )
    assignment = round_story_write(batch, fooled[0], worker=worker_create(provider="withdrawing"))
    with django_capture_on_commit_callbacks(execute=False) as queued:
        assignment_approve(assignment=assignment)
    withdrawing.withdrawn.add(assignment.pk)
    for callback in queued:
        callback()
    record = NarrativeRound.objects.get()
    assert not Bonus.objects.exists()
    assert record.bonus_paid_at is None and record.bonus_due_since is None
    assert "withdrawing has no record confirming" in record.bonus_error


def test_a_lost_payment_is_queued_again_by_beat_and_paid_once(
    bonus_batch, verdicts, django_capture_on_commit_callbacks, settings
):
    _, fooled = verdicts
    assignment = round_story_write(bonus_batch(), fooled[0])
    with django_capture_on_commit_callbacks(execute=False):  # the broker was down
        assignment_approve(assignment=assignment)
    record = NarrativeRound.objects.get()
    assert bonuses_waiting() == []  # still within the grace period
    grace = timedelta(seconds=settings.PARABLE_BACKGROUND_GRACE_SECONDS + 1)
    NarrativeRound.objects.filter(pk=record.pk).update(bonus_due_since=timezone.now() - grace)
    assert bonuses_waiting() == [record.narrative_id]
    assert opponents_requeue_task() == 1
    assert opponents_requeue_task() == 0
    assert Bonus.objects.filter(assignment=assignment, reason=bonus_reason(record)).count() == 1


def validation_batch(source):
    return task_batch_create(
        task_type="choose",
        source_batch=source,
        target_per_item=1,
        settings={"distractors": "lexical", "options": 3, "fooled_only": True},
    )


def answer(batch, narrative, *, correct: bool) -> Assignment:
    """A worker's answer to the question on the narrative, submitted."""
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    question = assignment.item.choice_question
    assert question.narrative_id == narrative.pk
    wrong = next(pk for pk in question.options if pk != question.correct_id)
    chosen = question.correct_id if correct else wrong
    assignment_submit(assignment=assignment, payload={"chosen": chosen})
    return assignment


def test_validation_draws_fooling_stories_and_decides_whether_they_count(
    bonus_batch, verdicts, django_capture_on_commit_callbacks
):
    found, fooled = verdicts
    write = bonus_batch(validate=True)
    stories = [round_story_write(write, text) for text in (found[0], fooled[0], fooled[1])]
    choose = validation_batch(write)
    with django_capture_on_commit_callbacks(execute=True):
        for assignment in stories:
            assignment_approve(assignment=assignment)
    assert not Bonus.objects.exists()  # validated first
    drawn = set(choose.items.values_list("narrative__assignment", flat=True))
    assert drawn == {stories[1].pk, stories[2].pk}  # only the fooling stories
    confirmed, unmatched = (a.narrative for a in stories[1:])
    with django_capture_on_commit_callbacks(execute=True):
        assignment_approve(assignment=answer(choose, confirmed, correct=True))
        assignment_approve(assignment=answer(choose, unmatched, correct=False))
    records = {r.narrative_id: r for r in NarrativeRound.objects.all()}
    assert records[confirmed.pk].validation == "confirmed"
    assert records[unmatched.pk].validation == "unmatched"
    (bonus,) = Bonus.objects.all()
    assert bonus.assignment_id == stories[1].pk


def test_a_story_answered_after_its_approval_is_offered_to_the_validation_batch(
    bonus_batch, verdicts, django_capture_on_commit_callbacks
):
    _, fooled = verdicts
    write = bonus_batch(validate=True)
    choose = validation_batch(write)
    assignment = assignment_reserve_next(batch=write, worker=worker_create())
    with django_capture_on_commit_callbacks(execute=False) as queued:
        assignment_submit(assignment=assignment, payload={"text": fooled[0]})
    assignment_approve(assignment=assignment)
    assert not choose.items.exists()  # whether it fooled the model is not known yet
    for callback in queued:
        callback()
    assert NarrativeRound.objects.get().fooled is True
    assert list(choose.items.values_list("narrative__assignment", flat=True)) == [assignment.pk]
