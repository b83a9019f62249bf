"""Beat's Prolific polling: every running study synced, sessions linked to submissions."""

import pytest

from prolific.models import ParticipantSession
from prolific.tasks import studies_sync_task
from tests.prolific.helpers import finish_on_prolific, submit_all, take_part, write_study

pytestmark = pytest.mark.django_db


def test_beat_sync_links_sessions_to_their_submissions(standin):
    batch = write_study()
    session, submission = take_part(standin, batch, "p1")
    submit_all(session)
    finish_on_prolific(standin, submission)
    assert studies_sync_task() == 1
    session = ParticipantSession.objects.get()
    assert session.submission.status == "AWAITING REVIEW"
