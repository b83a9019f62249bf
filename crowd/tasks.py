"""Celery tasks of crowd work: expiring reservations, and sending the calls review decisions
owe their providers (crowd.outbox)."""

import logging

from celery import shared_task

from common.task_queue import task_send, tasks_requeue_lost
from crowd.assignments import assignments_expire
from crowd.outbox import (
    SEND_TASK,
    provider_action_reconcile,
    provider_action_send,
    provider_actions_due,
)
from crowd.providers import ProviderError

logger = logging.getLogger(__name__)


@shared_task(name="crowd.assignments_expire")
def assignments_expire_task() -> int:
    """Return expired reservations' slots to the pool (run every minute by beat)."""
    return assignments_expire()


@shared_task(name=SEND_TASK)
def provider_action_send_task(action_id: int) -> str:
    """Send a recorded provider call once its decision has committed; a redelivered task
    finds it being sent, unknown or finished and sends nothing."""
    return provider_action_send(action_id=action_id)


@shared_task(name="crowd.provider_action_reconcile")
def provider_action_reconcile_task(action_id: int) -> str:
    """Settle a call whose outcome is unknown from its provider's records."""
    try:
        return provider_action_reconcile(action_id=action_id)
    except ProviderError as error:
        logger.warning("provider call %s not reconciled yet: %s", action_id, error)
        return "unknown"


@shared_task(name="crowd.provider_actions_requeue")
def provider_actions_requeue_task() -> int:
    """Beat's safety net for provider calls (crowd.outbox.provider_actions_due); returns
    how many tasks it queued."""
    to_send, to_reconcile = provider_actions_due()
    queued = tasks_requeue_lost(provider_action_send_task, to_send)
    return queued + sum(task_send(provider_action_reconcile_task, pk) for pk in to_reconcile)
