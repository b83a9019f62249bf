"""Polling Prolific, the fallback to webhooks that beat runs: every study not finished is
synced, and what still waits to be sent to Prolific is gathered for the tasks that send it."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from prolific.bonuses import bonuses_waiting
from prolific.client import ProlificClient, ProlificError
from prolific.models import Study
from prolific.submissions import decisions_waiting, study_sync

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class StudiesPolled:
    """A poll's outcome: submissions seen, and the ids of what waits to be sent."""

    seen: int
    bonuses_to_send: list[int]
    bonuses_to_reconcile: list[int]
    approvals: list[int]
    rejections: list[int]


def studies_sync(*, client: ProlificClient | None = None, now=None) -> StudiesPolled:
    """Sync every study on Prolific that is not finished (one Prolific refuses is logged
    and left to the next poll), then gather the bonuses not sent yet, those whose pay call
    went unanswered, and the approvals and rejections Prolific still has waiting."""
    seen = 0
    for study in Study.objects.exclude(study_id="").exclude(status="COMPLETED"):
        try:
            seen += study_sync(study=study, client=client, now=now)
        except ProlificError as error:
            logger.warning("prolific: study %s not synced: %s", study.pk, error)
    to_send, to_reconcile = bonuses_waiting(now=now)
    approvals, rejections = decisions_waiting(now=now)
    return StudiesPolled(seen, to_send, to_reconcile, approvals, rejections)
