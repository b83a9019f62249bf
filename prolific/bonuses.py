"""Bonuses on Prolific, each paid at most once (a RECONCILE call of crowd.outbox).

Prolific's pay call (POST /bulk-bonus-payments/{id}/pay/) pays again each time, so:
1. set up (prices it, pays nothing: harmless to repeat), its bulk payment id kept on the
   call; a failed set-up waits to be sent again (CallNotSent) unless Prolific refused it;
2. the pay call is sent once (never retried); a refusal or a throttled call pays nothing
   and is sent again with the same set-up; no answer (time-out, 5xx, a killed process)
   leaves it unknown;
3. an unknown bonus is settled from Prolific's record of the submission's bonus payments
   (GET /submissions/{id}/ `bonus_payments`, in cents): listed and not counted for another
   bonus, it is paid; unlisted after PROLIFIC_BONUS_SETTLE_SECONDS, it is sent again.
A bonus of the same amount paid outside Parable makes a lost one count as paid: the error
is towards paying too little, never twice. No call runs inside a database transaction.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings

from crowd.models import ProviderAction
from crowd.outbox import action_progress
from crowd.providers import CallNotSent
from prolific.client import ProlificClient, ProlificError
from prolific.vouching import vouched_submission

Status = ProviderAction.Status


def bonus_prepare(*, action: ProviderAction) -> None:
    """Check that Prolific vouches for the work, and name the submission the bonus goes to
    (ProviderError otherwise: nothing is recorded)."""
    submission = vouched_submission(action.assignment)
    action.reference = submission.submission_id
    action.payload["study_id"] = submission.study.study_id


def bonus_send(*, action: ProviderAction, client: ProlificClient) -> str:
    """Set the bonus up (once) and send its pay call once; see the module."""
    cents = action.payload["cents"]
    bulk_id = action.payload.get("bulk_id")
    if not bulk_id:
        try:
            set_up = client.bonus_set_up(
                study_id=action.payload["study_id"],
                csv_bonuses=f"{action.reference},{cents / 100:.2f}\n",
            )
        except ProlificError as error:
            if error.refused:
                raise
            raise CallNotSent(f"the bonus could not be set up on Prolific ({error})") from error
        bulk_id = str(set_up["id"])
        action_progress(action=action, bulk_id=bulk_id)
    try:
        client.bonus_pay(bulk_id=bulk_id)
    except ProlificError as error:
        if error.refused or error.status == 429:
            raise CallNotSent(f"Prolific did not pay it ({error})") from error
        raise
    return f"Paid on Prolific (bulk bonus payment {bulk_id})."


def bonus_reconcile(*, action: ProviderAction, client: ProlificClient, now) -> str:
    """Whether Prolific's record of the submission lists this bonus: "done", "pending"
    (certainly not paid: send it again) or "unknown" (its payment may still land). Payments
    of the amount not yet counted for a paid bonus go to the oldest unknown ones first."""
    cents = action.payload["cents"]
    record = client.submission_get(submission_id=action.reference)
    listed = sum(1 for paid in record.get("bonus_payments") or [] if round(float(paid)) == cents)
    same = ProviderAction.objects.filter(
        provider=action.provider,
        kind=ProviderAction.Kind.BONUS,
        reference=action.reference,
        payload__cents=cents,
    )
    unaccounted = listed - same.filter(status=Status.DONE).count()
    unknown = list(
        same.filter(status=Status.UNKNOWN).order_by("sent_at", "pk").values_list("pk", flat=True)
    )
    if action.pk in unknown and unknown.index(action.pk) < unaccounted:
        return Status.DONE
    if action.sent_at < now - timedelta(seconds=settings.PROLIFIC_BONUS_SETTLE_SECONDS):
        return Status.PENDING
    return Status.UNKNOWN
