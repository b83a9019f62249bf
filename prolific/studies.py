"""Study services: prepare a batch as a study, price, publish, pause/resume, add places.
A study is created in PROLIFIC_PROJECT_ID, so that it spends PROLIFIC_WORKSPACE_ID's funds
(without a project it bills the researcher's personal balance). A study Prolific paused on
its own (`Study.paused_on_prolific`) is resumed by adding places, and stopped by closing.
"""

from __future__ import annotations

import math
import secrets

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from crowd.models import Batch, Provider, Worker
from prolific.client import ProlificClient, ProlificError
from prolific.models import Study
from prolific.selectors import workspace_currency
from prolific.timing import maximum_allowed_floor

ENTRY_QUERY = "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
# Eligibility filters by what they are: Prolific's filter id, or its title when the id
# differs (ids are Prolific's to change; GET /filters/ lists what the account has).
FILTERS = {
    "countries": ("current-country-of-residence", "Current country of residence"),
    "first_languages": ("first-language", "First language"),
}


def filter_find(filters: list[dict], *, filter_id: str, title: str) -> dict | None:
    """The select filter that is `filter_id`, or failing that is titled `title`."""
    for entry in filters:
        if entry.get("filter_id") == filter_id:
            return entry
    for entry in filters:
        if str(entry.get("title", "")).strip().lower() == title.lower():
            return entry
    return None


TRANSITIONS = {"pause": ("PAUSE", "PAUSED"), "resume": ("START", "ACTIVE"), "stop": ("STOP", "")}
# Prolific's study statuses from which STOP ends recruiting (PUBLISHING is transient).
RECRUITING = {"PUBLISHING", "SCHEDULED", "ACTIVE", "PAUSED"}
STOPPED = {"AWAITING REVIEW", "COMPLETED"}


@transaction.atomic
def study_prepare(
    *,
    batch: Batch,
    items_per_session: int = 3,
    estimated_minutes: int = 10,
    description: str = "",
    countries: list[str] | None = None,
    first_languages: list[str] | None = None,
    min_approval_rate: int | None = None,
    device_compatibility: list[str] | None = None,
    filter_ids: dict[str, str] | None = None,
) -> Study:
    """Make a draft batch a Prolific study (not yet on Prolific): settings, places, code."""
    batch = Batch.objects.select_for_update().get(pk=batch.pk)
    if batch.status != Batch.Status.DRAFT:
        raise ValueError("Only a draft batch can be made a Prolific study.")
    if items_per_session < 1:
        raise ValueError("A session holds at least one item.")
    if estimated_minutes < 1:
        raise ValueError("The estimated completion time is at least one minute.")
    if min_approval_rate is not None and not 0 <= min_approval_rate <= 100:
        raise ValueError("The approval rate is a percentage from 0 to 100.")
    batch.provider = Provider.PROLIFIC
    # Parable's reservations last at least as long as Prolific lets a participant work.
    batch.time_allowed_seconds = max(
        batch.time_allowed_seconds, 60 * maximum_allowed_floor(estimated_minutes)
    )
    batch.save(update_fields=["provider", "time_allowed_seconds"])
    study, _ = Study.objects.update_or_create(
        batch=batch,
        defaults={
            "items_per_session": items_per_session,
            "estimated_minutes": estimated_minutes,
            "description": description.strip(),
            "countries": countries or [],
            "first_languages": first_languages or [],
            "min_approval_rate": min_approval_rate,
            "device_compatibility": device_compatibility or ["desktop"],
            "filter_ids": filter_ids or {},
        },
    )
    if not study.completion_code:
        study.completion_code = secrets.token_hex(4).upper()
    study.total_available_places = study_places(study=study)
    study.save(update_fields=["completion_code", "total_available_places"])
    return study


def study_places(*, study: Study) -> int:
    """Places that fill every item's target when each session holds `items_per_session`."""
    slots = study.batch.items.filter(is_gold=False).count() * study.batch.target_per_item
    return max(1, math.ceil(slots / study.items_per_session))


def study_reward_cents(*, study: Study) -> int:
    """What one session pays: the batch's reward per item times the items a session holds."""
    return study.batch.reward_cents * study.items_per_session


def study_maximum_minutes(*, study: Study) -> int:
    """The maximum allowed time Prolific gets: the batch's time allowed, raised to Prolific's
    floor for the estimate."""
    floor = maximum_allowed_floor(study.estimated_minutes)
    return max(math.ceil(study.batch.time_allowed_seconds / 60), floor)


def study_quote(*, study: Study, client: ProlificClient) -> dict:
    """Prolific's price for the study, read only: `total_cost` is Prolific's (rewards, fees and
    VAT: its calculator gives no breakdown), `rewards` places × reward ("the total reward you
    pay a participant": https://docs.prolific.com/api-reference/studies/the-study-object),
    `fees_and_vat` the rest."""
    places, reward = study_places(study=study), study_reward_cents(study=study)
    total = client.study_cost(reward=reward, total_available_places=places)["total_cost"]
    return {
        "total_cost": total,
        "rewards": reward * places,
        "fees_and_vat": total - reward * places,
        "total_available_places": places,
        "reward": reward,
    }


def study_cost(*, study: Study, client: ProlificClient | None = None) -> dict:
    """Prolific's price for the study (`study_quote`), stored with the workspace's currency."""
    client = client or ProlificClient()
    quote = study_quote(study=study, client=client)
    Study.objects.filter(pk=study.pk).update(
        cost_cents=round(quote["total_cost"]),
        total_available_places=quote["total_available_places"],
        currency=workspace_currency(client=client)[:3],
    )
    return quote


def study_fields(*, study: Study) -> dict:
    """The body of POST /studies/ for the study (a draft on Prolific), in PROLIFIC_PROJECT_ID."""
    if not settings.PROLIFIC_PROJECT_ID:
        raise ProlificError(
            "Set PROLIFIC_PROJECT_ID: a study created without a project bills the personal "
            "balance, not the workspace's."
        )
    batch = study.batch
    entry = settings.PARABLE_PUBLIC_URL.rstrip("/") + reverse("prolific:enter")
    filters = []
    for name, (filter_id, _) in FILTERS.items():
        if getattr(study, name):
            filters.append(
                {
                    "filter_id": study.filter_ids.get(name, filter_id),
                    "selected_values": getattr(study, name),
                }
            )
    if study.min_approval_rate is not None:
        filters.append(
            {
                "filter_id": "approval_rate",
                "selected_range": {"lower": study.min_approval_rate, "upper": 100},
            }
        )
    if study.blocklist_group_id:
        filters.append(
            {
                "filter_id": "participant_group_blocklist",
                "selected_values": [study.blocklist_group_id],
            }
        )
    return {
        "name": batch.name,
        "internal_name": f"parable-batch-{batch.pk}",
        "description": study.description or batch.instructions,
        "external_study_url": f"{entry}?{ENTRY_QUERY}",
        "prolific_id_option": "url_parameters",
        "completion_codes": [
            {
                "code": study.completion_code,
                "code_type": "COMPLETED",
                "actions": [{"action": "MANUALLY_REVIEW"}],
            }
        ],
        "total_available_places": study_places(study=study),
        "estimated_completion_time": study.estimated_minutes,
        "maximum_allowed_time": study_maximum_minutes(study=study),
        "reward": study_reward_cents(study=study),
        "device_compatibility": study.device_compatibility or ["desktop"],
        "submissions_config": {"max_submissions_per_participant": 1},
        "filters": filters,
        "project": settings.PROLIFIC_PROJECT_ID,
    }


def study_draft_create(*, study: Study, client: ProlificClient | None = None) -> Study:
    """Create the study on Prolific as a draft, once (committed before publishing, so a
    failed publish is retried on it). Prolific is called outside any transaction; the ids
    are written after, only where no other publish wrote one meanwhile (a draft made twice
    at once stays an unpublished draft on Prolific, which costs nothing)."""
    client = client or ProlificClient()
    study = Study.objects.select_related("batch").get(pk=study.pk)
    if study.study_id:
        return study
    if study_reward_cents(study=study) < 1:
        raise ProlificError("Set the batch's reward per item: Prolific studies pay participants.")
    if not study.blocklist_group_id:
        study.blocklist_group_id = blocklist_group(client=client)
        Study.objects.filter(pk=study.pk, blocklist_group_id="").update(
            blocklist_group_id=study.blocklist_group_id
        )
    created = client.study_create(fields=study_fields(study=study))
    with transaction.atomic():
        locked = Study.objects.select_for_update().select_related("batch").get(pk=study.pk)
        if locked.study_id:
            return locked
        locked.study_id = created["id"]
        locked.status = created.get("status", "UNPUBLISHED")
        locked.blocklist_group_id = locked.blocklist_group_id or study.blocklist_group_id
        locked.total_available_places = created["total_available_places"]
        locked.save(
            update_fields=["study_id", "status", "blocklist_group_id", "total_available_places"]
        )
    return locked


def study_publish(*, study: Study, client: ProlificClient | None = None) -> str:
    """Publish the study on Prolific (creating its draft first if needed); returns its id.
    Refused until a researcher has confirmed the study's cost."""
    client = client or ProlificClient()
    if Study.objects.filter(pk=study.pk, cost_confirmed_at__isnull=True).exists():
        raise ProlificError(
            "See the study's cost and confirm it first: Prolific › Studies › Cost and publish."
        )
    study = study_draft_create(study=study, client=client)
    if study.status in ("", "UNPUBLISHED"):
        published = client.study_transition(study_id=study.study_id, action="PUBLISH")
        study.status = published.get("status") or "PUBLISHING"
        study.save(update_fields=["status"])
    return study.study_id


def blocklist_group(*, client: ProlificClient) -> str:
    """The participant group that every study excludes: blocking a worker adds them to it."""
    existing = (
        Study.objects.exclude(blocklist_group_id="")
        .order_by("-id")
        .values_list("blocklist_group_id", flat=True)
        .first()
    )
    if existing:
        return existing
    if not settings.PROLIFIC_WORKSPACE_ID:
        raise ProlificError(
            "Set PROLIFIC_WORKSPACE_ID: Prolific makes the blocklist group in a workspace."
        )
    group = client.participant_group_create(
        name="Parable blocklist", workspace_id=settings.PROLIFIC_WORKSPACE_ID
    )
    blocked = list(
        Worker.objects.filter(provider=Provider.PROLIFIC, blocked=True).values_list(
            "external_id", flat=True
        )
    )
    if blocked:
        client.participant_group_add(group_id=group["id"], participant_ids=blocked)
    return group["id"]


def study_transition(*, study: Study, action: str, client: ProlificClient | None = None) -> Study:
    """Pause, resume or stop the study on Prolific (called outside any transaction; its
    answer is written after). A pause is recorded as Parable's before it is asked for, so
    that a study Prolific pauses on its own is told apart (`Study.paused_on_prolific`)."""
    if action not in TRANSITIONS:
        raise ValueError(f"Unknown study action {action!r}.")
    if not study.study_id:
        raise ValueError("The study is not on Prolific yet: publish its batch first.")
    client = client or ProlificClient()
    if action == "pause":
        Study.objects.filter(pk=study.pk).update(pause_requested_at=timezone.now())
    answer = client.study_transition(study_id=study.study_id, action=TRANSITIONS[action][0])
    study.status = answer.get("status") or TRANSITIONS[action][1]
    fields = {"status": study.status}
    if action != "pause":
        fields["pause_requested_at"] = None
    Study.objects.filter(pk=study.pk).update(**fields)
    study.refresh_from_db()
    return study


def study_stop(*, study: Study, client: ProlificClient | None = None) -> Study:
    """Stop the study if Prolific still has it recruiting (as Prolific has it now, which may
    be PUBLISHING, or PAUSED by Prolific on its own); a study Parable knows has stopped
    (awaiting review or completed, as Prolific last said) is left alone."""
    if not study.study_id or study.status in STOPPED:
        return study
    client = client or ProlificClient()
    status = client.study_get(study_id=study.study_id).get("status", "")
    if status not in RECRUITING:
        study_status_record(study=study, status=status)
        return study
    return study_transition(study=study, action="stop", client=client)


def study_status_record(*, study: Study, status: str) -> None:
    """Keep Prolific's status of the study, as a sync or a webhook read it."""
    if status:
        fields = {"status": status[:32]}
        if status != "PAUSED":
            fields["pause_requested_at"] = None
        Study.objects.filter(pk=study.pk).update(**fields)


def study_places_add(*, study: Study, places: int, client: ProlificClient | None = None) -> Study:
    """Open more places (to refill rejected work; Prolific's places only grow), resuming a
    study Prolific paused on its own (a full study, when a submission was rejected or
    returned); one the researcher paused stays paused. Called outside any transaction."""
    if places < 1:
        raise ValueError("Add at least one place.")
    if not study.study_id:
        raise ValueError("The study is not on Prolific yet: publish its batch first.")
    client = client or ProlificClient()
    study = Study.objects.get(pk=study.pk)
    study_status_record(
        study=study, status=client.study_get(study_id=study.study_id).get("status", "")
    )
    study.refresh_from_db()
    answer = client.study_update(
        study_id=study.study_id,
        fields={"total_available_places": study.total_available_places + places},
    )
    study.total_available_places = answer["total_available_places"]
    Study.objects.filter(pk=study.pk).update(total_available_places=study.total_available_places)
    if study.paused_on_prolific:
        return study_transition(study=study, action="resume", client=client)
    return study
