"""Inter-annotator agreement and label aggregation, as plain Python (no Django): the
analyses pass tuples read from the database, scripts pass exported data.

Conventions: a rating (or answer) is a triple ``(item, annotator, value)`` of hashable
values; a value of None or NaN is missing and skipped; a second, different value for one
``(item, annotator)`` raises ValueError (an exact repeat counts once); whatever cannot be
computed is None, never NaN. ``krippendorff`` and ``crowd-kit`` do the statistics, imported
where used so that the web process does not pay for them.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from itertools import combinations, permutations
from typing import Any

from annotation.text import simple_token_spans

Triple = tuple[Hashable, Hashable, Any]
Span = tuple[int, int]

LEVELS = ("nominal", "ordinal", "interval", "ratio")
# Probabilities closer than this are a tie when picking an aggregated label.
_TIE_TOLERANCE = 1e-9


def _is_missing(value: Any) -> bool:
    # numpy's floats are numbers.Real too; ints are never NaN.
    return value is None or (
        isinstance(value, numbers.Real) and not isinstance(value, int) and math.isnan(value)
    )


def _finite_or_none(value: Any) -> float | None:
    """A float, or None for None / NaN / infinities."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _collect(triples: Iterable[Triple]) -> dict[Hashable, dict[Hashable, Any]]:
    """Triples as ``{item: {annotator: value}}`` in first-seen order, by the conventions."""
    by_item: dict[Hashable, dict[Hashable, Any]] = {}
    for item, annotator, value in triples:
        if _is_missing(value):
            continue
        values = by_item.setdefault(item, {})
        if annotator in values and values[annotator] != value:
            raise ValueError(
                f"annotator {annotator!r} gave item {item!r} two values: "
                f"{values[annotator]!r} and {value!r}"
            )
        values[annotator] = value
    return by_item


def _label_order_key(label: Any) -> tuple[int, Any, str]:
    """An order over labels of mixed types: numbers first, then by type name and repr."""
    if isinstance(label, numbers.Real) and not isinstance(label, bool):
        return (0, float(label), "")
    return (1, 0.0, f"{type(label).__name__}:{label!r}")


def _smallest(labels: Iterable[Any]) -> Any:
    """The smallest label: by ``<`` when the labels compare, else by ``_label_order_key``."""
    labels = list(labels)
    try:
        return min(labels)
    except TypeError:
        return min(labels, key=_label_order_key)


def _ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator else None


def pairwise_label_agreement(labels: Iterable[Triple]) -> float | None:
    """Per item labelled at least twice, the share of its unordered annotator pairs that
    gave equal labels; the unweighted mean over those items (ePiC's "how often two judges
    agree on a label for a sample", 0.735 in their MCQ evaluation). None without one."""
    fractions = []
    for values in _collect(labels).values():
        pairs = list(combinations(values.values(), 2))
        if pairs:
            fractions.append(sum(a == b for a, b in pairs) / len(pairs))
    return sum(fractions) / len(fractions) if fractions else None


def pairwise_binary_agreement(ratings: Iterable[Triple], *, threshold: int = 3) -> float | None:
    """ePiC's pairwise agreement on a Likert rating made binary: :func:`pairwise_label_agreement`
    of good (``value >= threshold``; ePiC: overall >= 3) against poor."""
    binary = (
        (item, annotator, None if _is_missing(value) else float(value) >= threshold)
        for item, annotator, value in ratings
    )
    return pairwise_label_agreement(binary)


def krippendorff_alpha(ratings: Iterable[Triple], *, level: str) -> float | None:
    """Krippendorff's alpha (the ``krippendorff`` package) at ``level`` ("nominal", "ordinal",
    "interval" or "ratio"). Nominal labels may be any hashable values; the others need numbers
    (ValueError otherwise). None when undefined: fewer than two items rated twice, or one
    value throughout (no expected disagreement).
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, not {level!r}")
    by_item = {item: values for item, values in _collect(ratings).items() if len(values) >= 2}
    if len(by_item) < 2:
        return None

    if level == "nominal":
        codes: dict[Hashable, int] = {}
        for values in by_item.values():
            for value in values.values():
                codes.setdefault(value, len(codes))
        by_item = {
            item: {annotator: codes[value] for annotator, value in values.items()}
            for item, values in by_item.items()
        }
    else:
        try:
            by_item = {
                item: {annotator: float(value) for annotator, value in values.items()}
                for item, values in by_item.items()
            }
        except (TypeError, ValueError) as error:
            raise ValueError(f"{level} alpha needs numeric values: {error}") from None

    distinct = {value for values in by_item.values() for value in values.values()}
    if len(distinct) < 2:
        return None

    import krippendorff
    import numpy as np

    annotators = list(dict.fromkeys(a for values in by_item.values() for a in values))
    row = {annotator: index for index, annotator in enumerate(annotators)}
    matrix = np.full((len(annotators), len(by_item)), np.nan)
    for column, values in enumerate(by_item.values()):
        for annotator, value in values.items():
            matrix[row[annotator], column] = value
    try:
        alpha = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
    except (ValueError, ZeroDivisionError, FloatingPointError):
        return None
    return _finite_or_none(alpha)


MIN_ALPHA_ITEMS = 10
"""Below this many items rated at least twice, alpha moves a lot with one rating."""


def alpha_note(
    ratings: Iterable[Triple], *, alpha: float | None, threshold: float | None = None
) -> str:
    """Why an alpha should not be read at face value ("" when nothing stands out): why it
    is undefined, or unstable (few items; values all on one side of a binarizing
    `threshold`; two values at most, the "kappa paradox")."""
    by_item = {item: values for item, values in _collect(ratings).items() if len(values) >= 2}
    values = [value for item_values in by_item.values() for value in item_values.values()]
    distinct = set(values)
    if alpha is None:
        if len(by_item) < 2:
            return "Undefined: fewer than two items have two ratings or more."
        return "Undefined: every rating has the same value, so no disagreement is expected."
    notes = []
    one_side = threshold is not None and (
        all(value >= threshold for value in values) or all(value < threshold for value in values)
    )
    if one_side:
        notes.append(
            f"Unstable: every rating is between {min(values):g} and {max(values):g}, on one "
            f"side of {threshold:g}, so pairwise agreement is 1 by construction while alpha "
            "weighs the small differences within that range (it can fall below 0)."
        )
    if not notes and len(distinct) <= 2:
        notes.append(
            "Unstable: the ratings use at most two values, so agreement expected by chance is "
            "high and a few differences swing alpha."
        )
    if len(by_item) < MIN_ALPHA_ITEMS:
        notes.append(
            f"Few items: {len(by_item)} have two ratings or more (under {MIN_ALPHA_ITEMS}), "
            "so one rating moves alpha a lot."
        )
    return " ".join(notes)


def _covered_tokens(
    spans: Sequence[Span], tokens: Sequence[tuple[int, int]], text_length: int
) -> set[int]:
    covered: set[int] = set()
    for start, end in spans:
        if not (0 <= start <= end <= text_length):
            raise ValueError(f"span ({start}, {end}) is not within a text of {text_length} chars")
        if start == end:
            continue
        covered.update(
            index
            for index, (token_start, token_end) in enumerate(tokens)
            if token_start < end and start < token_end
        )
    return covered


def _prf(predicted: set[int], reference: set[int]) -> dict[str, float]:
    if not predicted and not reference:
        return {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    common = len(predicted & reference)
    precision = common / len(predicted) if predicted else 0.0
    recall = common / len(reference) if reference else 0.0
    total = precision + recall
    f1 = 2 * precision * recall / total if total else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}


def span_token_scores(
    predicted: Sequence[Span], reference: Sequence[Span], text: str
) -> dict[str, float]:
    """Token-level precision, recall and F1 of one set of spans against another, and
    ``exact`` (1.0 when both cover the same tokens): the one implementation of span scores.
    Spans are ``[start, end)`` offsets into ``text`` (ValueError outside it), covering every
    ``\\w+`` token they overlap. Both sides empty score 1.0; one empty scores 0.0.
    """
    tokens = simple_token_spans(text)
    covered = _covered_tokens(predicted, tokens, len(text))
    truth = _covered_tokens(reference, tokens, len(text))
    return {**_prf(covered, truth), "exact": float(covered == truth)}


def span_agreement(
    alignments: Mapping[Hashable, Mapping[Hashable, Sequence[Span]]],
    texts: Mapping[Hashable, str],
) -> dict[str, Any]:
    """Span agreement between annotators: the mean over every item's *ordered* pairs of
    annotators ``(a, b)`` of :func:`span_token_scores` of ``a``'s spans against ``b``'s
    (``alignments[item][annotator]``, spans in ``texts[item]``). Mean precision therefore
    equals mean recall; ``f1`` is the mean per-pair F1. ``pairs`` counts the ordered pairs,
    ``items`` the items with two annotators; with none, the scores are None."""
    totals = {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    pairs = 0
    items = 0
    for item, by_annotator in alignments.items():
        if len(by_annotator) < 2:
            continue
        text = texts[item]
        tokens = simple_token_spans(text)
        covered = {
            annotator: _covered_tokens(spans, tokens, len(text))
            for annotator, spans in by_annotator.items()
        }
        items += 1
        for first, second in permutations(covered, 2):
            scores = _prf(covered[first], covered[second])
            for name in totals:
                totals[name] += scores[name]
            pairs += 1
    means = {name: (total / pairs if pairs else None) for name, total in totals.items()}
    return {**means, "pairs": pairs, "items": items}


def choice_accuracy(answers: Iterable[Triple], gold: Mapping[Hashable, Any]) -> float | None:
    """The share of answers ``(question, annotator, chosen)`` to questions in ``gold`` that
    chose the gold answer; None when there is none."""
    correct = total = 0
    for question, _annotator, chosen in answers:
        if question not in gold or _is_missing(chosen):
            continue
        total += 1
        correct += chosen == gold[question]
    return _ratio(correct, total)


def _crowdkit_labels(answers: Iterable[Triple], model) -> dict[Hashable, Any]:
    """Each question's most probable label under a crowd-kit `model`, a tie going to the
    smallest label. Questions and labels reach pandas as integer codes (labels in sorted
    order), so tuples, mixed types and booleans never meet its indexing."""
    by_question = _collect(answers)
    questions = list(by_question)
    labels = sorted(
        {label for values in by_question.values() for label in values.values()},
        key=_label_order_key,
    )
    label_code = {label: code for code, label in enumerate(labels)}
    worker_code: dict[Hashable, int] = {}
    rows = [
        (question_code, worker_code.setdefault(worker, len(worker_code)), label_code[label])
        for question_code, values in enumerate(by_question.values())
        for worker, label in values.items()
    ]
    if not rows:
        return {}
    import pandas as pd

    frame = pd.DataFrame(rows, columns=["task", "worker", "label"], dtype="int64")
    with warnings.catch_warnings():  # the deprecations crowd-kit 1.4 triggers in pandas >= 3
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", FutureWarning)
        probas = model.fit_predict_proba(frame)
    result = {}
    for task_code, row in probas.iterrows():
        best = row.max()
        tied = [labels[int(code)] for code, p in row.items() if best - p <= _TIE_TOLERANCE]
        result[questions[int(task_code)]] = _smallest(tied)
    return {question: result[question] for question in questions if question in result}


def majority_vote(answers: Iterable[Triple]) -> dict[Hashable, Any]:
    """The label most annotators chose for each question (crowd-kit ``MajorityVote``). A tie
    goes to the smallest label, broken here: crowd-kit's ``idxmax`` would follow the data."""
    from crowdkit.aggregation import MajorityVote

    return _crowdkit_labels(answers, MajorityVote())


def majority_vote_ties(answers: Iterable[Triple]) -> dict[Hashable, list[Any]]:
    """The questions whose most chosen label is shared by several labels: the tied labels,
    smallest first (as :func:`majority_vote` orders them). Questions with a clear majority
    are left out, so a tie is shown as a tie instead of as the tie-break's pick."""
    votes: dict[Hashable, Counter] = defaultdict(Counter)
    for question, _worker, label in answers:
        votes[question][label] += 1
    ties = {}
    for question, counts in votes.items():
        top = max(counts.values())
        tied = [label for label, count in counts.items() if count == top]
        if len(tied) > 1:
            first = _smallest(tied)
            ties[question] = [first, *sorted((t for t in tied if t != first), key=repr)]
    return ties


def dawid_skene(
    answers: Iterable[Triple], *, n_iter: int = 100, tol: float = 1e-5
) -> dict[Hashable, Any]:
    """The Dawid-Skene label of each question (crowd-kit ``DawidSkene``; Dawid & Skene 1979:
    EM over each annotator's confusion matrix from the majority-vote start, at most
    ``n_iter`` rounds or until the bound gains less than ``tol``): the label of highest
    posterior, ties broken as in :func:`majority_vote`. Deterministic."""
    from crowdkit.aggregation import DawidSkene

    return _crowdkit_labels(answers, DawidSkene(n_iter=n_iter, tol=tol))


def aggregate_accuracy(
    aggregated: Mapping[Hashable, Any], gold: Mapping[Hashable, Any]
) -> float | None:
    """The share of the questions in both mappings whose aggregated label is the gold one."""
    shared = [question for question in aggregated if question in gold]
    return _ratio(sum(aggregated[q] == gold[q] for q in shared), len(shared))


def worker_gold_accuracy(
    answers: Iterable[Triple], gold: Mapping[Hashable, Any]
) -> dict[Hashable, dict[str, Any]]:
    """Each annotator's ``{"correct", "total", "accuracy"}`` on the questions in ``gold``
    (annotators without a gold answer are absent), in first-seen order."""
    counts: dict[Hashable, list[int]] = {}
    for question, annotator, chosen in answers:
        if question not in gold or _is_missing(chosen):
            continue
        tally = counts.setdefault(annotator, [0, 0])
        tally[0] += chosen == gold[question]
        tally[1] += 1
    return {
        annotator: {"correct": correct, "total": total, "accuracy": correct / total}
        for annotator, (correct, total) in counts.items()
    }


def rating_summary(
    ratings: Iterable[Triple], *, criterion_levels: str = "ordinal", threshold: int = 3
) -> dict[str, Any]:
    """One rating criterion's items, ratings and mean, :func:`pairwise_binary_agreement` at
    ``threshold``, and :func:`krippendorff_alpha` at ``criterion_levels`` with its note."""
    triples = list(ratings)
    by_item = _collect(triples)
    values = [float(value) for values in by_item.values() for value in values.values()]
    alpha = krippendorff_alpha(triples, level=criterion_levels)
    return {
        "items": len(by_item),
        "ratings": len(values),
        "mean": _finite_or_none(sum(values) / len(values)) if values else None,
        "pairwise_agreement": pairwise_binary_agreement(triples, threshold=threshold),
        "alpha": alpha,
        "alpha_note": alpha_note(triples, alpha=alpha, threshold=threshold),
    }
