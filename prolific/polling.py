"""Polling Prolific, the fallback to webhooks that beat runs: every study not finished is
synced. (What review decisions owe Prolific is sent by crowd's outbox, not by the poll.)"""

from __future__ import annotations

import logging

from prolific.client import ProlificClient, ProlificError
from prolific.models import Study
from prolific.submissions import study_sync

logger = logging.getLogger(__name__)


def studies_sync(*, client: ProlificClient | None = None, now=None) -> int:
    """Sync every study on Prolific that is not finished; returns the submissions seen. A
    study Prolific refuses is logged and left to the next poll, and the others are synced."""
    seen = 0
    for study in Study.objects.exclude(study_id="").exclude(status="COMPLETED"):
        try:
            seen += study_sync(study=study, client=client, now=now)
        except ProlificError as error:
            logger.warning("prolific: study %s not synced: %s", study.pk, error)
    return seen
