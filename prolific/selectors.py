"""Reads for the admin: each study's session and submission counts, the account."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from prolific.client import ProlificClient, ProlificError
from prolific.models import ParticipantSession, Study, WebhookEvent, WebhookRefusal


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


# The studies list shows the balance: one try, briefly, so that a slow Prolific never holds
# the page (the line then says the account was not reachable).
ACCOUNT_TIMEOUT_SECONDS = 3.0


def account_summary(*, client: ProlificClient | None = None) -> str:
    """One line about the Prolific account (GET /users/me/), or why it could not be read:
    one attempt of at most ACCOUNT_TIMEOUT_SECONDS."""
    try:
        me = (client or ProlificClient(timeout=ACCOUNT_TIMEOUT_SECONDS, retries=0)).me()
    except ProlificError as error:
        return f"Prolific account not reachable: {error}"
    balance = me.get("available_balance", me.get("balance", 0)) or 0
    currency = me.get("currency_code", "")
    name = me.get("name") or me.get("email") or me.get("id", "")
    return f"Prolific account {name}: balance {balance / 100:.2f} {currency}".strip()


def study_rates(*, study: Study, client: ProlificClient | None = None) -> dict:
    """The hourly rate the study's reward and estimated time imply, in the account's
    currency, beside Prolific's minimum and recommended rates (when PROLIFIC_WORKSPACE_ID
    lets Parable ask for them)."""
    client = client or ProlificClient()
    currency = client.me().get("currency_code") or ""
    reward = study.batch.reward_cents * study.items_per_session
    rates = {
        "currency": currency,
        "reward": reward / 100,
        "hourly": reward * 60 / study.estimated_minutes / 100,
        "minimum": None,
        "recommended": None,
    }
    if settings.PROLIFIC_WORKSPACE_ID and currency:
        found = client.reward_recommendations(
            workspace_id=settings.PROLIFIC_WORKSPACE_ID, currency=currency
        )
        if found:
            rates["minimum"] = found[0]["min_reward_per_hour"] / 100
            rates["recommended"] = found[0]["recommended_reward_per_hour"] / 100
    rates["below_minimum"] = rates["minimum"] is not None and rates["hourly"] < rates["minimum"]
    return rates


def webhook_silence(*, now=None) -> str:
    """A warning when studies run, webhooks are set up, and no verified delivery has come
    for PROLIFIC_WEBHOOK_SILENCE_HOURS: Prolific disables a subscription whose deliveries
    keep failing, and polling alone is slower. "" when all is well."""
    if not settings.PROLIFIC_WEBHOOK_SECRET:
        return ""
    if not Study.objects.filter(status="ACTIVE").exists():
        return ""
    now = now or timezone.now()
    hours = settings.PROLIFIC_WEBHOOK_SILENCE_HOURS
    last = WebhookEvent.objects.order_by("-received_at").values_list("received_at", flat=True)
    last = last.first()
    if last is not None and last > now - timedelta(hours=hours):
        return ""
    refused = WebhookRefusal.objects.filter(received_at__gt=now - timedelta(hours=hours)).count()
    since = f"since {last:%Y-%m-%d %H:%M} UTC" if last else "ever"
    return (
        f"No verified webhook delivery from Prolific {since} while studies are active "
        f"({refused} refused in the last {hours} h: see Webhook refusals). Prolific disables "
        "failing subscriptions after some days: check PARABLE_PUBLIC_URL and the secret, "
        "and run manage.py prolific_subscribe again. Polling keeps studies in sync meanwhile."
    )
