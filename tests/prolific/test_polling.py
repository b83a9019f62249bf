"""prolific.polling: every study not finished is synced, one Prolific refuses is left to the
next poll, and what still waits to be sent is gathered."""

import pytest

from crowd.review import assignment_approve
from prolific.models import ParticipantSession, Study
from prolific.polling import studies_sync
from prolific.sessions import session_assignments
from tests.factories import prolific_batch_create, proverb_create
from tests.prolific.helpers import finish_on_prolific, submit_all, take_part, write_study

pytestmark = pytest.mark.django_db


def test_a_study_prolific_refuses_is_left_for_the_next_poll_and_the_others_synced(standin):
    refused = write_study(name="Refused")
    synced = prolific_batch_create(
        name="Synced", proverbs=[proverb_create("Haste makes waste")], target_per_item=2
    )
    for batch, participant in ((refused, "p1"), (synced, "p2")):
        session, submission = take_part(standin, batch, participant)
        submit_all(session)
        finish_on_prolific(standin, submission)
    standin.state.fail(path=refused.prolific_study.study_id, status=503, count=10)
    polled = studies_sync()
    assert polled.seen == 1
    assert Study.objects.get(batch=synced).synced_at is not None
    assert Study.objects.get(batch=refused).synced_at is None
    standin.state.failures.clear()
    assert studies_sync().seen == 2


def test_a_poll_gathers_the_approvals_prolific_still_has_waiting(standin, settings):
    settings.PARABLE_BACKGROUND_GRACE_SECONDS = 0
    session, submission = take_part(standin, write_study(), "p1")
    submit_all(session)
    finish_on_prolific(standin, submission)
    assert studies_sync().approvals == []
    session = ParticipantSession.objects.get()
    assignment_approve(assignment=session_assignments(session=session).first())
    polled = studies_sync()
    assert polled.approvals == [session.submission.pk]
    assert (polled.rejections, polled.bonuses_to_send, polled.bonuses_to_reconcile) == ([], [], [])
