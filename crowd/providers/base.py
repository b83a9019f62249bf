"""The crowd-provider interface: every provider (local, Prolific, MTurk) implements it.

A provider's records are the truth for payment and for who did the work; the rules every
provider shares live in crowd.review. A provider says here how it checks, carries out and
reconciles the calls review decisions owe it (crowd.outbox; docs/ARCHITECTURE.md).
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crowd.models import Assignment, Batch, ProviderAction


class ProviderError(RuntimeError):
    """A provider refused or failed a call; the message says what to do. `refused`: the
    call did nothing; otherwise it failed on its way and may or may not have acted."""

    refused = True


class CallNotSent(ProviderError):
    """The call certainly did nothing and may be sent again later (throttled)."""

    refused = False


# How a provider's call may be sent again when its outcome is not known (no answer, or
# the process sending it died): see CrowdProvider.action_delivery.
RETRY = "retry"
RECONCILE = "reconcile"
ONCE = "once"


class CrowdProvider:
    key: str = ""
    # Said to the worker when their unvouched work is rejected after its grace.
    unvouched_message: str = (
        "The provider has no record of this work from you, so it cannot be counted or paid."
    )
    # The provider vouches for work only once submitted there too (MTurk): a stored answer
    # waits unconfirmed, counting for nothing (crowd.review.assignment_confirm).
    confirms_after_submit: bool = False

    def vouched(self, *, assignment: Assignment) -> bool:
        """Whether the provider's own records confirm this worker did this work."""
        raise NotImplementedError

    def unvouched_among(self, *, assignments):
        """The assignments of a queryset the provider has not vouched for."""
        return [answer for answer in assignments if not self.vouched(assignment=answer)]

    def unvouched_grace(self, *, batch: Batch) -> timedelta:
        """How long past the batch's time allowed unvouched work may still be confirmed."""
        return timedelta(minutes=10)

    def bonus_state(self, *, bonus) -> str:
        """A crowd.Bonus as its provider has it, from the call that pays it."""
        from django.core.exceptions import ObjectDoesNotExist

        from crowd.models import ProviderAction

        try:
            action = bonus.provider_action
        except ObjectDoesNotExist:
            return "not sent to the provider"
        if action.status == ProviderAction.Status.DONE:
            return "paid"
        if action.status == ProviderAction.Status.UNKNOWN:
            return "outcome unknown: awaiting reconciliation"
        return action.get_status_display().lower()

    def review_state(self, *, assignment: Assignment) -> dict | None:
        """How the provider has this work now, from Parable's copy of its records:
        {"label", "approvable"}, or None."""
        return None

    def currency(self, *, batch: Batch) -> str:
        """The code of the currency the batch's amounts are in ("" when not known)."""
        return ""

    def reward_recommendation(self, *, batch: Batch) -> dict | None:
        """The provider's hourly rates for the batch ({currency, min_reward_per_hour,
        recommended_reward_per_hour}, in cents), or None."""
        return None

    def publish(self, *, batch: Batch) -> dict:
        """Make the batch's work available; returns provider ids to store on the batch."""
        raise NotImplementedError

    def sync(self, *, batch: Batch) -> int:
        """Bring assignments in line with the provider's records; returns rows changed."""
        raise NotImplementedError

    def close(self, *, batch: Batch) -> None:
        raise NotImplementedError

    # The calls review decisions owe the provider (crowd.outbox sends them).

    def action_prepare(self, *, action: ProviderAction) -> bool:
        """In the decision's transaction, from Parable's copy of the provider's records:
        raise ProviderError where the provider would refuse, fill in `payload` and
        `reference`, and say whether there is anything to send."""
        raise NotImplementedError

    def action_send(self, *, action: ProviderAction) -> str:
        """Carry the call out, outside any transaction; returns a note on what was done, or
        raises ProviderError (refused, or failed on its way) or CallNotSent."""
        raise NotImplementedError

    def action_delivery(self, *, action: ProviderAction) -> str:
        """RETRY, RECONCILE or ONCE: what may be done with the call when its outcome is not
        known. By default a bonus is reconciled, a message sent once, and a decision judged
        from the provider's state when it is sent, so sent again."""
        from crowd.models import ProviderAction

        if action.kind == ProviderAction.Kind.BONUS:
            return RECONCILE
        if action.kind == ProviderAction.Kind.NOTIFY:
            return ONCE
        return RETRY

    def action_reconcile(self, *, action: ProviderAction, now) -> str:
        """An unknown RECONCILE call from the provider's record: "done", "pending" (it
        certainly did not act: send it again) or "unknown"."""
        raise NotImplementedError

    def action_in_flight(self) -> timedelta:
        """How long a call can still be under way; one unanswered longer was left by a
        process that died."""
        return timedelta(minutes=5)

    def session_url(self, *, batch: Batch, worker) -> str | None:
        """Where a worker asking for the next task goes when the provider hands out work in
        its own sessions (Prolific); None: one item at a time."""
        return None

    def next_url(self, *, assignment: Assignment) -> str:
        """Where a worker goes after this assignment: the batch's next task by default."""
        from django.urls import reverse

        return reverse("frontend:next", args=[assignment.item.batch_id])
