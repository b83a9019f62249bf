"""Study services and selectors: prepare a batch as a study, price it, publish it, move it
through Prolific's states, add places.
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
    batch.save(update_fields=["provider"])
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


def study_cost(*, study: Study, client: ProlificClient | None = None) -> dict:
    """Prolific's own price for the study (rewards, fees and VAT), stored on the study."""
    client = client or ProlificClient()
    places = study_places(study=study)
    cost = client.study_cost(reward=study_reward_cents(study=study), total_available_places=places)
    Study.objects.filter(pk=study.pk).update(
        cost_cents=round(cost["total_cost"]), total_available_places=places
    )
    return {**cost, "total_available_places": places, "reward": study_reward_cents(study=study)}


def study_fields(*, study: Study) -> dict:
    """The body of POST /studies/ for the study (a draft on Prolific)."""
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
        "maximum_allowed_time": math.ceil(batch.time_allowed_seconds / 60),
        "reward": study_reward_cents(study=study),
        "device_compatibility": study.device_compatibility or ["desktop"],
        "submissions_config": {"max_submissions_per_participant": 1},
        "filters": filters,
        # The project (of the workspace the blocklist group is made in); the account's
        # default project when unset.
        **({"project": settings.PROLIFIC_PROJECT_ID} if settings.PROLIFIC_PROJECT_ID else {}),
    }


def study_draft_create(*, study: Study, client: ProlificClient | None = None) -> Study:
    """Create the study on Prolific as a draft, once; the admin commits it before publishing,
    so a failed publish is retried on the same draft.

    Prolific is called outside any transaction: the study is read, the blocklist group
    and the draft are made, and their ids are written after, only where no other
    publish wrote one meanwhile (a draft made twice at once stays an unpublished draft
    on Prolific, which costs nothing)."""
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


def study_publish_confirmed(
    *, study: Study, cost_cents: int, client: ProlificClient | None = None
) -> Batch:
    """The researcher saw `cost_cents` and confirmed: create the draft on Prolific (committed
    on its own, so a failed publish is retried on it), then publish the batch."""
    from crowd.batches import batch_publish

    client = client or ProlificClient()
    quoted = study_cost(study=study, client=client)["total_cost"]
    if round(quoted) != cost_cents:
        raise ValueError(
            f"Prolific now quotes {round(quoted)} cents, not the {cost_cents} you confirmed: "
            "check the new cost and confirm again."
        )
    Study.objects.filter(pk=study.pk).update(cost_confirmed_at=timezone.now())
    study_draft_create(study=study, client=client)
    return batch_publish(batch=study.batch)


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
        study.status = published.get("status", "ACTIVE")
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
    answer is written after)."""
    if action not in TRANSITIONS:
        raise ValueError(f"Unknown study action {action!r}.")
    if not study.study_id:
        raise ValueError("The study is not on Prolific yet: publish its batch first.")
    client = client or ProlificClient()
    answer = client.study_transition(study_id=study.study_id, action=TRANSITIONS[action][0])
    study.status = answer.get("status") or TRANSITIONS[action][1]
    Study.objects.filter(pk=study.pk).update(status=study.status)
    return study


def study_places_add(*, study: Study, places: int, client: ProlificClient | None = None) -> Study:
    """Open more places (e.g. to refill rejected work); Prolific's places only grow.
    Prolific is called outside any transaction; its count is written after."""
    if places < 1:
        raise ValueError("Add at least one place.")
    if not study.study_id:
        raise ValueError("The study is not on Prolific yet: publish its batch first.")
    client = client or ProlificClient()
    study = Study.objects.get(pk=study.pk)
    answer = client.study_update(
        study_id=study.study_id,
        fields={"total_available_places": study.total_available_places + places},
    )
    study.total_available_places = answer["total_available_places"]
    Study.objects.filter(pk=study.pk).update(total_available_places=study.total_available_places)
    return study
