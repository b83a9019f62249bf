"""Changing a HIT on MTurk: expire it, extend it, add assignments to refill rejected slots.

No MTurk call runs inside a database transaction: each service reads the HIT, calls
MTurk, then writes MTurk's answer in one short update of its own. A refusal writes nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.utils import timezone

from crowd.providers import ProviderError
from mturk import client
from mturk.models import HIT

# The longest extension asked for at once: a year.
MAX_EXTENSION_SECONDS = 365 * 24 * 3600


def hit_expire(*, hit: HIT) -> HIT:
    """Close the HIT to new workers now; work already accepted can still be submitted."""
    hit = HIT.objects.get(pk=hit.pk)
    client.call(
        "update_expiration_for_hit", HITId=hit.hit_id, ExpireAt=datetime(1970, 1, 1, tzinfo=UTC)
    )
    hit.expires_at = timezone.now()
    HIT.objects.filter(pk=hit.pk).update(expires_at=hit.expires_at)
    return hit


def hit_extend(*, hit: HIT, seconds: int) -> HIT:
    """Keep the HIT open `seconds` past now (or past its current expiry, if later)."""
    if seconds < 60:
        raise ProviderError("Extend a HIT by at least a minute.")
    if seconds > MAX_EXTENSION_SECONDS:
        raise ProviderError(
            f"Extend a HIT by at most {MAX_EXTENSION_SECONDS // 3600:,} hours (a year) at a time."
        )
    hit = HIT.objects.get(pk=hit.pk)
    expires_at = max(hit.expires_at, timezone.now()) + timedelta(seconds=seconds)
    client.call("update_expiration_for_hit", HITId=hit.hit_id, ExpireAt=expires_at)
    hit.expires_at = expires_at
    HIT.objects.filter(pk=hit.pk).update(expires_at=expires_at)
    return hit


def hit_assignments_add(*, hit: HIT, count: int) -> HIT:
    """Add assignments (to refill rejected slots). MTurk refuses to take a HIT from fewer
    than 10 assignments to 10 or more; the token (from the count read before the call)
    makes a retried or doubled call add them once, and the count is raised only by an
    update from that same count."""
    if count < 1:
        raise ProviderError("Add at least one assignment.")
    hit = HIT.objects.get(pk=hit.pk)
    before = hit.max_assignments
    if before < 10 <= before + count:
        raise ProviderError(
            f"HIT {hit.hit_id} has {before} assignments: MTurk cannot take a HIT "
            f"created with fewer than 10 to 10 or more (at most {9 - before} more)."
        )
    try:
        client.call(
            "create_additional_assignments_for_hit",
            HITId=hit.hit_id,
            NumberOfAdditionalAssignments=count,
            UniqueRequestToken=f"parable-add-{hit.pk}-{before}",
        )
    except client.MTurkError as error:
        if not error.is_duplicate_request:
            raise
    HIT.objects.filter(pk=hit.pk, max_assignments=before).update(max_assignments=before + count)
    hit.refresh_from_db(fields=["max_assignments"])
    return hit
