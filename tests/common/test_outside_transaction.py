"""No provider call runs inside a database transaction: the Prolific and MTurk clients
refuse one before sending it, and a review holds no row lock while the provider answers."""

import pytest
from django.db import DatabaseError, connection, transaction

from common.outside_transaction import CallInTransaction
from crowd.models import Assignment
from crowd.review import assignment_approve
from mturk import client as mturk_client
from mturk.models import HIT
from mturk.sync import batch_sync
from prolific.client import ProlificClient
from tests.factories import BIRDS, mturk_batch_create, proverb_create
from tests.mturk.test_provider import _work
from tests.prolific.conftest import TOKEN, standin_start


@pytest.mark.django_db
def test_a_prolific_call_inside_a_transaction_is_refused_before_it_is_sent():
    server = standin_start()
    try:
        client = ProlificClient(base_url=server.api_url, token=TOKEN)
        refused = pytest.raises(CallInTransaction, match="Prolific GET users/me/")
        with refused, transaction.atomic():
            client.me()
        assert server.state.requests == []
        assert client.me()["balance"] == server.state.balance  # outside one, it is sent
    finally:
        server.stop()


@pytest.mark.django_db
def test_an_mturk_call_inside_a_transaction_is_refused_before_it_is_sent(standin):
    refused = pytest.raises(CallInTransaction, match="MTurk get_account_balance")
    with refused, transaction.atomic():
        mturk_client.call("get_account_balance")
    assert standin.state.calls == []
    assert mturk_client.call("get_account_balance")["AvailableBalance"]


@pytest.mark.django_db(transaction=True)
def test_an_approval_holds_no_lock_while_mturk_answers(standin):
    """The stand-in, while it answers ApproveAssignment, locks the assignment's row from
    a connection of its own without waiting: it is free, so other admin work never
    waits on MTurk."""
    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    answer = _work(standin, HIT.objects.get(batch=batch), "A1WORKER")
    batch_sync(batch=batch)
    answering, row = standin.state.dispatch, []

    def dispatch(operation, params):
        if operation == "ApproveAssignment":
            try:
                with transaction.atomic():
                    Assignment.objects.select_for_update(nowait=True).get(pk=answer.pk)
                row.append("free")
            except DatabaseError:
                row.append("locked")
            finally:
                connection.close()  # the stand-in thread's own connection
        return answering(operation, params)

    standin.state.dispatch = dispatch
    assignment_approve(assignment=answer, message="Thanks")
    assert row == ["free"]
    assert Assignment.objects.get(pk=answer.pk).status == Assignment.Status.APPROVED
