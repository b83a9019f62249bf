"""The MTurk crowd provider: crowd review decisions become Requester API calls
(mturk.actions), sent after each decision commits. Work counts and is paid only once
MTurk has an assignment with the same id, HIT and worker (mturk.entry, mturk.sync).
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

    # The module functions take the provider's keyword arguments as they are.
    publish = staticmethod(hits_create)
    sync = staticmethod(batch_sync)
    action_prepare = staticmethod(actions.action_prepare)
    action_send = staticmethod(actions.action_send)
    action_reconcile = staticmethod(actions.action_reconcile)
    action_in_flight = staticmethod(actions.action_in_flight)

    def close(self, *, batch) -> None:
        for hit in batch.mturk_hits.all():
            hit_expire(hit=hit)
