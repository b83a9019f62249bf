"""Fixtures of crowd's tests: a provider defined entirely here (the ledger), registered
with crowd for a test."""

from datetime import timedelta

import pytest

from crowd import providers
from crowd.batches import batch_create, batch_publish
from crowd.models import Assignment
from crowd.providers import CrowdProvider, ProviderError
from crowd.review import unvouched_release
from tests.factories import BIRDS, proverb_create


class LedgerProvider(CrowdProvider):
    """A crowd service whose records are an in-memory ledger: it vouches for work once its
    worker has checked in (`check_in`), and pays what it is asked to pay."""

    key = "ledger"
    unvouched_message = "The ledger never saw this work."

    def __init__(self):
        self.checked_in: set[str] = set()
        self.vouched_ids: set[int] = set()
        self.calls: list[tuple] = []
        self.failures: list[tuple[Exception, bool]] = []

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

    def fail_next(self, error: Exception, *, after: bool = False) -> None:
        """The next call fails with `error`; with `after`, once it has been written (the
        call acted, and its answer was lost)."""
        self.failures.append((error, after))

    def action_prepare(self, *, action) -> bool:
        if action.payload.get("reason") == "refused here":
            raise ProviderError("The ledger refuses this reason.")
        return True

    def action_send(self, *, action) -> str:
        error, after = self.failures.pop(0) if self.failures else (None, False)
        if error is not None and not after:
            raise error
        self._write(action)
        if error is not None:
            raise error
        return "Written in the ledger."

    def action_reconcile(self, *, action, now) -> str:
        written = ("bonus", action.assignment_id, action.payload["cents"], action.payload["reason"])
        return "done" if written in self.calls else "pending"

    def _write(self, action) -> None:
        payload = action.payload
        if action.kind == "approve":
            self.calls.append(("approve", action.assignment_id))
        elif action.kind == "reject":
            self.calls.append(("reject", action.assignment_id, payload["message"]))
        elif action.kind == "bonus":
            self.calls.append(("bonus", action.assignment_id, payload["cents"], payload["reason"]))
        else:
            self.calls.append((action.kind, action.worker.external_id))

    def close(self, *, batch) -> None:
        self.calls.append(("close", batch.pk))


@pytest.fixture
def ledger():
    provider = providers.register(LedgerProvider())
    yield provider
    providers._providers.pop(provider.key)


@pytest.fixture
def ledger_batch(ledger):
    """A published write batch on the ledger."""
    draft = batch_create(
        name="On the ledger",
        task_type="write",
        provider="ledger",
        target_per_item=2,
        items=[{"proverb": proverb_create(BIRDS)}],
    )
    return batch_publish(batch=draft)
