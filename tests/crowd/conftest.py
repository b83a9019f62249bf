"""Fixtures of crowd's tests: a provider defined entirely here (the ledger), registered
with crowd for a test."""

from datetime import timedelta

import pytest

from crowd import providers
from crowd.models import Assignment
from crowd.providers import CrowdProvider
from crowd.review import unvouched_release


class LedgerProvider(CrowdProvider):
    """A crowd service whose records are an in-memory ledger: it vouches for work once its
    worker has checked in (`check_in`), and pays what it is asked to pay."""

    key = "ledger"
    unvouched_message = "The ledger never saw this work."

    def __init__(self):
        self.checked_in: set[str] = set()
        self.vouched_ids: set[int] = set()
        self.calls: list[tuple] = []

    def check_in(self, worker) -> None:
        self.checked_in.add(worker.external_id)

    def vouched(self, *, assignment) -> bool:
        return assignment.pk in self.vouched_ids

    def unvouched_grace(self, *, batch) -> timedelta:
        return timedelta(minutes=1)

    def publish(self, *, batch) -> dict:
        self.calls.append(("publish", batch.pk))
        return {"ledger": f"L-{batch.pk}"}

    def sync(self, *, batch) -> int:
        seen = Assignment.objects.filter(
            item__batch=batch,
            status__in=Assignment.STORED,
            worker__external_id__in=self.checked_in,
        ).exclude(pk__in=self.vouched_ids)
        new = set(seen.values_list("pk", flat=True))
        self.vouched_ids |= new
        return len(new) + unvouched_release(batch=batch)

    def action_prepare(self, *, action) -> bool:
        return True

    def action_send(self, *, action) -> str:
        payload = action.payload
        if action.kind == "approve":
            self.calls.append(("approve", action.assignment_id))
        elif action.kind == "reject":
            self.calls.append(("reject", action.assignment_id, payload["message"]))
        elif action.kind == "bonus":
            self.calls.append(("bonus", action.assignment_id, payload["cents"], payload["reason"]))
        else:
            self.calls.append((action.kind, action.worker.external_id))
        return "Written in the ledger."

    def close(self, *, batch) -> None:
        self.calls.append(("close", batch.pk))


@pytest.fixture
def ledger():
    provider = providers.register(LedgerProvider())
    yield provider
    providers._providers.pop(provider.key)
