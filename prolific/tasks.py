"""Celery tasks of the Prolific provider: polling (the fallback to webhooks). The calls
review decisions owe Prolific are sent by crowd's outbox tasks."""

from celery import shared_task

from prolific.polling import studies_sync


@shared_task(name="prolific.studies_sync")
def studies_sync_task() -> int:
    """Poll every study on Prolific that is not finished (prolific.polling; run by beat)."""
    return studies_sync()
