"""The crowd-provider interface: every provider (local, Prolific, MTurk) implements it.

Calls happen after our own records change; a provider's records are the truth
for payment and for who did the work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crowd.models import Assignment, Batch, Worker


class ProviderError(RuntimeError):
    """A provider refused or failed a call; the message says what to do."""


class CrowdProvider:
    key: str = ""

    def publish(self, *, batch: Batch) -> dict:
        """Make the batch's work available; returns provider ids to store on the batch."""
        raise NotImplementedError

    def sync(self, *, batch: Batch) -> int:
        """Bring assignments in line with the provider's records; returns rows changed."""
        raise NotImplementedError

    def approve(self, *, assignment: Assignment) -> None:
        raise NotImplementedError

    def reject(self, *, assignment: Assignment, message: str) -> None:
        raise NotImplementedError

    def pay_bonus(self, *, assignment: Assignment, cents: int, reason: str) -> None:
        raise NotImplementedError

    def block(self, *, worker: Worker, reason: str) -> None:
        raise NotImplementedError

    def unblock(self, *, worker: Worker) -> None:
        """Let a blocked worker take work again."""
        raise NotImplementedError

    def notify(self, *, workers: list[Worker], subject: str, message: str) -> None:
        raise NotImplementedError

    def close(self, *, batch: Batch) -> None:
        raise NotImplementedError

    def session_url(self, *, batch: Batch, worker: Worker) -> str | None:
        """Where a worker asking for the batch's next task goes when the provider hands out
        work in its own sessions (Prolific); None: the batch hands out items one at a time."""
        return None

    def next_url(self, *, assignment: Assignment) -> str:
        """Where a worker goes after this assignment: the batch's next task by default;
        a provider whose session ends elsewhere (Prolific's completion) says so."""
        from django.urls import reverse

        return reverse("frontend:next", args=[assignment.item.batch_id])
