"""Publishing a batch on MTurk: its settings, qualifications, HITs: one per item,
MaxAssignments the batch's target (each to a different worker), an ExternalQuestion of the
item's task page, a UniqueRequestToken so a retry makes none twice."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from xml.sax.saxutils import escape

from django.conf import settings
from django.db import transaction
from django.urls import reverse

from crowd.models import Batch, Worker
from crowd.providers import ProviderError
from mturk import client
from mturk.models import HIT, Publication

LOCALE = "00000000000000000071"
APPROVAL_RATE = "000000000000000000L0"
APPROVED_HITS = "00000000000000000040"
EXTERNAL_QUESTION = (
    '<ExternalQuestion xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/'
    '2006-07-14/ExternalQuestion.xsd"><ExternalURL>{url}</ExternalURL>'
    "<FrameHeight>{height}</FrameHeight></ExternalQuestion>"
)


@transaction.atomic
def publication_set(*, batch: Batch, **fields) -> Publication:
    """Make a draft batch an MTurk batch with these HIT-type and qualification settings."""
    batch = Batch.objects.select_for_update().get(pk=batch.pk)
    if batch.status != Batch.Status.DRAFT:
        raise ProviderError("Only a draft batch can be set up for MTurk.")
    if bool(fields.get("test_xml")) != bool(fields.get("answer_key_xml")):
        raise ProviderError("A qualification test needs both its questions and its answer key.")
    publication, _ = Publication.objects.update_or_create(batch=batch, defaults=fields)
    if batch.provider != "mturk":
        batch.provider = "mturk"
        batch.save(update_fields=["provider"])
    return publication


def task_url(*, item_id: int) -> str:
    """The ExternalQuestion URL of an item, from PARABLE_PUBLIC_URL."""
    return settings.PARABLE_PUBLIC_URL.rstrip("/") + reverse("mturk:task", args=[item_id])


def _qualification_type(*, name: str, description: str, **extra) -> str:
    """Create a qualification type, or find the one a retried publish created before."""
    try:
        created = client.call(
            "create_qualification_type",
            Name=name,
            Description=description,
            QualificationTypeStatus="Active",
            **extra,
        )
        return created["QualificationType"]["QualificationTypeId"]
    except client.MTurkError as error:
        if "already created" not in str(error):
            raise
    for qualification in client.pages(
        "list_qualification_types",
        "QualificationTypes",
        Query=name,
        MustBeRequestable=False,
        MustBeOwnedByCaller=True,
        MaxResults=100,
    ):
        if qualification["Name"] == name:
            return qualification["QualificationTypeId"]
    raise ProviderError(f"MTurk has a qualification named {name!r} that cannot be found.")


def _requirements(publication: Publication) -> list[dict]:
    requirements = [
        {
            "QualificationTypeId": publication.exclusion_qualification_id,
            "Comparator": "DoesNotExist",
            "ActionsGuarded": "DiscoverPreviewAndAccept",
        }
    ]
    countries = [code.strip().upper() for code in publication.locales.split(",") if code.strip()]
    if countries:
        requirements.append(
            {
                "QualificationTypeId": LOCALE,
                "Comparator": "In",
                "LocaleValues": [{"Country": code} for code in countries],
                "ActionsGuarded": "DiscoverPreviewAndAccept",
            }
        )
    for qualification, value in (
        (APPROVAL_RATE, publication.min_approval_rate),
        (APPROVED_HITS, publication.min_approved_hits),
        (publication.test_qualification_id, publication.test_min_score),
    ):
        if qualification and value is not None:
            requirements.append(
                {
                    "QualificationTypeId": qualification,
                    "Comparator": "GreaterThanOrEqualTo",
                    "IntegerValues": [value],
                    "ActionsGuarded": "Accept",
                }
            )
    return requirements


def hits_create(*, batch: Batch) -> dict:
    """The provider's publish: qualifications, HIT type, one HIT per item without one.
    Run outside any transaction (crowd.batches.batch_publish); each call is safe to repeat
    (qualifications found by name, HITs by their UniqueRequestToken)."""
    publication = Publication.objects.filter(batch=batch).first()
    if publication is None:
        raise ProviderError("Set up this batch for MTurk (title, description, reward) first.")
    stamp = int(batch.created_at.timestamp())
    publication.exclusion_qualification_id = _qualification_type(
        name=f"Parable exclusion: batch {batch.pk} ({stamp})",
        description="Workers who are blocked or reached the batch's per-worker cap.",
    )
    if publication.test_xml:
        publication.test_qualification_id = _qualification_type(
            name=f"Parable test: batch {batch.pk} ({stamp})",
            description=f"Qualification test for {batch.name}"[:2000],
            Test=publication.test_xml,
            AnswerKey=publication.answer_key_xml,
            TestDurationInSeconds=1800,
        )
    publication.save()
    for worker_id in Worker.objects.filter(provider="mturk", blocked=True).values_list(
        "external_id", flat=True
    ):
        exclusion_set(publication=publication, worker_id=worker_id)
    publication.hit_type_id = client.call(
        "create_hit_type",
        AutoApprovalDelayInSeconds=publication.auto_approval_delay_seconds,
        AssignmentDurationInSeconds=batch.time_allowed_seconds,
        Reward=f"{Decimal(batch.reward_cents) / 100:.2f}",
        Title=publication.title,
        Keywords=publication.keywords,
        Description=publication.description,
        QualificationRequirements=_requirements(publication),
    )["HITTypeId"]
    publication.save()
    for item in batch.items.filter(mturk_hit__isnull=True).order_by("position", "id"):
        hit = _hit_create(publication=publication, item=item, stamp=stamp)
        HIT.objects.create(
            hit_id=hit["HITId"],
            batch=batch,
            item=item,
            hit_type_id=hit["HITTypeId"],
            max_assignments=hit["MaxAssignments"],
            status=hit["HITStatus"],
            expires_at=as_datetime(hit["Expiration"]),
            auto_approval_delay_seconds=hit["AutoApprovalDelayInSeconds"],
        )
    return {"mturk_hit_type": publication.hit_type_id}


def _hit_create(*, publication: Publication, item, stamp: int) -> dict:
    question = EXTERNAL_QUESTION.format(
        url=escape(task_url(item_id=item.pk)), height=settings.MTURK_FRAME_HEIGHT
    )
    try:
        return client.call(
            "create_hit_with_hit_type",
            HITTypeId=publication.hit_type_id,
            MaxAssignments=publication.batch.target_per_item,
            LifetimeInSeconds=publication.lifetime_seconds,
            Question=question,
            RequesterAnnotation=f"parable batch {publication.batch_id} item {item.pk}",
            UniqueRequestToken=f"parable-{stamp}-{item.pk}",
        )["HIT"]
    except client.MTurkError as error:
        if not (error.is_duplicate_request and error.hit_id):
            raise
        # A retried publish: MTurk created this HIT before and names it.
        return client.call("get_hit", HITId=error.hit_id)["HIT"]


def exclusion_set(*, publication: Publication, worker_id: str, excluded: bool = True) -> None:
    """Give the worker the batch's exclusion qualification (its HITs are closed to them), or
    take it back (`excluded=False`: an unblocked worker); nothing when it is so already."""
    if (worker_id in publication.excluded_worker_ids) == excluded:
        return
    if excluded:
        client.call(
            "associate_qualification_with_worker",
            QualificationTypeId=publication.exclusion_qualification_id,
            WorkerId=worker_id,
            IntegerValue=1,
            SendNotification=False,
        )
    else:
        client.call(
            "disassociate_qualification_from_worker",
            QualificationTypeId=publication.exclusion_qualification_id,
            WorkerId=worker_id,
            Reason="Unblocked",
        )
    others = [other for other in publication.excluded_worker_ids if other != worker_id]
    publication.excluded_worker_ids = [*others, worker_id] if excluded else others
    publication.save(update_fields=["excluded_worker_ids"])


def as_datetime(value) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    return datetime.fromtimestamp(float(value), UTC)
