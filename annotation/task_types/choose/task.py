"""The "choose the proverb" task (ePiC §5.1.4, Appendix B): which of 5 proverbs does this
narrative illustrate? The answer and 4 distractors from a distractor source, shuffled once
per question (seeded by its id) and stored: every worker sees a question the same way.
"""

from __future__ import annotations

import random

from django import forms
from django.db import transaction

from annotation.models import Narrative, Proverb
from annotation.opponents.outcomes import (
    FOOLED_ONLY,
    FOOLED_ONLY_SCHEMA,
    fooled_only_clean,
    fooling_stories,
    validation_answer_reviewed,
)
from annotation.quality.gold import GOLD_SETTINGS_SCHEMA, GoldSettingsForm, clean_gold_settings
from annotation.task_parts.distractors import (
    SourceNotFound,
    distractors_for,
    get_source,
    source_choices,
    source_schema,
)
from annotation.task_parts.sources import (
    DRAW_DEFAULTS,
    DRAW_SETTINGS_SCHEMA,
    DrawnBatchForm,
    DrawnTaskType,
    clean_draw_settings,
    settings_object,
)
from annotation.task_types.choose import dataset
from annotation.task_types.choose.models import ChoiceAnswer, ChoiceQuestion
from crowd.models import Assignment, Batch
from crowd.task_types import SettingNotFound, SubmissionError

INSTRUCTIONS = """Read the story, then choose the proverb it illustrates. Only one of the \
proverbs is the one the story was written for; the others may look related. Think about the \
meaning of each proverb, not only about shared words."""


@transaction.atomic
def choice_question_create(
    *, narrative: Narrative, source: str = "lexical", options: int = 5, seed: int | str = 1
) -> ChoiceQuestion:
    """A question on the narrative: its proverb and options-1 distractors (fewer when the
    curated proverbs run short), shuffled and stored."""
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


def option_rows(question: ChoiceQuestion, *, chosen: int) -> list[tuple[str, bool, bool]]:
    """The question's options as review shows them: (text, correct, chosen)."""
    texts = Proverb.objects.in_bulk(question.options)
    return [
        (texts[pk].text if pk in texts else str(pk), pk == question.correct_id, pk == chosen)
        for pk in question.options
    ]


def gold_passed(item, chosen: int) -> bool | None:
    """Whether an answer to a gold item chose its known answer (None: not a gold item)."""
    return chosen == (item.gold_answer or {}).get("chosen") if item.is_gold else None


class ChooseBatchForm(GoldSettingsForm, DrawnBatchForm):
    """A choose-the-proverb batch: narratives, the distractor source, gold thresholds."""

    instructions_initial = INSTRUCTIONS

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
    fooled_only = forms.BooleanField(
        required=False,
        label="Only stories that fooled their opponent",
        help_text="Validation of a model-in-the-loop round: draw only the source batch's "
        "stories that fooled its opponent; a story whose answers mostly miss its proverb "
        "is left out of its round, and one they match counts (and earns its bonus).",
    )

    def type_settings(self) -> dict:
        data = self.cleaned_data
        return fooled_only_clean(
            {
                "distractors": data["distractors"],
                "options": data["options"],
                FOOLED_ONLY: data[FOOLED_ONLY],
                **self.gold_settings(),
            }
        )


class ChooseTask(DrawnTaskType):
    key = "choose"
    instructions = INSTRUCTIONS
    produces = "proverb choices"
    label = "Choose proverb"
    target_per_item = 3
    template = "frontend/choice.html"
    batch_form = ChooseBatchForm  # crowd/admin/batches.py offers "New Choose proverb batch"
    review_changelist = "admin:annotation_choiceanswer_changelist"  # review_url links there
    agreement_template = "task_types/choose/agreement.html"
    has_gold = True

    def default_settings(self) -> dict:
        return {"distractors": "lexical", "options": 5, **DRAW_DEFAULTS}

    def settings_schema(self) -> dict:
        return settings_object(
            {
                "distractors": source_schema(),
                "options": {"type": "integer", "minimum": 2, "maximum": 10},
                **GOLD_SETTINGS_SCHEMA,
                **DRAW_SETTINGS_SCHEMA,
                **FOOLED_ONLY_SCHEMA,
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
        return fooled_only_clean(clean_gold_settings(clean_draw_settings(cleaned)))

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

    def draw_filters(self, *, batch: Batch) -> dict:
        return {"among": fooling_stories() if batch.settings.get(FOOLED_ONLY) else None}

    def drawn_item(self, *, batch: Batch, narrative: Narrative) -> dict:
        return {"narrative": narrative, "choice_question": self._question(batch, narrative)}

    def _question(self, batch: Batch, narrative: Narrative) -> ChoiceQuestion:
        settings = batch.settings
        return choice_question_create(
            narrative=narrative,
            source=settings.get("distractors", "lexical"),
            options=settings.get("options", 5),
            seed=settings.get("seed", 1),
        )

    def on_reviewed(self, *, assignment: Assignment, approved: bool) -> None:
        # A validation batch's answers decide whether their story counts in its round.
        validation_answer_reviewed(
            assignment=assignment,
            story_answers=ChoiceAnswer.objects.filter(
                question__narrative_id=assignment.item.narrative_id
            ),
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
        return dataset.choice_agreement(batch=batch)

    def analysis_records(self, *, counted) -> dict[str, list]:
        return dataset.choice_records(counted)

    def dataset_state(self) -> list:
        return dataset.state()

    def narratives_forget(self, *, narratives) -> None:
        ChoiceQuestion.objects.filter(narrative__in=narratives).delete()

    def proverbs_named(self) -> dict[int, str]:
        return dataset.proverbs_in_options()

    def narrative_items(self, *, batch: Batch, narratives: list, answers=None) -> list[dict]:
        """A question per narrative from the batch's distractor source, with the option a
        model picks (`answers(narrative, options)`: (proverb id, the model's label))."""
        items = []
        for narrative in narratives:
            question = self._question(batch, narrative)
            if answers is not None:
                question.model_chosen_id, question.model_label = answers(
                    narrative, question.options
                )
                question.save(update_fields=["model_chosen", "model_label"])
            items.append({"narrative": narrative, "choice_question": question})
        return items

    def review_display(self, *, assignment: Assignment) -> dict:
        answer = ChoiceAnswer.objects.select_related("question__narrative").get(
            assignment=assignment
        )
        return {
            "kind": "choose",
            "narrative": answer.question.narrative.text,
            "options": [
                {"text": text, "correct": correct, "chosen": chosen}
                for text, correct, chosen in option_rows(answer.question, chosen=answer.chosen_id)
            ],
            "is_correct": answer.is_correct,
            "gold": gold_passed(assignment.item, answer.chosen_id),
        }


task_type = ChooseTask()
