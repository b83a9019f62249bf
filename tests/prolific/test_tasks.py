"""Beat's Prolific polling: every running study synced, unpaid bonuses paid."""

import pytest

from crowd.review import assignment_approve, assignment_bonus
from prolific.models import BonusPayment, ParticipantSession
from prolific.sessions import session_assignments
from prolific.tasks import bonus_pay_task, studies_sync_task
from tests.prolific.helpers import finish_on_prolific, submit_all, take_part, write_study

pytestmark = pytest.mark.django_db


def test_beat_sync_links_sessions_and_pays_bonuses_left_unpaid(standin):
    batch = write_study()
    session, submission = take_part(standin, batch, "p1")
    submit_all(session)
    finish_on_prolific(standin, submission)
    assert studies_sync_task() == 1
    session = ParticipantSession.objects.get()
    assert session.submission.status == "AWAITING REVIEW"

    assignment = session_assignments(session=session).first()
    assignment_approve(assignment=assignment)
    standin.state.fail(path="bonus-payments", status=503, count=50)
    assignment_bonus(assignment=assignment, cents=30, reason="Well told")
    assert bonus_pay_task.delay(BonusPayment.objects.get().pk).result == "unpaid"
    standin.state.failures.clear()
    studies_sync_task()
    studies_sync_task()
    assert BonusPayment.objects.get().status == BonusPayment.Status.PAID
    assert [p["cents"] for p in standin.state.payments] == [30]


def test_beat_sends_again_an_approval_whose_task_was_lost(standin, settings):
    from crowd.models import Assignment

    settings.PARABLE_BACKGROUND_GRACE_SECONDS = 0
    batch = write_study()
    session, submission = take_part(standin, batch, "p1")
    submit_all(session)
    finish_on_prolific(standin, submission)
    studies_sync_task()
    session = ParticipantSession.objects.get()
    assignment_approve(assignment=session_assignments(session=session).first())  # not committed
    assert standin.state.submissions[submission["id"]]["status"] == "AWAITING REVIEW"
    studies_sync_task()
    assert standin.state.submissions[submission["id"]]["status"] == "APPROVED"
    session.refresh_from_db()
    assert session.submission.status_shown == "APPROVED"
    assert Assignment.objects.filter(status="approved").count() == 1
