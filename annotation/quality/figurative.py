"""Reports of the continuation, choose-the-continuation and cloze batches.

Choose the continuation: human accuracy against the known answer (the benchmark's
human-performance figure), with pairwise agreement and majority-vote accuracy. Cloze
(the narrative-cloze pilot's measures): the rate at which a response's main-verb lemma
matches the left-out sentence's, and per item the agreement among its responses as one
minus the normalised entropy of their main-verb lemmas (H / log N for N responses;
undefined for a single response). Counted as the other reports: submitted and approved
work on regular items.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from statistics import mean

from annotation.models import (
    ClozeResponse,
    Continuation,
    ContinuationAnswer,
    QualificationAttempt,
)
from annotation.quality.agreement import (
    aggregate_accuracy,
    choice_accuracy,
    majority_vote,
    pairwise_label_agreement,
)
from crowd.models import Assignment, Batch

COUNTED = (Assignment.Status.SUBMITTED, Assignment.Status.APPROVED)


def lemma_agreement(lemmas: Iterable[str]) -> float | None:
    """1 - H(lemmas) / log N: 1 when all N responses share a lemma, 0 when all differ.

    None for fewer than two responses, where the measure is not defined.
    """
    counts = Counter(lemmas)
    total = sum(counts.values())
    if total < 2:
        return None
    entropy = -sum(n / total * math.log(n / total) for n in counts.values())
    return 1 - entropy / math.log(total)


def _counted(model, batch: Batch):
    return model.objects.filter(
        assignment__item__batch=batch,
        assignment__status__in=COUNTED,
        assignment__item__is_gold=False,
    )


def _mean_or_none(values: list[float]) -> float | None:
    return mean(values) if values else None


def continuation_choice_report(*, batch: Batch) -> dict:
    """Human accuracy, pairwise agreement and majority-vote accuracy; by narrative kind."""
    rows = list(
        _counted(ContinuationAnswer, batch)
        .filter(pair__withdrawn=False)
        .values_list(
            "pair_id", "assignment__worker_id", "chosen", "pair__correct", "pair__narrative__kind"
        )
    )
    answers = [(pair, worker, chosen) for pair, worker, chosen, *_ in rows]
    # Unlabelled pairs (withheld test labels) have no gold: no accuracy counts them.
    gold = {pair: correct for pair, _, _, correct, _ in rows if correct is not None}
    by_kind = {}
    for kind in sorted({kind for *_, kind in rows}):
        of_kind = [(pair, worker, chosen) for pair, worker, chosen, _, k in rows if k == kind]
        by_kind[kind] = {"answers": len(of_kind), "human_accuracy": choice_accuracy(of_kind, gold)}
    return {
        "answers": len(answers),
        "pairs": len({pair for pair, *_ in rows}),
        "unlabelled_answers": sum(1 for *_, correct, _ in rows if correct is None),
        "human_accuracy": choice_accuracy(answers, gold),
        "pairwise_agreement": pairwise_label_agreement(answers),
        "majority_vote_accuracy": aggregate_accuracy(majority_vote(answers), gold),
        "by_kind": by_kind,
    }


def cloze_report(*, batch: Batch) -> dict:
    """Verb-lemma match rate and mean lemma agreement; per item its responses' figures."""
    rows = list(
        _counted(ClozeResponse, batch).values_list(
            "item_id", "lemma", "matches", "item__original_lemma", "item__condition"
        )
    )
    by_item: dict[int, list[tuple[str, bool]]] = defaultdict(list)
    originals, condition = {}, batch.settings.get("condition", "")
    for item, lemma, matches, original, _ in rows:
        by_item[item].append((lemma, matches))
        originals[item] = original
    items = [
        {
            "item": item,
            "original_lemma": originals[item],
            "responses": len(responses),
            "lemmas": dict(Counter(lemma for lemma, _ in responses).most_common()),
            "match_rate": mean(matches for _, matches in responses),
            "agreement": lemma_agreement(lemma for lemma, _ in responses),
        }
        for item, responses in sorted(by_item.items())
    ]
    agreements = [row["agreement"] for row in items if row["agreement"] is not None]
    return {
        "condition": condition,
        "responses": len(rows),
        "items_answered": len(items),
        "match_rate": _mean_or_none([float(matches) for _, _, matches, _, _ in rows]),
        "agreement": _mean_or_none(agreements),
        "items_with_agreement": len(agreements),
        "by_item": items,
    }


def continuation_report(*, batch: Batch) -> dict:
    """Continuations written, literal-use flags and those confirmed, pairs made, and the
    qualification test's attempts and passes."""
    continuations = _counted(Continuation, batch)
    flagged = continuations.filter(literal_use=True)
    attempts = QualificationAttempt.objects.filter(batch=batch)
    return {
        "qualification_attempts": attempts.count(),
        "qualification_passed": attempts.filter(passed=True).count(),
        "submissions": continuations.count(),
        "written": continuations.filter(literal_use=False).count(),
        "literal_flags": flagged.count(),
        "literal_confirmed": flagged.filter(narrative__literal_use_confirmed=True).count(),
        "option_pairs": continuations.filter(option_pair__isnull=False).count(),
    }
