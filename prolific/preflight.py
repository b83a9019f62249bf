"""The pre-flight check of a Prolific account and a study, and publishing gated on it.

Read-only calls confirm what a real account needs before it spends money: the token,
the workspace and its project (the project must be in the workspace, or the study bills
another wallet), the workspace's balance against the study's cost, each eligibility
filter still on Prolific's list, how submissions reach Parable (webhooks with the
workspace's secret, or polling), the public URL as participants reach it, and the time
limits. Each failure says what to set. The checks whose failure would lose money are
`blocking`: `study_publish_confirmed` refuses to publish while one fails.
`manage.py prolific_check` and the study's page before *Publish* show them all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from crowd.batches import batch_publish
from crowd.models import Batch
from prolific.addresses import loopback_url
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


@dataclass
class _Found:
    """What the earlier checks learnt, for the later ones."""

    reachable: bool = False
    workspace: dict | None = None


def _money(cents: float, currency: str) -> str:
    return f"{cents / 100:.2f} {currency}".strip()


def _token(client: ProlificClient, found: _Found) -> Check:
    if not settings.PROLIFIC_API_TOKEN:
        return Check(
            "Token",
            False,
            "Set PROLIFIC_API_TOKEN to an API token of the account (on Prolific: "
            "Settings › API token).",
        )
    try:
        me = client.me()
    except ProlificError as error:
        if error.status == 401:
            return Check(
                "Token",
                False,
                "Prolific refuses PROLIFIC_API_TOKEN (401): create a new API token on "
                "Prolific and set PROLIFIC_API_TOKEN to it.",
            )
        return Check(
            "Token",
            False,
            f"Prolific could not be asked at PROLIFIC_API_URL ({settings.PROLIFIC_API_URL}): "
            f"{error}",
        )
    found.reachable = True
    name = me.get("name") or me.get("email") or me.get("id", "")
    return Check("Token", True, f"Prolific accepts the token (researcher {name}).")


def _workspace(client: ProlificClient, found: _Found) -> Check:
    workspace_id = settings.PROLIFIC_WORKSPACE_ID
    if not workspace_id:
        return Check(
            "Workspace",
            False,
            "Set PROLIFIC_WORKSPACE_ID to the workspace whose funds pay for the studies (its "
            "id is in the workspace's address on app.prolific.com).",
        )
    if not found.reachable:
        return Check("Workspace", False, "Not checked: Prolific did not accept the token.")
    try:
        workspace = client.workspace_get(workspace_id=workspace_id)
    except ProlificError as error:
        return Check(
            "Workspace",
            False,
            f"PROLIFIC_WORKSPACE_ID={workspace_id} names no workspace this token can use "
            f"({error}): set it to one of the account's workspaces.",
        )
    found.workspace = workspace
    return Check("Workspace", True, f"Workspace “{workspace.get('title', '')}” ({workspace_id}).")


def _project(client: ProlificClient, found: _Found) -> Check:
    workspace_id, project_id = settings.PROLIFIC_WORKSPACE_ID, settings.PROLIFIC_PROJECT_ID
    if not project_id:
        return Check(
            "Project",
            False,
            "Set PROLIFIC_PROJECT_ID to a project of the workspace: a study created without "
            "a project bills the researcher's personal balance, not the workspace's.",
        )
    if found.workspace is None:
        return Check("Project", False, "Not checked: the workspace is not confirmed.")
    try:
        project = client.project_get(project_id=project_id)
    except ProlificError as error:
        return Check(
            "Project",
            False,
            f"PROLIFIC_PROJECT_ID={project_id} names no project this token can use ({error}): "
            f"set it to a project of workspace {workspace_id}.",
        )
    if project.get("workspace") != workspace_id:
        return Check(
            "Project",
            False,
            f"PROLIFIC_PROJECT_ID={project_id} is a project of workspace "
            f"{project.get('workspace')}, not of PROLIFIC_WORKSPACE_ID={workspace_id}: set "
            "PROLIFIC_PROJECT_ID to a project of that workspace, or PROLIFIC_WORKSPACE_ID to "
            "the project's.",
        )
    return Check("Project", True, f"Project “{project.get('title', '')}”, in the workspace.")


def _balance(client: ProlificClient, found: _Found, study: Study | None) -> Check:
    if found.workspace is None:
        return Check("Balance", False, "Not checked: the workspace is not confirmed.")
    try:
        balance = client.workspace_balance(workspace_id=settings.PROLIFIC_WORKSPACE_ID)
        cost = study_quote(study=study, client=client)["total_cost"] if study else None
    except ProlificError as error:
        return Check("Balance", False, f"Prolific did not give the balance or the cost: {error}")
    currency = balance.get("currency_code") or ""
    available = balance.get("available_balance")
    if available is None:
        return Check("Balance", False, "Prolific gave no available balance for the workspace.")
    held = f"{_money(available, currency)} available in the workspace"
    if cost is None:
        return Check("Balance", True, f"{held}.")
    if available < cost:
        return Check(
            "Balance",
            False,
            f"{held}, and this study costs {_money(cost, currency)} (Prolific's total, with "
            f"fees and VAT): add at least {_money(math.ceil(cost - available), currency)} to "
            "the workspace on Prolific, or lower the places or the reward.",
        )
    return Check("Balance", True, f"{held}; this study costs {_money(cost, currency)}.")


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


def _filters(client: ProlificClient, found: _Found, study: Study) -> Check:
    used = _study_filters(study)
    if not used:
        return Check("Filters", True, "The study uses no eligibility filter.")
    if not found.reachable:
        return Check("Filters", False, "Not checked: Prolific did not accept the token.")
    try:
        live = {str(entry.get("filter_id")): entry for entry in client.filters()}
    except ProlificError as error:
        return Check("Filters", False, f"Prolific did not list its filters: {error}")
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
        return Check(
            "Filters",
            False,
            "; ".join(problems) + ": prepare the batch again (Prolific › Studies › Add) to "
            "choose from the filters the account has now.",
        )
    ids = ", ".join(filter_id for _, filter_id, _ in used)
    return Check("Filters", True, f"Each filter the study uses is on Prolific's list ({ids}).")


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


def _delivery(client: ProlificClient, found: _Found) -> Check:
    problem = _webhooks(client, found)
    polled, polling = polling_state()
    name = "Submissions reach Parable"
    if not problem:
        return Check(
            name,
            True,
            f"Webhooks for {', '.join(EVENTS)}, signed with the workspace's secret; {polling}.",
            blocking=False,
        )
    if polled:
        return Check(name, True, f"No webhooks ({problem}); {polling}.", blocking=False)
    return Check(
        name,
        False,
        f"No webhooks ({problem}); and {polling}. Subscribe (a public https "
        "PARABLE_PUBLIC_URL, then manage.py prolific_subscribe) or run Celery beat.",
        blocking=False,
    )


def _public_url() -> Check:
    """The entry page at PARABLE_PUBLIC_URL answers as Parable's (asked from this server:
    the nearest Parable can come to a participant's browser). It must be https, as Prolific
    requires of webhook targets and production's secure cookies require of participants;
    a loopback address is taken for trials with the stand-in."""
    name, entry = "Public URL", settings.PARABLE_PUBLIC_URL.rstrip("/") + reverse("prolific:enter")
    if urlsplit(entry).scheme != "https" and not loopback_url(entry):
        return Check(
            name,
            False,
            f"PARABLE_PUBLIC_URL is {settings.PARABLE_PUBLIC_URL}: Prolific sends webhooks only "
            "to https:// addresses, and participants' session cookies travel only over https "
            "in production. Set PARABLE_PUBLIC_URL to the https address participants reach.",
            blocking=False,
        )
    import requests  # as the Prolific client does: only when a check is run

    try:
        answer = requests.get(entry, timeout=URL_TIMEOUT_SECONDS)
    except requests.RequestException as error:
        return Check(
            name,
            False,
            f"{entry} could not be reached ({error.__class__.__name__}): set PARABLE_PUBLIC_URL "
            "to the address participants reach, and check that the site is up there.",
            blocking=False,
        )
    if answer.status_code != 400 or "This link is missing Prolific" not in answer.text:
        return Check(
            name,
            False,
            f"{entry} answered {answer.status_code}, not with Parable's entry page: "
            "PARABLE_PUBLIC_URL points somewhere else.",
            blocking=False,
        )
    return Check(name, True, f"{entry} answers as Parable's entry page.", blocking=False)


def _time_limits(study: Study) -> Check:
    floor = maximum_allowed_floor(study.estimated_minutes)
    allowed = study_maximum_minutes(study=study)
    reserved = study.batch.time_allowed_seconds / 60
    said = (
        f"Estimated {study.estimated_minutes} min; Prolific lets a participant work "
        f"{allowed} min (its floor for the estimate is {floor} min); Parable reserves their "
        f"items for {reserved:g} min"
    )
    if reserved < allowed:
        return Check(
            "Time limits",
            False,
            f"{said}: set the batch's time allowed to at least {allowed} min (Crowd work › "
            "Batches), or a participant still working loses their items to someone else "
            "while Prolific pays them.",
        )
    return Check("Time limits", True, f"{said}.")


def preflight(
    *, study: Study | None = None, client: ProlificClient | None = None, blocking_only=False
) -> list[Check]:
    """Every check, in order (those of a study when one is given); with `blocking_only`,
    those that decide whether publishing is allowed (no call to the public URL)."""
    client = client or ProlificClient()
    found = _Found()
    checks = [
        _token(client, found),
        _workspace(client, found),
        _project(client, found),
        _balance(client, found, study),
    ]
    if study is not None:
        checks.append(_filters(client, found, study))
        checks.append(_time_limits(study))
    if not blocking_only:
        checks += [_delivery(client, found), _public_url()]
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
    else create the draft on Prolific (committed on its own, so a failed publish is retried
    on it), then publish the batch."""
    client = client or ProlificClient()
    refusal = preflight_refusal(study=study, client=client)
    if refusal:
        raise ProlificError(refusal)
    quoted = study_cost(study=study, client=client)["total_cost"]
    if round(quoted) != cost_cents:
        raise ValueError(
            f"Prolific now quotes {round(quoted)} cents, not the {cost_cents} you confirmed: "
            "check the new cost and confirm again."
        )
    Study.objects.filter(pk=study.pk).update(cost_confirmed_at=timezone.now())
    study_draft_create(study=study, client=client)
    return batch_publish(batch=study.batch)
