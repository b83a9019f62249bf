"""Agreement, aggregation and quality control of one batch, read from the database.

Selectors: they load a batch's alignments, ratings or choices and hand plain
triples to annotation.quality.agreement (krippendorff and crowd-kit do the statistics).
Counted: submitted and approved work on regular items; rejected work and gold
items are left out (gold items feed quality control instead). Every result is a
JSON-safe dict, shown in the admin and returned by the API as is.
"""

from __future__ import annotations

from collections import defaultdict
from statistics import mean

from annotation.models import ChoiceAnswer, Narrative, Proverb, Rating, SpanPair
from annotation.quality import figurative
from annotation.quality.agreement import (
    aggregate_accuracy,
    alpha_note,
    choice_accuracy,
    dawid_skene,
    krippendorff_alpha,
    majority_vote,
    majority_vote_ties,
    pairwise_label_agreement,
    rating_summary,
    span_agreement,
)
from annotation.quality.gold import GOLD_DEFAULTS, worker_gold_report
from crowd.models import Assignment, Batch, BatchItem
from crowd.workers import worker_stats

COUNTED = (Assignment.Status.SUBMITTED, Assignment.Status.APPROVED)

# ePiC: "good" is a rating of 3 or more (Table 5 agreement, overall >= 3 vs < 3).
BINARY_THRESHOLD = 3


def _counted(model, batch: Batch):
    return model.objects.filter(
        assignment__item__batch=batch,
        assignment__status__in=COUNTED,
        assignment__item__is_gold=False,
        assignment__item__withdrawn_at__isnull=True,
    )


def alignment_agreement(*, batch: Batch) -> dict:
    """Span agreement between annotators (token P/R/F1), proverb and narrative sides apart."""
    rows = _counted(SpanPair, batch).values_list(
        "assignment__item_id",
        "assignment__worker_id",
        "assignment_id",
        "narrative_id",
        "proverb_start",
        "proverb_end",
        "narrative_start",
        "narrative_end",
    )
    proverb_side: dict = defaultdict(lambda: defaultdict(list))
    narrative_side: dict = defaultdict(lambda: defaultdict(list))
    narrative_of: dict[int, int] = {}
    pairs_per_alignment: dict[int, int] = defaultdict(int)
    for item, worker, assignment, narrative, p_start, p_end, n_start, n_end in rows:
        proverb_side[item][worker].append((p_start, p_end))
        narrative_side[item][worker].append((n_start, n_end))
        narrative_of[item] = narrative
        pairs_per_alignment[assignment] += 1
    narratives = Narrative.objects.select_related("proverb").in_bulk(set(narrative_of.values()))
    proverb_texts = {item: narratives[n].proverb.text for item, n in narrative_of.items()}
    narrative_texts = {item: narratives[n].text for item, n in narrative_of.items()}
    return {
        "alignments": len(pairs_per_alignment),
        "items": len(narrative_of),
        "pairs_per_alignment": mean(pairs_per_alignment.values()) if pairs_per_alignment else None,
        "proverb": span_agreement(proverb_side, proverb_texts),
        "narrative": span_agreement(narrative_side, narrative_texts),
    }


def _source_name(source: str, label: str) -> str:
    return f"{source}: {label}" if label else source


def rating_agreement(*, batch: Batch) -> dict:
    """Per criterion: mean, binarized pairwise agreement (>= 3), ordinal alpha; by source."""
    rows = list(
        _counted(Rating, batch).values_list(
            "assignment__item_id",
            "assignment__worker_id",
            "criterion",
            "value",
            "narrative__source",
            "narrative__source_label",
        )
    )
    criteria = [c["key"] for c in batch.settings.get("criteria", [])]
    criteria += sorted({criterion for _, _, criterion, *_ in rows} - set(criteria))
    labels = {c["key"]: c.get("label", c["key"]) for c in batch.settings.get("criteria", [])}
    by_criterion = {}
    for criterion in criteria:
        triples = [
            (item, worker, value) for item, worker, key, value, *_ in rows if key == criterion
        ]
        by_criterion[criterion] = {
            "label": labels.get(criterion, criterion),
            **rating_summary(triples, criterion_levels="ordinal", threshold=BINARY_THRESHOLD),
        }
    grouped: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for _, _, criterion, value, source, label in rows:
        grouped[_source_name(source, label)][criterion].append(value)
    by_source = {
        source: {
            criterion: {"mean": mean(values), "ratings": len(values)}
            for criterion, values in values_by_criterion.items()
        }
        for source, values_by_criterion in sorted(grouped.items())
    }
    return {
        "threshold": BINARY_THRESHOLD,
        "forms": len({(item, worker) for item, worker, *_ in rows}),
        "criteria": by_criterion,
        "by_source": by_source,
    }


def choice_agreement(*, batch: Batch) -> dict:
    """Human accuracy, pairwise agreement, nominal alpha, majority vote and Dawid-Skene."""
    rows = list(
        _counted(ChoiceAnswer, batch).values_list(
            "question_id", "assignment__worker_id", "chosen_id", "question__correct_id"
        )
    )
    answers = [(question, worker, chosen) for question, worker, chosen, _ in rows]
    gold = {question: correct for question, _, _, correct in rows}
    voted = majority_vote(answers)
    ties = majority_vote_ties(answers)
    modelled = dawid_skene(answers)
    alpha = krippendorff_alpha(answers, level="nominal")
    counts: dict[int, int] = defaultdict(int)
    for question, *_ in rows:
        counts[question] += 1
    tied_labels = {label for labels in ties.values() for label in labels}
    texts = Proverb.objects.in_bulk(
        {*gold.values(), *voted.values(), *modelled.values(), *tied_labels}
    )
    questions = [
        {
            "question": question,
            "answers": counts[question],
            "correct": gold[question],
            "correct_text": texts[gold[question]].text,
            "majority_vote": voted.get(question),
            "majority_vote_text": texts[voted[question]].text if question in voted else None,
            "majority_vote_tie": [texts[label].text for label in ties.get(question, [])],
            "dawid_skene": modelled.get(question),
            "dawid_skene_text": texts[modelled[question]].text if question in modelled else None,
        }
        for question in sorted(gold)
    ]
    return {
        "answers": len(answers),
        "questions": len(gold),
        "human_accuracy": choice_accuracy(answers, gold),
        **model_choice_figures(batch=batch),
        "pairwise_agreement": pairwise_label_agreement(answers),
        "alpha": alpha,
        "alpha_note": alpha_note(answers, alpha=alpha),
        "majority_vote_accuracy": aggregate_accuracy(voted, gold),
        "majority_vote_ties": len(ties),
        "dawid_skene_accuracy": aggregate_accuracy(modelled, gold),
        "aggregated": questions,
    }


def model_choice_figures(*, batch: Batch) -> dict:
    """A model's answers to the batch's questions (all of them, answered by humans or not)."""
    rows = list(
        BatchItem.objects.filter(
            batch=batch, is_gold=False, choice_question__model_chosen__isnull=False
        ).values_list(
            "choice_question__model_chosen_id",
            "choice_question__correct_id",
            "choice_question__model_label",
        )
    )
    correct = sum(1 for chosen, answer, _ in rows if chosen == answer)
    return {
        "model": ", ".join(sorted({label for *_, label in rows})) or None,
        "model_questions": len(rows),
        "model_accuracy": correct / len(rows) if rows else None,
    }


def quality_report(*, batch: Batch) -> dict:
    """Each worker's review figures and gold accuracy, and who is flagged for review."""
    settings = {**GOLD_DEFAULTS, **(batch.settings or {})}
    gold = worker_gold_report(batch=batch)
    workers = []
    for row in worker_stats(batch=batch):
        outcome = gold.get(row["worker"])
        workers.append(
            {
                **row,
                "gold_correct": outcome["correct"] if outcome else 0,
                "gold_total": outcome["total"] if outcome else 0,
                "gold_accuracy": outcome["accuracy"] if outcome else None,
                "flagged": bool(outcome and outcome["flagged"]),
            }
        )
    return {
        "gold_items": batch.items.filter(is_gold=True).count(),
        "gold_min_accuracy": settings["gold_min_accuracy"],
        "gold_min_answers": settings["gold_min_answers"],
        "flagged_workers": [row["worker"] for row in workers if row["flagged"]],
        "workers": workers,
    }


REPORTS = {
    "align": alignment_agreement,
    "rate": rating_agreement,
    "choose": choice_agreement,
    "continue": figurative.continuation_report,
    "continue_choice": figurative.continuation_choice_report,
    "cloze": figurative.cloze_report,
}


def batch_agreement(*, batch: Batch) -> dict:
    """Everything about one align, rate or choose batch's agreement, aggregation and quality."""
    report = {
        "batch": batch.pk,
        "name": batch.name,
        "task_type": batch.task_type,
        "source_batch": batch.source_batch_id,
        "items": batch.items.filter(is_gold=False).count(),
        "counted_statuses": list(COUNTED),
        "quality": quality_report(batch=batch),
    }
    if batch.task_type in REPORTS:
        report[batch.task_type] = REPORTS[batch.task_type](batch=batch)
    return report
