"""Inter-annotator agreement and label aggregation, as plain Python.

No Django imports: the analyses call these functions with plain tuples and
mappings taken from the database, and scripts call them on exported data.

Conventions shared by every function here:

* A *rating* (or *answer*) is a triple ``(item, annotator, value)``. Items,
  annotators and labels are any hashable values (ints, strings, tuples).
* A value of ``None`` or NaN is a missing rating and is skipped.
* An annotator gives at most one value per item. A second, different value for
  the same ``(item, annotator)`` raises ``ValueError`` (it means the data were
  gathered wrongly; the platform stores each submission once). An exact
  repeat of the same triple is tolerated and counted once.
* Whatever cannot be computed (empty input, no item with two ratings, a
  degenerate Krippendorff's alpha) is ``None``; no returned number is NaN.

Well-kept libraries do the statistics: ``krippendorff`` for alpha and
``crowd-kit`` for majority vote and Dawid-Skene. They (and numpy and pandas, which
crowd-kit pulls in with scipy and nltk) are imported by the functions that use them:
the admin and API import this module, and a web worker should not pay for them.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import combinations, permutations
from typing import TYPE_CHECKING, Any

from annotation.text import simple_token_spans

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "aggregate_accuracy",
    "alpha_note",
    "choice_accuracy",
    "dawid_skene",
    "krippendorff_alpha",
    "majority_vote",
    "majority_vote_ties",
    "pairwise_binary_agreement",
    "pairwise_label_agreement",
    "rating_summary",
    "span_agreement",
    "span_token_prf",
    "span_token_scores",
    "worker_gold_accuracy",
]

Triple = tuple[Hashable, Hashable, Any]
Span = tuple[int, int]

LEVELS = ("nominal", "ordinal", "interval", "ratio")


# Probabilities closer than this are a tie when picking an aggregated label.
_TIE_TOLERANCE = 1e-9


# --------------------------------------------------------------------------- helpers


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
    """Group ``(item, annotator, value)`` triples as ``{item: {annotator: value}}``.

    Items and annotators keep their first-seen order. Missing values are skipped;
    conflicting values for one ``(item, annotator)`` raise ``ValueError``.
    """
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
    """Deterministic order over labels of possibly mixed types.

    Real numbers come first in numeric order, everything else after them, in
    the order of ``(type name, repr)``.
    """
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


# --------------------------------------------------------------------------- pairwise agreement


def pairwise_label_agreement(labels: Iterable[Triple]) -> float | None:
    """Average pairwise agreement on labels compared for equality.

    For every item labelled by at least two annotators, the fraction of the
    unordered pairs of its annotators that gave equal labels; then the
    unweighted mean of those fractions over the items. Items with a single
    label are left out. This is "how often two judges agree on a label for a
    sample" (ePiC, Ghosh & Srivastava 2022; their MCQ human evaluation reports
    0.735). Returns None when no item has two labels.
    """
    fractions = []
    for values in _collect(labels).values():
        pairs = list(combinations(values.values(), 2))
        if pairs:
            fractions.append(sum(a == b for a, b in pairs) / len(pairs))
    return sum(fractions) / len(fractions) if fractions else None


def pairwise_binary_agreement(ratings: Iterable[Triple], *, threshold: int = 3) -> float | None:
    """ePiC's average pairwise agreement on a Likert rating made binary.

    Each rating becomes *good* if ``value >= threshold`` and *poor* otherwise
    (ePiC: overall score >= 3 vs < 3). Then, as in
    :func:`pairwise_label_agreement`: for each item with at least two ratings,
    the fraction of unordered annotator pairs on the same side of the
    threshold; the mean of those fractions over the items. None when no item
    has two ratings.
    """
    binary = (
        (item, annotator, None if _is_missing(value) else float(value) >= threshold)
        for item, annotator, value in ratings
    )
    return pairwise_label_agreement(binary)


# --------------------------------------------------------------------------- Krippendorff's alpha


def krippendorff_alpha(ratings: Iterable[Triple], *, level: str) -> float | None:
    """Krippendorff's alpha of ``(item, annotator, value)`` ratings.

    ``alpha = 1 - D_o / D_e``, where D_o is the observed disagreement among
    the values given to the same item (each item with ``m_u >= 2`` values
    weighs its ordered pairs by ``1 / (m_u - 1)``) and D_e the disagreement
    expected among all those pairable values taken together, under the
    distance of ``level``: "nominal" (0 if equal, else 1), "ordinal" (squared
    rank distance from the marginal frequencies), "interval" (squared
    difference) or "ratio". Krippendorff (2011), "Computing Krippendorff's
    Alpha-Reliability"; computed by the ``krippendorff`` package from the
    reliability matrix (annotators x items, NaN where an annotator did not
    rate an item).

    Nominal labels may be any hashable values: they are mapped to integers
    first. Ordinal, interval and ratio values must be numbers (``ValueError``
    otherwise); ordinal uses their numeric order.

    Returns None when alpha is undefined or degenerate: fewer than two items
    with at least two ratings, or a single distinct value among the pairable
    ratings (no expected disagreement).
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
    """Why an alpha should not be read at face value ("" when nothing stands out).

    Undefined (None): fewer than two items rated twice, or one value throughout (no
    expected disagreement). Unstable: fewer than MIN_ALPHA_ITEMS items rated twice;
    pairable values all on one side of a binarizing `threshold` (pairwise agreement is
    then 1 by construction while alpha weighs small differences inside that side: all
    ratings in 3-5 can give alpha below 0); or two values at most, where agreement by
    chance is so high that a few differences swing alpha (the "kappa paradox").
    """
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


# --------------------------------------------------------------------------- spans


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


def span_token_prf(
    predicted: Sequence[Span], reference: Sequence[Span], text: str
) -> dict[str, float]:
    """Token-level precision, recall and F1 of one set of spans against another.

    Spans are ``(start, end)`` character offsets into ``text``, end exclusive,
    with ``0 <= start <= end <= len(text)`` (``ValueError`` otherwise). Tokens
    are the ``\\w+`` runs of ``text``; a span covers every token it overlaps by
    at least one character, so a span cutting through a word covers the whole
    word, and an empty span covers nothing. Each side becomes the set ``P`` or
    ``R`` of token indices covered by its spans (overlapping spans count a
    token once). Then precision = ``|P ∩ R| / |P|``, recall =
    ``|P ∩ R| / |R|``, F1 = their harmonic mean (0 when both are 0).

    Empty sets: both empty gives 1.0, 1.0, 1.0 (they agree that nothing is
    marked); exactly one empty gives 0.0, 0.0, 0.0 (the undefined ratio is
    taken as 0, like scikit-learn's ``zero_division=0``).
    """
    scores = span_token_scores(predicted, reference, text)
    del scores["exact"]
    return scores


def span_token_scores(
    predicted: Sequence[Span], reference: Sequence[Span], text: str
) -> dict[str, float]:
    """:func:`span_token_prf`'s precision, recall and F1, and ``exact``: 1.0 when both sides
    cover the same tokens, else 0.0. The one implementation of span scores: agreement
    here, and the span baselines' figures (modeling.training.metrics.span_scores)."""
    tokens = simple_token_spans(text)
    covered = _covered_tokens(predicted, tokens, len(text))
    truth = _covered_tokens(reference, tokens, len(text))
    return {**_prf(covered, truth), "exact": float(covered == truth)}


def span_agreement(
    alignments: Mapping[Hashable, Mapping[Hashable, Sequence[Span]]],
    texts: Mapping[Hashable, str],
) -> dict[str, Any]:
    """Span agreement between annotators as token-level precision, recall and F1.

    ``alignments[item][annotator]`` are the spans an annotator marked in
    ``texts[item]`` (for ePiC, compute the proverb side and the narrative side
    as separate items or separate calls). For every item and every *ordered*
    pair ``(a, b)`` of distinct annotators of that item, :func:`span_token_prf`
    scores ``a``'s spans as predicted against ``b``'s as reference; the result
    is the unweighted mean over all those pairs of precision, recall and F1.

    Because both orders of each pair are counted, and the precision of
    ``(a, b)`` is the recall of ``(b, a)``, mean precision equals mean recall.
    ``f1`` is the mean of the per-pair F1 scores (not the harmonic mean of the
    means). ``pairs`` is the number of ordered pairs, ``items`` the number of
    items with at least two annotators. With no such item, precision, recall
    and f1 are None.
    """
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


# --------------------------------------------------------------------------- multiple choice


def choice_accuracy(answers: Iterable[Triple], gold: Mapping[Hashable, Any]) -> float | None:
    """Fraction of individual answers equal to the gold answer.

    ``answers`` are ``(question, annotator, chosen)`` triples; answers to
    questions absent from ``gold`` and missing answers are ignored. None when
    no answer is left.
    """
    correct = total = 0
    for question, _annotator, chosen in answers:
        if question not in gold or _is_missing(chosen):
            continue
        total += 1
        correct += chosen == gold[question]
    return _ratio(correct, total)


def _crowdkit_frame(
    answers: Iterable[Triple],
) -> tuple[pd.DataFrame, list[Hashable], list[Any]]:
    """Answers as a crowd-kit frame of integer codes, with the code tables.

    Questions and labels are encoded as integers (labels in sorted order) so
    that tuples, mixed types and booleans never reach pandas' indexing.
    """
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
    import pandas as pd

    frame = pd.DataFrame(rows, columns=["task", "worker", "label"], dtype="int64")
    return frame, questions, labels


@contextmanager
def _quiet_pandas() -> Iterator[None]:
    """Silence the deprecation warnings crowd-kit 1.4 triggers in pandas >= 3."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", FutureWarning)
        yield


def _decide(probas: pd.DataFrame, questions: list[Hashable], labels: list[Any]) -> dict:
    """The most probable label of each question; ties go to the smallest label."""
    result = {}
    for task_code, row in probas.iterrows():
        best = row.max()
        tied = [labels[int(code)] for code, p in row.items() if best - p <= _TIE_TOLERANCE]
        result[questions[int(task_code)]] = _smallest(tied)
    return {question: result[question] for question in questions if question in result}


def majority_vote(answers: Iterable[Triple]) -> dict[Hashable, Any]:
    """Majority-vote label of each question (crowd-kit ``MajorityVote``).

    The label chosen by the most annotators of a question. Ties are broken
    here, not by crowd-kit (whose ``idxmax`` takes whichever tied label comes
    first in its column order, which follows the data): among the tied labels
    the smallest wins, by ``<`` when the labels compare and otherwise numbers
    first, then by type name and ``repr``. Empty input gives ``{}``.
    """
    from crowdkit.aggregation import MajorityVote

    frame, questions, labels = _crowdkit_frame(answers)
    if frame.empty:
        return {}
    with _quiet_pandas():
        probas = MajorityVote().fit_predict_proba(frame)
    return _decide(probas, questions, labels)


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
    """Dawid-Skene label of each question (crowd-kit ``DawidSkene``).

    Dawid & Skene (1979): each annotator has a confusion matrix
    ``P(answer | true label)`` and the labels a prior; EM, initialised from the
    majority-vote distributions, alternates estimating the posterior of each
    question's true label and re-estimating the confusion matrices and prior,
    for at most ``n_iter`` iterations or until the evidence lower bound gains
    less than ``tol``. Only labels somebody chose are candidates. The result
    is the label of highest posterior, ties broken as in :func:`majority_vote`.
    Deterministic for the same input. Empty input gives ``{}``.
    """
    from crowdkit.aggregation import DawidSkene

    frame, questions, labels = _crowdkit_frame(answers)
    if frame.empty:
        return {}
    with _quiet_pandas():
        probas = DawidSkene(n_iter=n_iter, tol=tol).fit_predict_proba(frame)
    return _decide(probas, questions, labels)


def aggregate_accuracy(
    aggregated: Mapping[Hashable, Any], gold: Mapping[Hashable, Any]
) -> float | None:
    """Fraction of questions whose aggregated label equals the gold label.

    Counted over the questions present in both mappings; None when there are
    none.
    """
    shared = [question for question in aggregated if question in gold]
    return _ratio(sum(aggregated[q] == gold[q] for q in shared), len(shared))


def worker_gold_accuracy(
    answers: Iterable[Triple], gold: Mapping[Hashable, Any]
) -> dict[Hashable, dict[str, Any]]:
    """Per-annotator accuracy on gold (control) questions, for quality control.

    ``{annotator: {"correct": int, "total": int, "accuracy": float}}`` over
    each annotator's answers to questions in ``gold``; annotators without a
    gold answer are absent. Annotators appear in first-seen order.
    """
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


# --------------------------------------------------------------------------- summary


def rating_summary(
    ratings: Iterable[Triple], *, criterion_levels: str = "ordinal", threshold: int = 3
) -> dict[str, Any]:
    """Summary of one rating criterion (e.g. one Likert criterion of one batch).

    ``items``: distinct items with at least one rating; ``ratings``: number of
    ratings; ``mean``: mean value (None without ratings);
    ``pairwise_agreement``: :func:`pairwise_binary_agreement` at
    ``threshold``; ``alpha``: :func:`krippendorff_alpha` at level
    ``criterion_levels``, with ``alpha_note`` (:func:`alpha_note`). Missing values are
    skipped throughout.
    """
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
