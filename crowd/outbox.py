"""The outbox of provider calls: a call is recorded with its review decision (`action_record`)
and sent after commit (`provider_action_send`, outside any transaction): claimed (pending →
sending, committed first), carried out, then settled (done; refused, a bonus taken back;
pending when it surely did nothing; else by the provider's rule: RETRY pending, RECONCILE and
ONCE unknown). Beat (`provider_actions_due`) resends what was lost and settles unknown
RECONCILE calls. One subject's calls go in order; a later decision supersedes an unsent one.
"""

from __future__ import annotations

import logging
from collections import Counter
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from common.task_queue import queue_on_commit, task_send
from crowd.models import Assignment, ProviderAction
from crowd.providers import RECONCILE, RETRY, CallNotSent, ProviderError, get_provider

logger = logging.getLogger(__name__)

Kind = ProviderAction.Kind
Status = ProviderAction.Status
SEND_TASK = "crowd.provider_action_send"
# Decisions about one subject whose order matters to the provider: a later one supersedes
# an earlier one not sent yet, and they are sent in the order they were made.
_DECISIONS = {
    Kind.APPROVE: (Kind.APPROVE, Kind.REJECT),
    Kind.REJECT: (Kind.APPROVE, Kind.REJECT),
    Kind.BLOCK: (Kind.BLOCK, Kind.UNBLOCK),
    Kind.UNBLOCK: (Kind.BLOCK, Kind.UNBLOCK),
}
_UNFINISHED = (Status.PENDING, Status.SENDING, Status.UNKNOWN)


def _subject(action: ProviderAction) -> Q:
    if action.assignment_id is not None:
        return Q(assignment_id=action.assignment_id)
    return Q(worker_id=action.worker_id)


@transaction.atomic
def action_record(
    *,
    kind: str,
    provider: str,
    assignment: Assignment | None = None,
    worker=None,
    bonus=None,
    payload: dict | None = None,
) -> ProviderAction | None:
    """Record the call a decision owes its provider, in the decision's own transaction, to
    be sent once that commits; the provider may refuse it here (ProviderError). None when
    the provider needs nothing for this decision."""
    action = ProviderAction(
        provider=provider,
        kind=kind,
        assignment=assignment,
        worker=worker,
        bonus=bonus,
        payload=dict(payload or {}),
    )
    needed = get_provider(provider).action_prepare(action=action)
    if kind in _DECISIONS:  # whether or not the new decision needs a call of its own
        _decisions_alike(action, status=Status.PENDING).update(
            status=Status.SUPERSEDED,
            finished_at=timezone.now(),
            note="A later decision was made before this one was sent.",
        )
    if not needed:
        return None
    action.save()
    queue_on_commit(SEND_TASK, action.pk)
    return action


def _decisions_alike(action: ProviderAction, **filters):
    """The calls of decisions about the same subject whose order matters with `action`."""
    return ProviderAction.objects.filter(
        _subject(action), kind__in=_DECISIONS.get(action.kind, ()), **filters
    )


def provider_action_send(*, action_id: int) -> str:
    """Send a recorded call (see the module), at most once per claim; safe to run any number
    of times (a call being sent, unknown or finished is left alone). Returns its status."""
    with transaction.atomic():
        action = ProviderAction.objects.select_for_update().get(pk=action_id)
        earlier = _decisions_alike(action, status__in=_UNFINISHED, pk__lt=action.pk)
        if action.status != Status.PENDING or earlier.exists():
            return action.status
        action.status = Status.SENDING
        action.sent_at = timezone.now()
        action.attempts += 1
        action.save(update_fields=["status", "sent_at", "attempts"])
    # Committed as sending: from here on, only the provider's rule sends it again.
    provider = get_provider(action.provider)
    try:
        note = provider.action_send(action=action)
    except CallNotSent as error:
        return _settle(action_id, Status.PENDING, f"Not sent: {error}")
    except ProviderError as error:
        if error.refused:
            return _settle(action_id, Status.REFUSED, str(error))
        return _settle(action_id, *_unanswered(provider, action, f"No answer: {error}"))
    except Exception as error:  # the outcome of the call is not known: its rule decides
        logger.exception("%s: call %s failed on its way", action.provider, action_id)
        return _settle(action_id, *_unanswered(provider, action, f"No answer: {error}"))
    return _settle(action_id, Status.DONE, note)


def _unanswered(provider, action: ProviderAction, why: str) -> tuple[str, str]:
    """What a call that got no answer becomes, and its note: pending again when a repeat is
    harmless (RETRY), else unknown (RECONCILE: until the provider's records settle it)."""
    delivery = provider.action_delivery(action=action)
    if delivery == RETRY:
        return Status.PENDING, f"{why} It is sent again."
    if delivery == RECONCILE:
        return Status.UNKNOWN, f"{why} It is settled from the provider's records."
    return Status.UNKNOWN, (
        f"{why} It is not sent again: the provider keeps no record that would show "
        "whether it arrived, and a repeat would arrive twice."
    )


def _settle(action_id: int, status: str, note: str, *, was: str = Status.SENDING) -> str:
    """Write a call's outcome unless it is no longer `was`; a refused bonus is taken back,
    and a finished call lets the next call about its subject go."""
    with transaction.atomic():
        action = ProviderAction.objects.select_for_update().get(pk=action_id)
        if action.status != was:
            return action.status
        action.status = status
        action.note = note[:2000]
        if status in ProviderAction.FINISHED:
            action.finished_at = timezone.now()
        if status == Status.REFUSED and action.bonus_id is not None:
            _bonus_take_back(action)
        action.save(update_fields=["status", "note", "finished_at", "bonus"])
        if status in ProviderAction.FINISHED:
            waiting = _decisions_alike(action, status=Status.PENDING).order_by("pk").first()
            if waiting is not None:
                queue_on_commit(SEND_TASK, waiting.pk)
    return status


def _bonus_take_back(action: ProviderAction) -> None:
    """A bonus its provider refused was never paid: its record and its amount go, so the
    worker's realised pay stays true and the same bonus may be sent again later."""
    bonus = action.bonus
    Assignment.objects.filter(pk=bonus.assignment_id).update(
        bonus_cents=F("bonus_cents") - bonus.cents
    )
    action.bonus = None
    bonus.delete()


def provider_action_reconcile(*, action_id: int, now=None) -> str:
    """Settle an unknown RECONCILE call from the provider's record, outside any transaction:
    done, or sent again (ProviderError when the provider cannot be asked)."""
    now = now or timezone.now()
    action = ProviderAction.objects.get(pk=action_id)
    provider = get_provider(action.provider)
    if action.status != Status.UNKNOWN or provider.action_delivery(action=action) != RECONCILE:
        return action.status
    verdict = provider.action_reconcile(action=action, now=now)
    if verdict not in _RECONCILED:
        return Status.UNKNOWN
    status = _settle(action_id, verdict, _RECONCILED[verdict], was=Status.UNKNOWN)
    if verdict == status == Status.PENDING:
        task_send(SEND_TASK, action_id)
    return status


_RECONCILED = {
    Status.DONE: "Reconciled: the provider's records show the call took effect.",
    Status.PENDING: "Reconciled: the provider has no record of the call, so it is sent again.",
}


def provider_actions_due(*, now=None) -> tuple[list[int], list[int]]:
    """What beat does with the calls left over: (calls to send again, calls to reconcile).
    A call `sending` past its in-flight time (its process died) is settled as unanswered;
    pending calls are due PARABLE_BACKGROUND_GRACE_SECONDS after recorded or last sent."""
    now = now or timezone.now()
    for action in ProviderAction.objects.filter(status=Status.SENDING).order_by("pk"):
        provider = get_provider(action.provider)
        if action.sent_at < now - provider.action_in_flight():
            why = "The process sending it stopped before the provider's answer was recorded."
            _settle(action.pk, *_unanswered(provider, action, why))
    cutoff = now - timedelta(seconds=settings.PARABLE_BACKGROUND_GRACE_SECONDS)
    pending = ProviderAction.objects.filter(status=Status.PENDING).filter(
        Q(sent_at__isnull=True, created_at__lte=cutoff) | Q(sent_at__lte=cutoff)
    )
    unknown = ProviderAction.objects.filter(status=Status.UNKNOWN).order_by("pk")
    return (
        list(pending.order_by("pk").values_list("pk", flat=True)),
        [
            action.pk
            for action in unknown
            if get_provider(action.provider).action_delivery(action=action) == RECONCILE
        ],
    )


def action_progress(*, action: ProviderAction, **payload) -> None:
    """Keep a provider's progress on a call being sent (the id of a first step), for the
    admin and a later reconciliation."""
    action.payload.update(payload)
    ProviderAction.objects.filter(pk=action.pk).update(payload=action.payload)


def provider_actions_drain(*, now=None) -> Counter:
    """Beat's part for provider calls, done in this process where no beat runs
    (`manage.py provider_calls_send`). Returns the statuses the calls it touched ended in."""
    now = now or timezone.now()
    to_send, to_reconcile = provider_actions_due(now=now)
    for action_id in to_send:
        provider_action_send(action_id=action_id)
    for action_id in to_reconcile:
        try:
            provider_action_reconcile(action_id=action_id, now=now)
        except ProviderError as error:
            logger.warning("provider call %s not reconciled yet: %s", action_id, error)
    touched = ProviderAction.objects.filter(pk__in=[*to_send, *to_reconcile])
    return Counter(touched.values_list("status", flat=True))
