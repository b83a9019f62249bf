"""Review mapped to Prolific through the crowd services: approve, reject, bulk approve,
bonuses paid once, block and unblock, messages."""

import pytest
from django.db import transaction

from crowd.models import Assignment
from crowd.providers import get_provider
from crowd.review import (
    ReviewError,
    assignment_approve,
    assignment_bonus,
    assignment_reject,
    worker_block,
    worker_unblock,
)
from prolific.models import BonusPayment
from prolific.review import sessions_approve
from prolific.sessions import session_assignments
from prolific.submissions import decisions_waiting, study_sync
from prolific.tasks import message_send_task, studies_sync_task
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


def test_bulk_approval_approves_sessions_and_skips_unvouched(
    standin, batch, finished, django_capture_on_commit_callbacks
):
    fake = enter_unchecked(standin, batch)
    submit_all(fake)
    standin.state.requests.clear()
    with django_capture_on_commit_callbacks(execute=False) as queued, transaction.atomic():
        outcome = sessions_approve(sessions=[finished, fake])
    assert outcome == {"approved": 3, "unvouched": 1, "refused": []}
    # The reviewer's request holds no call to Prolific: the bulk approval is queued.
    assert ("POST", "/api/v1/submissions/bulk-approve/") not in standin.state.requests
    finished.refresh_from_db()
    assert finished.submission.status_shown == "approval sent"
    for callback in queued:
        callback()
    assert ("POST", "/api/v1/submissions/bulk-approve/") in standin.state.requests
    # Prolific approves asynchronously: "approval sent" until it reports approved.
    assert standin.state.submissions[finished.session_id]["status"] == "AWAITING REVIEW"
    study_sync(study=batch.prolific_study)
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
    assert standin.state.payments == [
        {
            "bulk_id": BonusPayment.objects.get().bulk_id,
            "participant_id": "p1",
            "submission_id": finished.session_id,
            "cents": 75,
        }
    ]
    assert BonusPayment.objects.get().status == BonusPayment.Status.PAID


def test_bonus_on_unvouched_work_is_refused(standin, batch):
    fake = enter_unchecked(standin, batch)
    submit_all(fake)
    assignment = items(fake)[0]
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.APPROVED)
    with pytest.raises(ReviewError, match="prolific has no record confirming"):
        assignment_bonus(assignment=assignment, cents=50, reason="x")
    assert BonusPayment.objects.count() == 0


def test_block_and_unblock_go_through_the_blocklist_group(standin, batch, finished):
    group_id = batch.prolific_study.blocklist_group_id
    worker_block(worker=finished.worker, reason="Copied stories")
    assert standin.state.groups[group_id]["participants"] == ["p1"]
    worker_unblock(worker=finished.worker)
    assert standin.state.groups[group_id]["participants"] == []


def test_failed_block_on_prolific_blocks_nothing(standin, batch, finished):
    standin.state.fail(path="participant-groups", status=500, count=50)
    with pytest.raises(ReviewError, match="500"):
        worker_block(worker=finished.worker, reason="Copied stories")
    finished.worker.refresh_from_db()
    assert not finished.worker.blocked


def test_a_failed_bulk_approval_is_sent_again_one_by_one_by_beat(
    standin, batch, finished, django_capture_on_commit_callbacks, settings
):
    standin.state.fail(path="bulk-approve", status=500, count=50)
    with django_capture_on_commit_callbacks(execute=True):
        sessions_approve(sessions=[finished])
    assert standin.state.submissions[finished.session_id]["status"] == "AWAITING REVIEW"
    settings.PARABLE_BACKGROUND_GRACE_SECONDS = 0
    approvals, _ = decisions_waiting()
    assert approvals == [finished.submission.pk]
    studies_sync_task()  # beat: each approval still waiting is sent on its own
    assert standin.state.submissions[finished.session_id]["status"] == "APPROVED"


def test_notify_inside_a_transaction_sends_after_commit(
    standin, finished, django_capture_on_commit_callbacks
):
    # inside a transaction, as a withdrawal notifies while holding its row locks
    with django_capture_on_commit_callbacks(execute=False) as queued, transaction.atomic():
        get_provider("prolific").notify(
            workers=[finished.worker], subject="Thanks", message="Bonus soon"
        )
    assert standin.state.messages == []
    for callback in queued:
        callback()
    assert standin.state.messages[0]["recipient_id"] == "p1"
    assert standin.state.messages[0]["body"] == "Thanks\n\nBonus soon"


def test_a_message_whose_answer_is_lost_is_not_sent_again(standin, finished):
    """Prolific delivered it, then answered 500: the participant gets it once."""
    standin.state.fail(path="messages", status=500, count=5, after=True)
    assert message_send_task("p1", finished.study.study_id, "Thanks") is False
    assert [message["body"] for message in standin.state.messages] == ["Thanks"]
