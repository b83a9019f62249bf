"""Review mapped to Prolific through the crowd services: approve, reject, approving whole
sessions, bonuses paid once, block and unblock, messages; each call sent once the review
commits, and by beat when its task was lost."""

import pytest
from django.db import transaction

from crowd.models import Assignment, Bonus, ProviderAction
from crowd.review import (
    ReviewError,
    assignment_approve,
    assignment_bonus,
    assignment_reject,
    worker_block,
    worker_unblock,
    workers_notify,
)
from crowd.tasks import provider_actions_requeue_task
from prolific.review import sessions_approve
from prolific.sessions import session_assignments
from prolific.submissions import study_sync
from tests.factories import provider_calls_send
from tests.prolific.helpers import (
    enter_unchecked,
    finish_on_prolific,
    submit_all,
    take_part,
    write_study,
)

pytestmark = pytest.mark.django_db

REASON = (
    "The three stories restate the proverbs word for word instead of telling a new story; "
    "the instructions ask for an original narrative."
)


@pytest.fixture
def batch(standin):
    return write_study()


@pytest.fixture
def finished(standin, batch):
    """A participant's session, all items submitted, vouched for by Prolific."""
    session, submission = take_part(standin, batch, "p1")
    submit_all(session)
    finish_on_prolific(standin, submission)
    study_sync(study=batch.prolific_study)
    session.refresh_from_db()
    return session


def items(session):
    return list(session_assignments(session=session))


def test_approving_an_item_approves_the_submission_once_after_the_review_commits(
    standin, finished, django_capture_on_commit_callbacks
):
    standin.state.requests.clear()
    with django_capture_on_commit_callbacks(execute=False) as queued:
        assignment_approve(assignment=items(finished)[0])
    assert standin.state.requests == []  # nothing sent inside the review's transaction
    finished.refresh_from_db()
    assert finished.submission.status_shown == "approval sent"
    for callback in queued:  # the review commits: its queued work runs
        callback()
    for assignment in items(finished)[1:]:
        with django_capture_on_commit_callbacks(execute=True):
            assignment_approve(assignment=assignment)
    submission = standin.state.submissions[finished.session_id]
    assert submission["status"] == "APPROVED"
    transitions = [r for r in standin.state.requests if r[1].endswith("/transition/")]
    assert len([r for r in transitions if "submissions" in r[1]]) == 1


def test_unvouched_session_is_never_approved_or_counted(standin, batch):
    fake = enter_unchecked(standin, batch)
    submit_all(fake)
    with pytest.raises(ReviewError, match="prolific has no record confirming"):
        assignment_approve(assignment=items(fake)[0])
    assert Assignment.objects.filter(status=Assignment.Status.APPROVED).count() == 0
    assert [
        r for r in standin.state.requests if "transition" in r[1] and "submissions" in r[1]
    ] == []


def test_approval_is_refused_at_once_while_prolific_is_still_processing(standin, batch):
    session, _ = take_part(standin, batch, "p1")
    submit_all(session)
    study_sync(study=batch.prolific_study)  # linked while still ACTIVE
    standin.state.requests.clear()
    with pytest.raises(ReviewError, match="still working or being processed"):
        assignment_approve(assignment=items(session)[0])
    assert items(session)[0].status == Assignment.Status.SUBMITTED
    assert standin.state.requests == []  # judged from Parable's copy: no call, no wait


def test_rejecting_every_item_rejects_on_prolific_with_a_long_message_after_commit(
    standin, finished, django_capture_on_commit_callbacks
):
    first, second, third = items(finished)
    assignment_reject(assignment=first, message="Too short is fine for one item.")
    assignment_reject(assignment=second, message="Also fine.")
    with pytest.raises(ReviewError, match="at least 100 characters"):
        assignment_reject(assignment=third, message="Copied.")
    assert Assignment.objects.get(pk=third.pk).status == Assignment.Status.SUBMITTED
    standin.state.requests.clear()
    with django_capture_on_commit_callbacks(execute=False) as queued:
        assignment_reject(assignment=third, message=REASON)
    assert standin.state.requests == []  # nothing sent inside the review's transaction
    finished.refresh_from_db()
    assert finished.submission.status_shown == "rejection sent"
    for callback in queued:
        callback()
    submission = standin.state.submissions[finished.session_id]
    assert submission["status"] == "REJECTED"


def test_approving_sessions_approves_each_submission_once_and_skips_unvouched(
    standin, batch, finished, django_capture_on_commit_callbacks
):
    fake = enter_unchecked(standin, batch)
    submit_all(fake)
    standin.state.requests.clear()
    with django_capture_on_commit_callbacks(execute=False) as queued, transaction.atomic():
        outcome = sessions_approve(sessions=[finished, fake])
    assert outcome == {"approved": 3, "unvouched": 1, "refused": []}
    assert standin.state.requests == []  # no call to Prolific holds the reviewer's request
    finished.refresh_from_db()
    assert finished.submission.status_shown == "approval sent"
    for callback in queued:
        callback()
    transitions = [r for r in standin.state.requests if r[1].endswith("/transition/")]
    assert transitions == [("POST", f"/api/v1/submissions/{finished.session_id}/transition/")]
    assert standin.state.submissions[finished.session_id]["status"] == "APPROVED"
    finished.refresh_from_db()
    assert finished.submission.status_shown == "APPROVED"
    assert {a.status for a in items(fake)} == {"submitted"}


def test_bonus_is_paid_in_two_steps_after_commit(
    standin, finished, django_capture_on_commit_callbacks
):
    assignment = items(finished)[0]
    assignment_approve(assignment=assignment)
    with django_capture_on_commit_callbacks(execute=True):
        assignment_bonus(assignment=assignment, cents=75, reason="A vivid story")
    call = ProviderAction.objects.get(kind="bonus")
    assert standin.state.payments == [
        {
            "bulk_id": call.payload["bulk_id"],
            "participant_id": "p1",
            "submission_id": finished.session_id,
            "cents": 75,
        }
    ]
    assert call.status == "done" and call.reference == finished.session_id


def test_bonus_on_unvouched_work_is_refused(standin, batch):
    fake = enter_unchecked(standin, batch)
    submit_all(fake)
    assignment = items(fake)[0]
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.APPROVED)
    with pytest.raises(ReviewError, match="prolific has no record confirming"):
        assignment_bonus(assignment=assignment, cents=50, reason="x")
    assert not Bonus.objects.exists() and not ProviderAction.objects.exists()


def test_block_and_unblock_go_through_the_blocklist_group(standin, batch, finished):
    group_id = batch.prolific_study.blocklist_group_id
    worker_block(worker=finished.worker, reason="Copied stories")
    assert provider_calls_send() == ["done"]
    assert standin.state.groups[group_id]["participants"] == ["p1"]
    worker_unblock(worker=finished.worker)
    assert provider_calls_send() == ["done"]
    assert standin.state.groups[group_id]["participants"] == []


def test_a_block_prolific_did_not_answer_is_sent_again_by_beat(standin, batch, finished, settings):
    standin.state.fail(path="participant-groups", status=500, count=50)
    worker_block(worker=finished.worker, reason="Copied stories")
    assert provider_calls_send() == ["pending"]  # adding twice leaves one entry: sent again
    finished.worker.refresh_from_db()
    assert finished.worker.blocked  # Parable serves them nothing meanwhile
    standin.state.failures.clear()
    settings.PARABLE_BACKGROUND_GRACE_SECONDS = 0
    provider_actions_requeue_task()
    group_id = batch.prolific_study.blocklist_group_id
    assert standin.state.groups[group_id]["participants"] == ["p1"]
    assert ProviderAction.objects.get().status == "done"


def test_an_approval_whose_task_was_lost_is_sent_by_beat(standin, finished, settings):
    assignment_approve(assignment=items(finished)[0])  # its task never ran
    assert standin.state.submissions[finished.session_id]["status"] == "AWAITING REVIEW"
    provider_actions_requeue_task()  # within the grace period: the task may still come
    assert standin.state.submissions[finished.session_id]["status"] == "AWAITING REVIEW"
    settings.PARABLE_BACKGROUND_GRACE_SECONDS = 0
    provider_actions_requeue_task()
    assert standin.state.submissions[finished.session_id]["status"] == "APPROVED"
    finished.refresh_from_db()
    assert finished.submission.status_shown == "APPROVED"


def test_a_message_inside_a_transaction_is_sent_after_commit(
    standin, finished, django_capture_on_commit_callbacks
):
    # inside a transaction, as a withdrawal notifies while holding its row locks
    with django_capture_on_commit_callbacks(execute=False) as queued, transaction.atomic():
        workers_notify(workers=[finished.worker], subject="Thanks", message="Bonus soon")
    assert standin.state.messages == []
    for callback in queued:
        callback()
    assert standin.state.messages[0]["recipient_id"] == "p1"
    assert standin.state.messages[0]["body"] == "Thanks\n\nBonus soon"


def test_a_message_whose_answer_is_lost_is_not_sent_again(standin, finished, settings):
    """Prolific delivered it, then answered 500: the participant gets it once."""
    standin.state.fail(path="messages", status=500, count=5, after=True)
    workers_notify(workers=[finished.worker], subject="", message="Thanks")
    assert provider_calls_send() == ["unknown"]
    assert "not sent again" in ProviderAction.objects.get().note
    settings.PARABLE_BACKGROUND_GRACE_SECONDS = 0
    provider_actions_requeue_task()
    assert [message["body"] for message in standin.state.messages] == ["Thanks"]


def test_an_item_rejected_before_its_approval_went_out_leaves_the_others_approving(
    standin, finished
):
    first, second, _ = items(finished)
    assignment_approve(assignment=first)
    assignment_approve(assignment=second)
    assignment_reject(assignment=first, message="Restates the proverb.")  # before any call
    assert provider_calls_send() == ["done"]  # the second item's approval
    assert standin.state.submissions[finished.session_id]["status"] == "APPROVED"
    first_call = ProviderAction.objects.get(kind="approve", assignment=first)
    assert first_call.status == "superseded"
