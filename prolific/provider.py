"""The Prolific crowd provider: a batch is a study, an assignment belongs to a participant's
session, and Prolific's submission for that session is what approval, rejection and
bonuses act on (the calls themselves: prolific.actions).
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.urls import reverse

from crowd.providers import CrowdProvider, ProviderError
from prolific import actions
from prolific.client import ProlificClient
from prolific.models import (
    REVIEWABLE,
    STILL_PROCESSING,
    Study,
)
from prolific.selectors import workspace_currency
from prolific.studies import study_publish, study_stop
from prolific.submissions import study_sync
from prolific.vouching import session_of, unvouched


def _study(batch) -> Study:
    study = Study.objects.filter(batch=batch).first()
    if study is None:
        raise ProviderError(
            "This batch has no Prolific study settings yet: prepare it under Prolific › Studies."
        )
    return study


class ProlificProvider(CrowdProvider):
    key = "prolific"
    unvouched_message = (
        "Prolific has no submission from this participant for this session, so this work "
        "cannot be counted or paid. If you took part through Prolific, please contact the "
        "researcher."
    )

    def __init__(self, client_factory=ProlificClient):
        self.client_factory = client_factory

    def vouched(self, *, assignment) -> bool:
        session = session_of(assignment)
        return session is not None and session.submission_id is not None

    def unvouched_among(self, *, assignments):
        return unvouched(assignments)

    def unvouched_grace(self, *, batch) -> timedelta:
        """One polling interval: Prolific's submission may still be on its way."""
        return timedelta(seconds=settings.PROLIFIC_SYNC_SECONDS)

    def review_state(self, *, assignment) -> dict:
        """The session's state on Prolific as last synced: approvable only once Prolific
        has the submission awaiting review (or already approved)."""
        session = session_of(assignment)
        if session is None or session.submission is None:
            return {"label": "No Prolific submission: not counted or paid", "approvable": False}
        submission = session.submission
        if submission.status in STILL_PROCESSING:
            return {
                "label": "Still working on Prolific (not submitted there yet)",
                "approvable": False,
            }
        if submission.status == REVIEWABLE:
            label = f"Prolific: {submission.status_shown}"
            return {"label": label[:1].upper() + label[1:], "approvable": True}
        return {
            "label": f"Prolific: {submission.status.lower()}",
            "approvable": submission.status == "APPROVED",
        }

    def currency(self, *, batch) -> str:
        """The workspace's, as stored with the study's cost ("" before it was priced)."""
        return Study.objects.filter(batch=batch).values_list("currency", flat=True).first() or ""

    def reward_recommendation(self, *, batch) -> dict | None:
        """Prolific's minimum and recommended hourly rewards in the account's currency."""
        if not settings.PROLIFIC_WORKSPACE_ID:
            raise ProviderError("Set PROLIFIC_WORKSPACE_ID to ask Prolific for its reward rates.")
        client = self.client_factory()
        currency = workspace_currency(client=client) or "GBP"
        rates = client.reward_recommendations(
            workspace_id=settings.PROLIFIC_WORKSPACE_ID, currency=currency
        )
        return rates[0] if rates else None

    def publish(self, *, batch) -> dict:
        return {"prolific_study": study_publish(study=_study(batch), client=self.client_factory())}

    def sync(self, *, batch) -> int:
        return study_sync(study=_study(batch), client=self.client_factory())

    def action_prepare(self, *, action) -> bool:
        return actions.action_prepare(action=action)

    def action_send(self, *, action) -> str:
        return actions.action_send(action=action, client=self.client_factory())

    def action_reconcile(self, *, action, now) -> str:
        return actions.action_reconcile(action=action, client=self.client_factory(), now=now)

    def action_in_flight(self) -> timedelta:
        """Two requests (a status read, then the change) and all their retries' time-outs,
        with a margin."""
        tries = settings.PROLIFIC_RETRIES + 1
        return timedelta(seconds=2 * tries * settings.PROLIFIC_TIMEOUT_SECONDS + 60)

    def close(self, *, batch) -> None:
        """Stop the study if Prolific still has it recruiting: read from Prolific, since it
        may be PUBLISHING still, or paused by Prolific on its own."""
        study_stop(study=_study(batch), client=self.client_factory())

    def session_url(self, *, batch, worker) -> str:
        return reverse("prolific:session_continue")

    def next_url(self, *, assignment) -> str:
        return reverse("prolific:session_continue")
