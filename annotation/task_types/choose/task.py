"""The "choose the proverb" task: which of 5 proverbs does this narrative illustrate?

ePiC's human evaluation (§5.1.4, Appendix B): the correct proverb and 4
distractors from a distractor source, in an order shuffled once per question
(seeded by the question's id) and stored, so every worker sees a question the same
way and different questions are shuffled differently.
"""

from __future__ import annotations

import random
from collections import defaultdict

from django import forms
from django.db import transaction

from annotation.models import Narrative, Proverb
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
from annotation.quality.gold import GOLD_SETTINGS_SCHEMA, GoldSettingsForm, clean_gold_settings
from annotation.quality.reports import counted
from annotation.task_parts.sources import (
    DRAW_SETTINGS_SCHEMA,
    DrawnBatchForm,
    batch_lock,
    clean_draw_settings,
    narratives_to_add,
    settings_object,
    source_batch_check,
)
from annotation.task_types.choose.distractors import (
    SourceNotFound,
    distractors_for,
    get_source,
    source_choices,
    source_schema,
)
from annotation.task_types.choose.models import ChoiceAnswer, ChoiceQuestion
from crowd.batches import batch_items_add
from crowd.models import Assignment, Batch, BatchItem
from crowd.task_types import SettingNotFound, SubmissionError, TaskType, figure_text

INSTRUCTIONS = """Read the story, then choose the proverb it illustrates. Only one of the \
proverbs is the one the story was written for; the others may look related. Think about the \
meaning of each proverb, not only about shared words."""


@transaction.atomic
def choice_question_create(
    *, narrative: Narrative, source: str = "lexical", options: int = 5, seed: int | str = 1
) -> ChoiceQuestion:
    """A question on the narrative: its proverb and options-1 distractors, shuffled and stored.

    With fewer curated proverbs than distractors wanted, the question has fewer options.
    """
    distractors = distractors_for(narrative=narrative, source=source, count=options - 1, seed=seed)
    question = ChoiceQuestion.objects.create(
        narrative=narrative,
        correct=narrative.proverb,
        options=[narrative.proverb_id, *(p.pk for p in distractors)],
        distractor_source=source,
    )
    question.options = shuffled_options(question.options, question_id=question.pk)
    question.save(update_fields=["options"])
    return question


def shuffled_options(options: list[int], *, question_id: int) -> list[int]:
    """The options in the order fixed by the question's id."""
    ordered = sorted(options)
    random.Random(f"choice-options:{question_id}").shuffle(ordered)
    return ordered


class ChooseBatchForm(GoldSettingsForm, DrawnBatchForm):
    """A choose-the-proverb batch: narratives, the distractor source, gold thresholds."""

    distractors = forms.ChoiceField(
        choices=source_choices,
        initial="lexical",
        help_text=(
            "Where the wrong options come from: always curated proverbs, never the answer's "
            "merged variants nor a proverb too close to it (variant similarity 0.60 or more, "
            'as curation measures it: "Fortune favors the bold" is never a wrong option '
            'for "Fortune favours the brave").'
        ),
    )
    options = forms.IntegerField(min_value=2, max_value=10, initial=5)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["instructions"].initial = INSTRUCTIONS

    def type_settings(self) -> dict:
        data = self.cleaned_data
        return {
            "distractors": data["distractors"],
            "options": data["options"],
            **self.gold_settings(),
        }


class ChooseTask(TaskType):
    key = "choose"
    label = "Choose proverb"
    target_per_item = 3
    template = "frontend/choice.html"
    batch_form = ChooseBatchForm  # crowd/admin/batches.py offers "New Choose proverb batch"
    review_changelist = "admin:annotation_choiceanswer_changelist"  # review_url links there

    drawn_items = True
    agreement_template = "task_types/choose/agreement.html"
    has_gold = True

    def default_settings(self) -> dict:
        return {"distractors": "lexical", "options": 5, "sample": None, "seed": 1, "draw": []}

    def default_instructions(self) -> str:
        return INSTRUCTIONS

    def settings_schema(self) -> dict:
        return settings_object(
            {
                "distractors": source_schema(),
                "options": {"type": "integer", "minimum": 2, "maximum": 10},
                **GOLD_SETTINGS_SCHEMA,
                **DRAW_SETTINGS_SCHEMA,
            }
        )

    def clean_settings(self, settings: dict) -> dict:
        cleaned = {**self.default_settings(), **settings}
        try:
            get_source(cleaned["distractors"])
        except SourceNotFound as error:
            raise SettingNotFound(str(error)) from None
        except (LookupError, TypeError) as error:
            raise ValueError(str(error)) from None
        options = cleaned["options"]
        if isinstance(options, bool) or not isinstance(options, int) or not 2 <= options <= 10:
            raise ValueError("options must be a whole number from 2 to 10.")
        return clean_gold_settings(clean_draw_settings(cleaned))

    def page_context(self, *, assignment: Assignment) -> dict:
        question = assignment.item.choice_question
        texts = Proverb.objects.in_bulk(question.options)
        finished = assignment.status in Assignment.STORED
        result = self.result(assignment=assignment) if finished else None
        chosen = result["chosen"] if result else None
        return {
            "page_title": "Choose the proverb",
            "story": [{"text": question.narrative.text, "mark": False}],
            "question": "Which proverb does this story illustrate?",
            "options": [
                {"id": pk, "text": texts[pk].text, "chosen": pk == chosen}
                for pk in question.options
            ],
            "task_config": {"options": question.options, "result": result},
        }

    def validate(self, *, assignment: Assignment, payload: dict) -> dict:
        question = assignment.item.choice_question
        chosen = payload.get("chosen")
        if chosen is None:
            raise SubmissionError("Choose one of the proverbs.", field="chosen")
        if (
            isinstance(chosen, bool)
            or not isinstance(chosen, int)
            or chosen not in question.options
        ):
            raise SubmissionError(
                "That choice is not one of this question's proverbs; reload the page.",
                field="chosen",
            )
        return {"question": question, "chosen": chosen}

    def store(self, *, assignment: Assignment, cleaned: dict) -> None:
        question = cleaned["question"]
        ChoiceAnswer.objects.create(
            question=question,
            assignment=assignment,
            chosen_id=cleaned["chosen"],
            is_correct=cleaned["chosen"] == question.correct_id,
        )

    def result(self, *, assignment: Assignment) -> dict:
        # The correct answer is not revealed: gold items must stay unknown to workers.
        return {"chosen": assignment.choice_answer.chosen_id}

    @transaction.atomic
    def items_refresh(self, *, batch: Batch) -> int:
        batch_lock(batch)
        source_batch_check(batch, expected="write")
        items = [
            {"narrative": narrative, "choice_question": self._question(batch, narrative)}
            for narrative in narratives_to_add(batch=batch)
        ]
        return batch_items_add(batch=batch, items=items)

    def _question(self, batch: Batch, narrative: Narrative) -> ChoiceQuestion:
        settings = batch.settings
        return choice_question_create(
            narrative=narrative,
            source=settings.get("distractors", "lexical"),
            options=settings.get("options", 5),
            seed=settings.get("seed", 1),
        )

    def gold_item(self, *, batch: Batch, narrative: Narrative, answer: dict | None) -> dict:
        question = self._question(batch, narrative)
        return {
            "narrative": narrative,
            "choice_question": question,
            "is_gold": True,
            "gold_answer": {"chosen": question.correct_id},
        }

    def gold_outcomes(self, *, batch: Batch, statuses) -> list[tuple[int, int, bool]]:
        answers = ChoiceAnswer.objects.filter(
            assignment__item__batch=batch,
            assignment__item__is_gold=True,
            assignment__status__in=statuses,
        ).values_list(
            "assignment__item_id",
            "assignment__worker_id",
            "assignment__item__gold_answer",
            "chosen",
        )
        return [
            (item_id, worker_id, chosen == (answer or {}).get("chosen"))
            for item_id, worker_id, answer, chosen in answers.order_by("id")
        ]

    def result_records(self, *, batch: Batch, assignments: list[Assignment]) -> dict[int, dict]:
        """Per answer: the question, its narrative, options in order, correct, chosen."""
        answers = ChoiceAnswer.objects.filter(assignment__item__batch=batch).select_related(
            "question"
        )
        return {
            answer.assignment_id: {
                "question": answer.question_id,
                "narrative": answer.question.narrative_id,
                "options": answer.question.options,
                "correct": answer.question.correct_id,
                "chosen": answer.chosen_id,
                "is_correct": answer.is_correct,
                "distractor_source": answer.question.distractor_source,
            }
            for answer in answers
        }

    def agreement(self, *, batch: Batch) -> dict:
        return choice_agreement(batch=batch)

    def agreement_display(self, *, report: dict) -> dict:
        return {
            "choice_figures": {
                key: figure_text(value) for key, value in report.items() if key != "aggregated"
            }
        }

    def review_display(self, *, assignment: Assignment) -> dict:
        answer = ChoiceAnswer.objects.select_related("question__narrative").get(
            assignment=assignment
        )
        question = answer.question
        texts = Proverb.objects.in_bulk(question.options)
        item = assignment.item
        return {
            "kind": "choose",
            "narrative": question.narrative.text,
            "options": [
                {
                    "text": texts[pk].text if pk in texts else str(pk),
                    "correct": pk == question.correct_id,
                    "chosen": pk == answer.chosen_id,
                }
                for pk in question.options
            ],
            "is_correct": answer.is_correct,
            "gold": (answer.chosen_id == (item.gold_answer or {}).get("chosen"))
            if item.is_gold
            else None,
        }


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


task_type = ChooseTask()
