"""The MTurk crowd provider: crowd review decisions become Requester API calls
(mturk.actions), sent after each decision commits.

Work counts and is paid only once MTurk has an assignment with the same id, HIT and
worker (mturk.sync links it): an answer stored under MTurk's page parameters waits
unconfirmed until then, holding no slot, and one MTurk never vouches for (a forged
worker or assignment id) is never approved or paid.
"""

from __future__ import annotations

from datetime import timedelta

from crowd.providers import CrowdProvider
from mturk import actions
from mturk.hits import hit_expire
from mturk.models import MTurkAssignment
from mturk.publishing import hits_create
from mturk.sync import batch_sync


class MTurkProvider(CrowdProvider):
    key = "mturk"
    unvouched_message = (
        "No MTurk assignment with this assignment id, HIT and worker was submitted: "
        "this answer is not counted or paid."
    )
    confirms_after_submit = True

    def vouched(self, *, assignment) -> bool:
        return MTurkAssignment.objects.filter(answer=assignment).exists()

    def unvouched_among(self, *, assignments):
        return assignments.filter(mturk_assignment__isnull=True)

    def unvouched_grace(self, *, batch) -> timedelta:
        """Within the time allowed and ten minutes more, an answer may be waiting for
        MTurk's own submit."""
        return timedelta(minutes=10)

    def currency(self, *, batch) -> str:
        return "USD"  # MTurk pays in US dollars only

    def publish(self, *, batch) -> dict:
        return hits_create(batch=batch)

    def sync(self, *, batch) -> int:
        return batch_sync(batch=batch)

    def action_prepare(self, *, action) -> bool:
        return actions.action_prepare(action=action)

    def action_send(self, *, action) -> str:
        return actions.action_send(action=action)

    def action_reconcile(self, *, action, now) -> str:
        return actions.action_reconcile(action=action, now=now)

    def action_in_flight(self) -> timedelta:
        return actions.action_in_flight()

    def close(self, *, batch) -> None:
        for hit in batch.mturk_hits.all():
            hit_expire(hit=hit)
