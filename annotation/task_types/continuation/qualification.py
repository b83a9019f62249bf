"""The qualification test of a continuation batch: option pairs with known answers, of which
a worker must get `min_correct` right, once, before their first task (frontend:qualify).
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Count, Q

from annotation.models import ContinuationPair
from annotation.task_types.continuation.models import QualificationAttempt
from common.prose import paper_number, plural
from crowd.models import Batch
from crowd.task_types import SettingConflict, SettingNotFound, SubmissionError


def clean_qualification(qualification) -> dict:
    """{"pairs": ids of option pairs with known answers, "min_correct": how many to pass}."""
    qualification = qualification or {}
    if not isinstance(qualification, dict) or set(qualification) - {"pairs", "min_correct"}:
        raise ValueError('qualification must be like {"pairs": [1, 2, 3], "min_correct": 2}.')
    pairs = qualification.get("pairs") or []
    if not isinstance(pairs, list) or any(type(pk) is not int for pk in pairs):
        raise ValueError("qualification pairs must be a list of option pair ids.")
    found = set(ContinuationPair.objects.filter(pk__in=pairs).values_list("pk", flat=True))
    missing = sorted(set(pairs) - found)
    if missing:
        raise SettingNotFound(
            f"No option pair {', '.join(map(str, missing))} for the qualification."
        )
    unlabelled = sorted(
        ContinuationPair.objects.filter(pk__in=pairs, correct__isnull=True).values_list(
            "pk", flat=True
        )
    )
    if unlabelled:
        raise SettingConflict(
            f"Option pair(s) {', '.join(map(str, unlabelled))} have no known answer (labels "
            "withheld): they cannot test workers."
        )
    minimum = qualification.get("min_correct", len(pairs))
    if type(minimum) is not int or not 0 <= minimum <= len(pairs):
        raise ValueError(
            f"qualification min_correct must be a whole number from 0 to {len(pairs)}."
        )
    return {"pairs": list(dict.fromkeys(pairs)), "min_correct": minimum}


def qualification_entered(data: dict) -> dict:
    """The test as the batch form takes it: pair ids separated by commas or spaces, and
    how many must be right (empty: all)."""
    raw = (data.get("qualification_pairs") or "").replace(",", " ").split()
    try:
        pairs = [int(value) for value in raw]
    except ValueError:
        raise ValueError("Give option pair ids: whole numbers.") from None
    minimum = data.get("qualification_min_correct")
    return {"pairs": pairs, "min_correct": len(pairs) if minimum is None else minimum}


def qualification_needed(*, batch: Batch, worker) -> bool:
    """Whether the worker must still pass the batch's test (TaskType.qualification_needed)."""
    if not batch.settings.get("qualification", {}).get("pairs"):
        return False
    return not QualificationAttempt.objects.filter(batch=batch, worker=worker, passed=True).exists()


def qualification_context(*, batch: Batch, worker) -> dict:
    """The test's page: its questions, how many must be right, the worker's attempt."""
    settings = batch.settings.get("qualification", {})
    if not settings.get("pairs"):
        return {}
    return {
        "questions": qualification_questions(settings["pairs"]),
        "min_correct": settings["min_correct"],
        "attempt": QualificationAttempt.objects.filter(batch=batch, worker=worker).first(),
    }


def qualification_questions(pair_ids: list[int]) -> list[dict]:
    """The test's questions: each pair's narrative pieces and options in the stored order."""
    pairs = ContinuationPair.objects.select_related("narrative").in_bulk(pair_ids)
    return [
        {
            "pair": pairs[pk].pk,
            "segments": pairs[pk].narrative.segments(),
            "options": [
                {"id": option, "text": pairs[pk].option_text(option)}
                for option in pairs[pk].shown_order()
            ],
        }
        for pk in pair_ids
        if pk in pairs
    ]


@transaction.atomic
def qualification_attempt_create(*, batch: Batch, worker, answers: dict) -> QualificationAttempt:
    """Score the worker's one attempt (a second returns the first): `answers` maps every
    option pair id (text or number) to the chosen option, 1 or 2."""
    existing = QualificationAttempt.objects.filter(batch=batch, worker=worker).first()
    if existing is not None:
        return existing
    settings = batch.settings.get("qualification", {})
    pairs = ContinuationPair.objects.in_bulk(settings.get("pairs", []))
    chosen = {}
    for pk in pairs:
        value = answers.get(str(pk), answers.get(pk))
        if str(value) not in ("1", "2"):
            raise SubmissionError("Answer every question of the test.")
        chosen[str(pk)] = int(value)
    correct = sum(chosen[str(pk)] == pair.correct for pk, pair in pairs.items())
    return QualificationAttempt.objects.create(
        batch=batch,
        worker=worker,
        answers=chosen,
        correct=correct,
        passed=correct >= settings.get("min_correct", len(pairs)),
    )


def qualification_sentences(batch: Batch) -> list[str]:
    """The methods section's sentence on the batch's qualification test, if it had one."""
    attempts = QualificationAttempt.objects.filter(batch=batch).aggregate(
        total=Count("id"), passed=Count("id", filter=Q(passed=True))
    )
    if not attempts["total"]:
        return []
    return [
        f"A qualification test came first: {paper_number(attempts['passed'])} of "
        f"{plural(attempts['total'], 'worker')} passed it."
    ]
