"""The pre-flight check of a Prolific account and a study, and publishing gated on it.

Read-only calls confirm what a real account needs before it spends money: the token, the
workspace and its project (else the study bills another wallet), the balance against the
cost, the eligibility filters, how submissions reach Parable, the public URL as
participants reach it (a local one only in a `local_trial`) and the time limits; each
failure says what to set. While a `blocking` check fails (one that would lose money),
`study_publish_confirmed` refuses to publish. `manage.py prolific_check` shows them all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from common.health import deployment_id
from crowd.batches import batch_publish
from crowd.models import Batch
from crowd.money import money_text
from prolific.addresses import local_url, unreachable_reason
from prolific.client import ProlificClient, ProlificError
from prolific.models import Study
from prolific.selectors import polling as polling_state
from prolific.studies import (
    FILTERS,
    study_cost,
    study_draft_create,
    study_maximum_minutes,
    study_quote,
)
from prolific.submissions import EVENTS
from prolific.timing import maximum_allowed_floor

# How long the public URL may take to answer the check.
URL_TIMEOUT_SECONDS = 5.0


@dataclass(frozen=True)
class Check:
    """One check: `ok`, and what was found or, when it fails, what to set."""

    name: str
    ok: bool
    detail: str
    blocking: bool = True  # a failure would lose money: publishing is refused


class Failed(Exception):
    """A check failed; the message says what was found and what to set."""


def _checked(name: str, check, *args, blocking: bool = True) -> Check:
    """The Check of `check(*args)`: what it found, or what it raised as Failed."""
    try:
        return Check(name, True, check(*args), blocking)
    except Failed as failed:
        return Check(name, False, str(failed), blocking)


@dataclass
class _Found:
    """What the earlier checks learnt, for the later ones."""

    reachable: bool = False
    workspace: dict | None = None


def _token(client: ProlificClient, found: _Found) -> str:
    if not settings.PROLIFIC_API_TOKEN:
        raise Failed(
            "Set PROLIFIC_API_TOKEN to an API token of the account (on Prolific: "
            "Settings › API token)."
        )
    try:
        me = client.me()
    except ProlificError as error:
        if error.status == 401:
            raise Failed(
                "Prolific refuses PROLIFIC_API_TOKEN (401): create a new API token on "
                "Prolific and set PROLIFIC_API_TOKEN to it."
            ) from error
        raise Failed(
            f"Prolific could not be asked at PROLIFIC_API_URL ({settings.PROLIFIC_API_URL}): "
            f"{error}"
        ) from error
    found.reachable = True
    name = me.get("name") or me.get("email") or me.get("id", "")
    return f"Prolific accepts the token (researcher {name})."


def _workspace(client: ProlificClient, found: _Found) -> str:
    workspace_id = settings.PROLIFIC_WORKSPACE_ID
    if not workspace_id:
        raise Failed(
            "Set PROLIFIC_WORKSPACE_ID to the workspace whose funds pay for the studies (its "
            "id is in the workspace's address on app.prolific.com)."
        )
    if not found.reachable:
        raise Failed("Not checked: Prolific did not accept the token.")
    try:
        found.workspace = client.workspace_get(workspace_id=workspace_id)
    except ProlificError as error:
        raise Failed(
            f"PROLIFIC_WORKSPACE_ID={workspace_id} names no workspace this token can use "
            f"({error}): set it to one of the account's workspaces."
        ) from error
    return f"Workspace “{found.workspace.get('title', '')}” ({workspace_id})."


def _project(client: ProlificClient, found: _Found) -> str:
    workspace_id, project_id = settings.PROLIFIC_WORKSPACE_ID, settings.PROLIFIC_PROJECT_ID
    if not project_id:
        raise Failed(
            "Set PROLIFIC_PROJECT_ID to a project of the workspace: a study created without "
            "a project bills the researcher's personal balance, not the workspace's."
        )
    if found.workspace is None:
        raise Failed("Not checked: the workspace is not confirmed.")
    try:
        project = client.project_get(project_id=project_id)
    except ProlificError as error:
        raise Failed(
            f"PROLIFIC_PROJECT_ID={project_id} names no project this token can use ({error}): "
            f"set it to a project of workspace {workspace_id}."
        ) from error
    if project.get("workspace") != workspace_id:
        raise Failed(
            f"PROLIFIC_PROJECT_ID={project_id} is a project of workspace "
            f"{project.get('workspace')}, not of PROLIFIC_WORKSPACE_ID={workspace_id}: set "
            "PROLIFIC_PROJECT_ID to a project of that workspace, or PROLIFIC_WORKSPACE_ID to "
            "the project's."
        )
    return f"Project “{project.get('title', '')}”, in the workspace."


def _balance(client: ProlificClient, found: _Found, study: Study | None) -> str:
    """The workspace's balance against the study's cost, or without a study against the
    cost of every study not published yet (Prolific's totals, with fees and VAT)."""
    if found.workspace is None:
        raise Failed("Not checked: the workspace is not confirmed.")
    waiting = Study.objects.filter(batch__status=Batch.Status.DRAFT, status__in=("", "UNPUBLISHED"))
    studies = [study] if study else list(waiting.select_related("batch").order_by("id"))
    try:
        balance = client.workspace_balance(workspace_id=settings.PROLIFIC_WORKSPACE_ID)
        cost = sum(study_quote(study=each, client=client)["total_cost"] for each in studies)
    except ProlificError as error:
        raise Failed(f"Prolific did not give the balance or the cost: {error}") from error
    currency, available = balance.get("currency_code") or "", balance.get("available_balance")
    if available is None:
        raise Failed("Prolific gave no available balance for the workspace.")
    held = f"{money_text(available, currency)} available in the workspace"
    if not studies:
        return f"{held}; no study waits to be published."
    names = ", ".join(f"“{each.batch.name}”" for each in studies)
    costs = "this study costs" if study else f"the {len(studies)} study(ies) not published yet"
    costs += f"{'' if study else f' ({names}) cost'} {money_text(cost, currency)}"
    if available < cost:
        short = money_text(math.ceil(cost - available), currency)
        raise Failed(
            f"{held}, and {costs} (Prolific's total, with fees and VAT): short by {short}. "
            f"Add at least {short} to the workspace on Prolific, or lower the places or the "
            "reward."
        )
    return f"{held}; {costs}."


def _study_filters(study: Study) -> list[tuple[str, str, list]]:
    """(what, Prolific's filter id, values chosen) of each filter the study uses."""
    used = [
        (title, study.filter_ids.get(name, filter_id), getattr(study, name))
        for name, (filter_id, title) in FILTERS.items()
        if getattr(study, name)
    ]
    if study.min_approval_rate is not None:
        used.append(("Approval rate", "approval_rate", []))
    return used


def _filters(client: ProlificClient, found: _Found, study: Study) -> str:
    used = _study_filters(study)
    if not used:
        return "The study uses no eligibility filter."
    if not found.reachable:
        raise Failed("Not checked: Prolific did not accept the token.")
    try:
        live = {str(entry.get("filter_id")): entry for entry in client.filters()}
    except ProlificError as error:
        raise Failed(f"Prolific did not list its filters: {error}") from error
    problems = []
    for what, filter_id, values in used:
        entry = live.get(filter_id)
        if entry is None:
            problems.append(f"“{what}” uses filter {filter_id}, which Prolific no longer lists")
            continue
        offered = {str(key) for key in (entry.get("choices") or {})}
        gone = [value for value in values if str(value) not in offered]
        if gone:
            problems.append(f"“{what}” chooses {', '.join(map(str, gone))}, no longer offered")
    if problems:
        raise Failed(
            "; ".join(problems) + ": prepare the batch again (Prolific › Studies › Add) to "
            "choose from the filters the account has now."
        )
    ids = ", ".join(filter_id for _, filter_id, _ in used)
    return f"Each filter the study uses is on Prolific's list ({ids})."


def _webhooks(client: ProlificClient, found: _Found) -> str:
    """'' when webhooks are set up for every event with the workspace's secret; else why not."""
    target = settings.PARABLE_PUBLIC_URL.rstrip("/") + reverse("prolific:webhook")
    if not settings.PROLIFIC_WEBHOOK_SECRET:
        return "PROLIFIC_WEBHOOK_SECRET is not set, so webhook deliveries are refused"
    if found.workspace is None:
        return "webhooks not checked without a confirmed workspace"
    workspace_id = settings.PROLIFIC_WORKSPACE_ID
    try:
        secrets = client.hook_secrets(workspace_id=workspace_id)
        hooks = client.hook_subscriptions(workspace_id=workspace_id)
    except ProlificError as error:
        return f"Prolific did not list the workspace's hooks: {error}"
    if settings.PROLIFIC_WEBHOOK_SECRET not in {entry.get("value") for entry in secrets}:
        return (
            "PROLIFIC_WEBHOOK_SECRET is not the workspace's hook secret: create one "
            "(POST /api/v1/hooks/secrets/ with the workspace id) and set it"
        )
    missing = [
        event
        for event in EVENTS
        if not any(
            hook.get("is_enabled")
            and hook.get("event_type") == event
            and hook.get("target_url") == target
            for hook in hooks
        )
    ]
    if missing:
        return (
            f"no enabled subscription sends {', '.join(missing)} to {target}: run "
            "manage.py prolific_subscribe"
        )
    return ""


def _delivery(client: ProlificClient, found: _Found) -> str:
    problem = _webhooks(client, found)
    polled, polling = polling_state()
    if not problem:
        return f"Webhooks for {', '.join(EVENTS)}, signed with the workspace's secret; {polling}."
    if polled:
        return f"No webhooks ({problem}); {polling}."
    raise Failed(
        f"No webhooks ({problem}); and {polling}. Subscribe (a public https "
        "PARABLE_PUBLIC_URL, then manage.py prolific_subscribe) or run Celery beat."
    )


def local_trial() -> bool:
    """PROLIFIC_LOCAL_TRIAL, honoured only while PROLIFIC_API_URL is not Prolific's: on
    this machine or the lab's network (the stand-in), where no real token is of use."""
    return settings.PROLIFIC_LOCAL_TRIAL and local_url(settings.PROLIFIC_API_URL)


def public_url_reached() -> str:
    """Participants reach PARABLE_PUBLIC_URL: its addresses are public, it is https, and its
    /healthz, asked at that public address (from outside the loopback interface), answers as
    this deployment; under `local_trial` a local address is taken, answering the same."""
    public, trial = settings.PARABLE_PUBLIC_URL.rstrip("/"), local_trial()
    fix = "Set PARABLE_PUBLIC_URL to the https address participants reach Parable at"
    if settings.PROLIFIC_LOCAL_TRIAL and not trial:
        fix += " (PROLIFIC_LOCAL_TRIAL holds only beside the stand-in, never Prolific's API)"
    if not public:
        raise Failed(f"PARABLE_PUBLIC_URL is not set. {fix}.")
    unreachable = unreachable_reason(public)
    if unreachable and not trial:
        raise Failed(
            f"PARABLE_PUBLIC_URL is {public}, which {unreachable}: participants cannot reach "
            f"it, so each one who starts the study fails while it spends. {fix}."
        )
    if urlsplit(public).scheme != "https" and not trial:
        raise Failed(
            f"PARABLE_PUBLIC_URL is {public}: Prolific sends webhooks only to https:// "
            f"addresses, and participants' session cookies travel only over https in "
            f"production. {fix}."
        )
    import requests  # as the Prolific client does: only when a check is run

    try:
        answer = requests.get(f"{public}/healthz", timeout=URL_TIMEOUT_SECONDS)
    except requests.RequestException as error:
        raise Failed(
            f"{public}/healthz could not be reached ({error.__class__.__name__}): start "
            f"Parable there, or correct the address. {fix}."
        ) from error
    try:
        said = answer.json().get("deployment")
    except (ValueError, AttributeError):  # not JSON, or not an object
        said = None
    if said != deployment_id():
        raise Failed(
            f"{public}/healthz answered {answer.status_code}, not as this deployment of "
            f"Parable: participants would not reach this Parable. {fix}."
        )
    if answer.status_code != 200:
        raise Failed(
            f"{public}/healthz answered {answer.status_code} as this deployment, unwell "
            f"({answer.text[:200]}): fix what it names before participants arrive."
        )
    return f"{public} answers as this deployment{' (a local trial)' if unreachable else ''}."


def _time_limits(study: Study) -> str:
    floor = maximum_allowed_floor(study.estimated_minutes)
    allowed = study_maximum_minutes(study=study)
    reserved = study.batch.time_allowed_seconds / 60
    said = (
        f"Estimated {study.estimated_minutes} min; Prolific lets a participant work "
        f"{allowed} min (its floor for the estimate is {floor} min); Parable reserves their "
        f"items for {reserved:g} min"
    )
    if reserved < allowed:
        raise Failed(
            f"{said}: set the batch's time allowed to at least {allowed} min (Crowd work › "
            "Batches), or a participant still working loses their items to someone else "
            "while Prolific pays them."
        )
    return f"{said}."


def preflight(
    *, study: Study | None = None, client: ProlificClient | None = None, blocking_only=False
) -> list[Check]:
    """Every check, in order (those of a study when one is given); with `blocking_only`,
    those that decide whether publishing is allowed."""
    client = client or ProlificClient()
    found = _Found()
    checks = [
        _checked("Token", _token, client, found),
        _checked("Workspace", _workspace, client, found),
        _checked("Project", _project, client, found),
        _checked("Balance", _balance, client, found, study),
    ]
    if study is not None:
        checks.append(_checked("Filters", _filters, client, found, study))
        checks.append(_checked("Time limits", _time_limits, study))
    checks.append(_checked("Public URL", public_url_reached))
    if not blocking_only:
        checks.append(
            _checked("Submissions reach Parable", _delivery, client, found, blocking=False)
        )
    return checks


def preflight_refusal(*, study: Study, client: ProlificClient | None = None) -> str:
    """Why the study may not be published yet ("" when it may): the failed blocking checks."""
    checks = preflight(study=study, client=client, blocking_only=True)
    failed = [check for check in checks if check.blocking and not check.ok]
    if not failed:
        return ""
    return "Publishing is refused until this is fixed: " + " ".join(
        f"{check.name}: {check.detail}" for check in failed
    )


def study_publish_confirmed(
    *, study: Study, cost_cents: int, client: ProlificClient | None = None
) -> Batch:
    """The researcher saw `cost_cents` and confirmed: refused while a blocking check fails;
    else `study_publish_at_cost`."""
    client = client or ProlificClient()
    refusal = preflight_refusal(study=study, client=client)
    if refusal:
        raise ProlificError(refusal)
    return study_publish_at_cost(study=study, cost_cents=cost_cents, client=client)


def study_publish_at_cost(*, study: Study, cost_cents: int, client: ProlificClient) -> Batch:
    """Unless Prolific now quotes another cost, create the draft on Prolific (committed on
    its own: a failed publish is retried on it) and publish; `study_publish_confirmed`
    runs the pre-flight first."""
    quoted = study_cost(study=study, client=client)["total_cost"]
    if round(quoted) != cost_cents:
        raise ValueError(
            f"Prolific now quotes {round(quoted)} cents, not the {cost_cents} you confirmed: "
            "check the new cost and confirm again."
        )
    Study.objects.filter(pk=study.pk).update(cost_confirmed_at=timezone.now())
    study_draft_create(study=study, client=client)
    return batch_publish(batch=study.batch)
