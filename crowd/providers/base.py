"""The crowd-provider interface: every provider (local, Prolific, MTurk) implements it.

Calls happen after our own records change; a provider's records are the truth
for payment and for who did the work. The rules that hold for every provider live
in crowd.review, not here: only work the provider vouches for is approved or paid,
unvouched work is rejected once its grace is over, and a bonus is paid once.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crowd.models import Assignment, Batch, Worker


class ProviderError(RuntimeError):
    """A provider refused or failed a call; the message says what to do."""


class CrowdProvider:
    key: str = ""
    # Said to the worker when their unvouched work is rejected after its grace.
    unvouched_message: str = (
        "The provider has no record of this work from you, so it cannot be counted or paid."
    )

    def vouched(self, *, assignment: Assignment) -> bool:
        """Whether the provider's own records confirm this worker did this work (a
        Prolific submission for the session, an MTurk assignment with the same ids)."""
        raise NotImplementedError

    def unvouched_among(self, *, assignments):
        """The assignments of a queryset the provider has not vouched for; providers
        answer in one query where they can."""
        return [answer for answer in assignments if not self.vouched(assignment=answer)]

    def unvouched_grace(self, *, batch: Batch) -> timedelta:
        """How long after the batch's time allowed an unvouched submission may still
        be confirmed by the provider before it is rejected."""
        return timedelta(minutes=10)

    def bonus_state(self, *, bonus) -> str:
        """The state at the provider of a recorded crowd.Bonus (paid, pending, unknown...)."""
        return "recorded"

    def review_state(self, *, assignment: Assignment) -> dict | None:
        """How the provider has this work now, from Parable's own copy of its records (no
        call): {"label", "approvable"}; None when there is nothing to say."""
        return None

    def reward_recommendation(self, *, batch: Batch) -> dict | None:
        """The provider's own hourly rates for the batch ({currency, min_reward_per_hour,
        recommended_reward_per_hour}, in cents), or None when it gives none."""
        return None

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
