"""manage.py provider_calls_send: beat's part for provider calls where no beat runs."""

from io import StringIO

import pytest
from django.core.management import call_command

from crowd.models import ProviderAction
from crowd.review import assignment_approve, worker_block
from tests.crowd.test_providers import submitted

pytestmark = pytest.mark.django_db


def test_it_sends_the_calls_whose_task_was_lost_once(ledger, ledger_batch, settings):
    answer = submitted(ledger_batch, "W1")
    ledger.check_in(answer.worker)
    ledger.sync(batch=ledger_batch)
    assignment_approve(assignment=answer)  # its task never ran (the server was stopped)
    worker_block(worker=answer.worker, reason="Copied text")
    settings.PARABLE_BACKGROUND_GRACE_SECONDS = 0
    out = StringIO()
    call_command("provider_calls_send", stdout=out)
    assert out.getvalue().strip() == "Provider calls handled: 2 done."
    assert ledger.calls[1:] == [("approve", answer.pk), ("block", "W1")]
    assert set(ProviderAction.objects.values_list("status", flat=True)) == {"done"}
    out = StringIO()
    call_command("provider_calls_send", stdout=out)
    assert out.getvalue().strip() == "No provider call was waiting."
    assert len(ledger.calls) == 3
