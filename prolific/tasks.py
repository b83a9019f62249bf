"""Celery tasks of the Prolific provider: polling (the fallback to webhooks).

The calls review decisions owe Prolific (approvals, rejections, bonuses, blocks,
messages) are sent by crowd's outbox tasks (crowd.tasks, crowd.outbox).
"""

import logging

from celery import shared_task

from prolific.models import Study
from prolific.polling import studies_sync
from prolific.submissions import study_sync

logger = logging.getLogger(__name__)


@shared_task(name="prolific.studies_sync")
def studies_sync_task() -> int:
    """Poll every study on Prolific that is not finished (prolific.polling; run by beat)."""
    return studies_sync()


@shared_task(name="prolific.study_sync")
def study_sync_task(study_id: int) -> int:
    return study_sync(study=Study.objects.get(pk=study_id))
