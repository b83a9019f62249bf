"""prolific.polling: every study not finished is synced, and one Prolific refuses is left
to the next poll."""

import pytest

from prolific.models import Study
from prolific.polling import studies_sync
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
    assert studies_sync() == 1
    assert Study.objects.get(batch=synced).synced_at is not None
    assert Study.objects.get(batch=refused).synced_at is None
    standin.state.failures.clear()
    assert studies_sync() == 2
