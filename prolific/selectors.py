"""Reads for the admin: each study's session and submission counts, the account."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from prolific.client import ProlificClient, ProlificError
from prolific.models import ParticipantSession, Study


def studies_with_counts() -> QuerySet[Study]:
    sessions = "sessions"
    return Study.objects.select_related("batch").annotate(
        session_count=Count(sessions, distinct=True),
        unvouched_count=Count(sessions, filter=Q(sessions__submission__isnull=True), distinct=True),
        awaiting_count=Count(
            "submissions", filter=Q(submissions__status="AWAITING REVIEW"), distinct=True
        ),
        approved_count=Count(
            "submissions", filter=Q(submissions__status="APPROVED"), distinct=True
        ),
        returned_count=Count(
            "submissions",
            filter=Q(submissions__status__in=["RETURNED", "TIMED-OUT"]),
            distinct=True,
        ),
    )


def study_counts(*, study: Study) -> dict:
    row = studies_with_counts().get(pk=study.pk)
    return {
        "sessions": row.session_count,
        "unvouched": row.unvouched_count,
        "awaiting_review": row.awaiting_count,
        "approved": row.approved_count,
        "returned": row.returned_count,
        "finished": ParticipantSession.objects.filter(
            study=study, status=ParticipantSession.Status.FINISHED
        ).count(),
    }


def account_summary(*, client: ProlificClient | None = None) -> str:
    """One line about the Prolific account (GET /users/me/), or why it could not be read."""
    try:
        me = (client or ProlificClient()).me()
    except ProlificError as error:
        return f"Prolific account not reachable: {error}"
    balance = me.get("available_balance", me.get("balance", 0)) or 0
    currency = me.get("currency_code", "")
    name = me.get("name") or me.get("email") or me.get("id", "")
    return f"Prolific account {name}: balance {balance / 100:.2f} {currency}".strip()
