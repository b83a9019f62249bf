"""The crowd-provider interface: every provider (local, Prolific, MTurk) implements it.

A provider's records are the truth for payment and for who did the work. The rules that
hold for every provider live in crowd.review, not here: only work the provider vouches
for is approved or paid, unvouched work is rejected once its grace is over, and a bonus
is paid once. What a review decision asks of the provider (approve, reject, pay a bonus,
block, unblock, message) is a crowd.ProviderAction, written with the decision and sent
by crowd.outbox: a provider says here how it checks, carries out and reconciles each.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crowd.models import Assignment, Batch, ProviderAction


class ProviderError(RuntimeError):
    """A provider refused or failed a call; the message says what to do.

    `refused`: the provider answered no, so the call did nothing and sending it again
    gets the same answer. Otherwise the call failed on its way (no answer, a time-out, a
    server error) and may or may not have acted."""

    refused = True


class CallNotSent(ProviderError):
    """The call certainly did nothing and may be sent again later (throttled, a first step
    that failed before anything was paid)."""

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
    # The provider vouches for work only once the worker has submitted it there too
    # (MTurk): a stored answer waits unconfirmed, holding no slot and counting for
    # nothing, until the provider's records confirm it (crowd.review.assignment_confirm).
    confirms_after_submit: bool = False

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
        """A recorded crowd.Bonus as its provider has it, from the call that pays it (select
        `provider_action` with the bonuses)."""
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
        """How the provider has this work now, from Parable's own copy of its records (no
        call): {"label", "approvable"}; None when there is nothing to say."""
        return None

    def currency(self, *, batch: Batch) -> str:
        """The code of the currency the batch's amounts are in ("" when not known); no call."""
        return ""

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

    def close(self, *, batch: Batch) -> None:
        raise NotImplementedError

    # The calls review decisions owe the provider (crowd.outbox sends them).

    def action_prepare(self, *, action: ProviderAction) -> bool:
        """Inside the decision's transaction, judged from Parable's own copy of the
        provider's records (no call): raise ProviderError when the provider would refuse
        it, fill in what the call needs (`payload`, `reference`), and say whether there is
        anything to send (False: the decision needs nothing from the provider)."""
        raise NotImplementedError

    def action_send(self, *, action: ProviderAction) -> str:
        """Carry the call out, outside any transaction; returns a note on what was done.
        Raises ProviderError: refused (the call did nothing), CallNotSent, or failed on
        its way (it may have acted: see action_delivery)."""
        raise NotImplementedError

    def action_delivery(self, *, action: ProviderAction) -> str:
        """What may be done with the call when its outcome is not known: RETRY (send it
        again: the provider's state makes a repeat harmless), RECONCILE (settle it from the
        provider's own record first, action_reconcile) or ONCE (never sent again: the
        provider keeps no record Parable can read). By default the safe rule: a bonus is
        reconciled, a message sent once, a decision (approve, reject, block, unblock)
        judged from the provider's state when it is sent, so sent again."""
        from crowd.models import ProviderAction

        if action.kind == ProviderAction.Kind.BONUS:
            return RECONCILE
        if action.kind == ProviderAction.Kind.NOTIFY:
            return ONCE
        return RETRY

    def action_reconcile(self, *, action: ProviderAction, now) -> str:
        """For a RECONCILE call whose outcome is unknown, from the provider's record: "done"
        (it acted), "pending" (it certainly did not: send it again) or "unknown" (not
        known yet)."""
        raise NotImplementedError

    def action_in_flight(self) -> timedelta:
        """How long a call can still be under way: a call sent longer ago and still not
        answered was left by a process that died."""
        return timedelta(minutes=5)

    def session_url(self, *, batch: Batch, worker) -> str | None:
        """Where a worker asking for the batch's next task goes when the provider hands out
        work in its own sessions (Prolific); None: the batch hands out items one at a time."""
        return None

    def next_url(self, *, assignment: Assignment) -> str:
        """Where a worker goes after this assignment: the batch's next task by default;
        a provider whose session ends elsewhere (Prolific's completion) says so."""
        from django.urls import reverse

        return reverse("frontend:next", args=[assignment.item.batch_id])
