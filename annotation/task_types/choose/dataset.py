"""What the choose type gives the dataset: the answers the analysis reads (ePiC Table 10),
its batches' agreement and aggregation, and the proverbs its options name."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Count, Max

from annotation.models import Proverb
from annotation.quality.agreement import (
    aggregate_accuracy,
    alpha_note,
    choice_accuracy,
    dawid_skene,
    krippendorff_alpha,
    majority_vote,
    majority_vote_ties,
    pairwise_label_agreement,
)
from annotation.quality.reports import counted
from annotation.task_parts.records import ChoiceRecord, ModelChoiceRecord
from annotation.task_types.choose.models import ChoiceAnswer, ChoiceQuestion
from crowd.models import Batch, BatchItem


def choice_records(counted_rows) -> dict[str, list]:
    """The answers in the analysis' scope (`counted_rows(narrative_field)`: a filter), and a
    model's answers to the same questions (those it answered)."""
    rows = (
        ChoiceAnswer.objects.filter(counted_rows("question__narrative_id"))
        .order_by("id")
        .values_list("question_id", "assignment__worker_id", "is_correct")
    )
    choices = [
        ChoiceRecord(question_id, str(worker), correct)
        for question_id, worker, correct in rows.iterator(chunk_size=5_000)
    ]
    answered = (
        ChoiceQuestion.objects.filter(
            pk__in={choice.question_id for choice in choices}, model_chosen__isnull=False
        )
        .order_by("id")
        .values_list("id", "model_chosen_id", "correct_id")
    )
    return {
        "choices": choices,
        "model_choices": [
            ModelChoiceRecord(pk, chosen == correct) for pk, chosen, correct in answered
        ],
    }


def state() -> list:
    return [ChoiceAnswer.objects.aggregate(n=Count("id"), last=Max("id"))]


def proverbs_in_options() -> dict[int, str]:
    """Proverbs named as options: ids in JSON, which no foreign key protects."""
    options: dict[int, int] = defaultdict(int)
    for question_options in ChoiceQuestion.objects.values_list("options", flat=True):
        for proverb_id in question_options:
            options[proverb_id] += 1
    return {pk: f"an option of {count} choice question(s)" for pk, count in options.items()}


def choice_agreement(*, batch: Batch) -> dict:
    """Human accuracy, pairwise agreement, nominal alpha, majority vote and Dawid-Skene."""
    rows = list(
        counted(ChoiceAnswer, batch).values_list(
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
