"""Reads for the admin: each study's session and submission counts, the workspace's balance,
and how studies are kept in sync."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from prolific.client import ProlificClient, ProlificError
from prolific.models import REVIEWABLE, ParticipantSession, Study, WebhookEvent, WebhookRefusal


def studies_with_counts() -> QuerySet[Study]:
    return Study.objects.select_related("batch").annotate(
        session_count=Count("sessions", distinct=True),
        unvouched_count=Count(
            "sessions", filter=Q(sessions__submission__isnull=True), distinct=True
        ),
        awaiting_count=_submissions(REVIEWABLE),
        approved_count=_submissions("APPROVED"),
        returned_count=_submissions("RETURNED", "TIMED-OUT"),
    )


def _submissions(*statuses: str) -> Count:
    return Count("submissions", filter=Q(submissions__status__in=statuses), distinct=True)


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
    """One line about the workspace whose funds pay for studies (GET
    /workspaces/{id}/balance/; the researcher's personal balance is not what studies in it
    spend), or why it could not be read: one attempt of at most ACCOUNT_TIMEOUT_SECONDS."""
    workspace_id = settings.PROLIFIC_WORKSPACE_ID
    if not workspace_id:
        return "Set PROLIFIC_WORKSPACE_ID: studies are paid from that workspace's balance."
    client = client or ProlificClient(timeout=ACCOUNT_TIMEOUT_SECONDS, retries=0)
    try:
        balance = client.workspace_balance(workspace_id=workspace_id)
    except ProlificError as error:
        return f"Prolific workspace {workspace_id} not reachable: {error}"
    available = balance.get("available_balance")
    currency = balance.get("currency_code") or ""
    shown = "unknown" if available is None else f"{available / 100:.2f} {currency}".strip()
    return f"Prolific workspace {workspace_id}: {shown} available to spend"


def workspace_currency(*, client: ProlificClient) -> str:
    """The currency of PROLIFIC_WORKSPACE_ID's wallet ("" without a workspace)."""
    if not settings.PROLIFIC_WORKSPACE_ID:
        return ""
    balance = client.workspace_balance(workspace_id=settings.PROLIFIC_WORKSPACE_ID)
    return balance.get("currency_code") or ""


def study_rates(*, study: Study, client: ProlificClient | None = None) -> dict:
    """The hourly rate the study's reward and estimated time imply, in the account's
    currency, beside Prolific's minimum and recommended rates (when PROLIFIC_WORKSPACE_ID
    lets Parable ask for them)."""
    client = client or ProlificClient()
    currency = workspace_currency(client=client)
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


def polling() -> tuple[bool, str]:
    """Whether Celery beat polls Prolific here, and a sentence that says so, or says what
    will bring submissions in instead. Under the embedded default there is no broker and
    so no beat: nothing polls."""
    if not settings.CELERY_BROKER_URL:
        return False, (
            "nothing polls Prolific here (no CELERY_BROKER_URL, so no Celery beat, as under "
            "the embedded default): submissions arrive by webhook when subscribed, and "
            "otherwise only when someone presses Sync from Prolific on a study's page"
        )
    every = settings.PROLIFIC_SYNC_SECONDS
    late = timezone.now() - timedelta(seconds=3 * every)
    stale = (
        Study.objects.filter(status__in=["PUBLISHING", "ACTIVE", "PAUSED"])
        .exclude(study_id="")
        .filter(created_at__lt=late)
        .exclude(synced_at__gt=late)
        .select_related("batch")
        .first()
    )
    if stale is not None:
        synced = f"{stale.synced_at:%Y-%m-%d %H:%M} UTC" if stale.synced_at else "never"
        return False, (
            f"Celery beat should poll Prolific every {every} s, but “{stale.batch.name}” was "
            f"last synced {synced}: start Celery beat"
        )
    return True, f"Celery beat polls every study on Prolific every {every} s"


def webhook_silence(*, now=None) -> str:
    """A warning when studies run, webhooks are set up, and no verified delivery has come
    for PROLIFIC_WEBHOOK_SILENCE_HOURS: Prolific disables a subscription whose deliveries
    keep failing. "" when all is well."""
    if not settings.PROLIFIC_WEBHOOK_SECRET:
        return ""
    if not Study.objects.filter(status__in=["PUBLISHING", "ACTIVE"]).exists():
        return ""
    now = now or timezone.now()
    hours = settings.PROLIFIC_WEBHOOK_SILENCE_HOURS
    last = WebhookEvent.objects.order_by("-received_at").values_list("received_at", flat=True)
    last = last.first()
    if last is not None and last > now - timedelta(hours=hours):
        return ""
    refused = WebhookRefusal.objects.filter(received_at__gt=now - timedelta(hours=hours)).count()
    since = f"since {last:%Y-%m-%d %H:%M} UTC" if last else "ever"
    _, polled = polling()
    return (
        f"No verified webhook delivery from Prolific {since} while studies are active "
        f"({refused} refused in the last {hours} h: see Webhook refusals). Prolific disables "
        "failing subscriptions after some days: check PARABLE_PUBLIC_URL and the secret, "
        f"and run manage.py prolific_subscribe again. Meanwhile {polled}."
    )
