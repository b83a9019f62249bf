"""The "choose the continuation" task (Chakrabarty, Choi & Shwartz 2022's human evaluation):
which of an option pair's two next sentences is the plausible one? Pairs come from a
continuation batch and/or imported ones; answers to unlabelled pairs have no correctness.
"""

from __future__ import annotations

from django import forms
from django.db import transaction
from django.db.models import Q

from annotation.models import ContinuationPair, FigurativeNarrative
from annotation.quality.agreement import (
    aggregate_accuracy,
    choice_accuracy,
    majority_vote,
    pairwise_label_agreement,
)
from annotation.quality.reports import counted
from annotation.task_parts.sources import (
    SAMPLE_SCHEMA,
    SEED_SCHEMA,
    SourcedBatchForm,
    batch_lock,
    clean_sampling,
    settings_keys_check,
    settings_object,
    source_batch_check,
    take,
)
from annotation.task_types.continuation_choice.models import ContinuationAnswer
from crowd.batches import batch_items_add
from crowd.models import Assignment, Batch
from crowd.task_types import SubmissionError, TaskType

INSTRUCTIONS = """Read the story: the highlighted expression is an idiom or a simile. Then \
choose the continuation that makes sense given what the expression means."""

IMPORTED_CHOICES = [("", "none"), ("any", "any split"), *FigurativeNarrative.Split.choices[1:]]


def clean_choice_settings(settings: dict) -> dict:
    """{"imported": {"kind": "idiom"|"simile"|"", "split": "any"|"train"|...}, sample, seed}."""
    cleaned = {"imported": {"kind": "", "split": ""}, "sample": None, "seed": 1, **settings}
    settings_keys_check(cleaned, {"imported", "sample", "seed"}, batch="choose-continuation")
    imported = cleaned["imported"]
    if not isinstance(imported, dict) or set(imported) - {"kind", "split"}:
        raise ValueError('imported must be like {"kind": "idiom", "split": "test"}.')
    kind, split = imported.get("kind", ""), imported.get("split", "")
    if kind not in ("", *FigurativeNarrative.Kind.values):
        raise ValueError("imported kind must be idiom, simile or empty.")
    if split not in [value for value, _ in IMPORTED_CHOICES]:
        raise ValueError("imported split must be any, train, dev, test or empty.")
    return {**clean_sampling(cleaned), "imported": {"kind": kind, "split": split if kind else ""}}


def pairs_to_add(*, batch: Batch) -> list[ContinuationPair]:
    """Pairs the batch should take now: the source batch's approved ones and imported ones."""
    settings = batch.settings
    in_batch = set(
        batch.items.filter(continuation_pair__isnull=False).values_list(
            "continuation_pair_id", flat=True
        )
    )
    wanted = Q(pk__in=[])
    if batch.source_batch_id is not None:
        wanted |= Q(
            continuation__assignment__item__batch_id=batch.source_batch_id,
            continuation__assignment__status=Assignment.Status.APPROVED,
        )
    imported = settings["imported"]
    if imported["kind"]:
        chosen = Q(source=ContinuationPair.Source.IMPORTED, narrative__kind=imported["kind"])
        if imported["split"] not in ("", "any"):
            chosen &= Q(split=imported["split"])
        wanted |= chosen
    # A confirmed literal use retires the crowd's continuations of the narrative only.
    candidates = ContinuationPair.objects.filter(wanted, withdrawn=False).exclude(
        source=ContinuationPair.Source.CROWD, narrative__literal_use_confirmed=True
    )
    fresh = [pk for pk in candidates.values_list("pk", flat=True) if pk not in in_batch]
    picked = take(
        fresh, taken=len(in_batch), sample=settings.get("sample"), seed=settings.get("seed", 1)
    )
    by_id = ContinuationPair.objects.in_bulk(picked)
    return [by_id[pk] for pk in picked]


class ContinuationChoiceBatchForm(SourcedBatchForm):
    """A choose-the-continuation batch: a continuation batch's output and/or imported pairs."""

    source_makes = ("continuations",)
    instructions_initial = INSTRUCTIONS

    imported_kind = forms.ChoiceField(
        choices=[("", "none"), *FigurativeNarrative.Kind.choices],
        required=False,
        label="Imported option pairs of",
    )
    imported_split = forms.ChoiceField(choices=IMPORTED_CHOICES[1:], required=False)
    sample = forms.IntegerField(min_value=1, required=False, help_text="Empty: all pairs.")
    seed = forms.IntegerField(initial=1)

    def clean(self):
        data = super().clean()
        if not self.errors and data.get("source_batch") is None and not data.get("imported_kind"):
            raise forms.ValidationError("Choose a continuation batch, imported pairs, or both.")
        return data

    def batch_settings(self) -> dict:
        data = self.cleaned_data
        return {
            "imported": {"kind": data["imported_kind"], "split": data["imported_split"] or "any"},
            "sample": data.get("sample"),
            "seed": data.get("seed") or 1,
        }


class ContinuationChoiceTask(TaskType):
    key = "continue_choice"
    produces = "continuation choices"
    label = "Choose the continuation"
    target_per_item = 3
    template = "frontend/choice.html"
    batch_form = ContinuationChoiceBatchForm
    review_changelist = "admin:annotation_continuationanswer_changelist"
    drawn_items = True
    agreement_template = "task_types/continue_choice/agreement.html"

    def default_settings(self) -> dict:
        return clean_choice_settings({})

    def default_instructions(self) -> str:
        return INSTRUCTIONS

    def settings_schema(self) -> dict:
        kind = {"enum": ["", *FigurativeNarrative.Kind.values]}
        imported = settings_object(
            {"kind": kind, "split": {"enum": [value for value, _ in IMPORTED_CHOICES]}}
        )
        return settings_object({"imported": imported, "sample": SAMPLE_SCHEMA, "seed": SEED_SCHEMA})

    def clean_settings(self, settings: dict) -> dict:
        return clean_choice_settings(settings)

    def page_context(self, *, assignment: Assignment) -> dict:
        pair = assignment.item.continuation_pair
        finished = assignment.status in Assignment.STORED
        chosen = assignment.continuation_answer.chosen if finished else None
        order = pair.shown_order()
        return {
            "page_title": "Choose the continuation",
            "story": pair.narrative.segments(),
            "question": "Which sentence continues the story in a way that makes sense?",
            "options": [
                {"id": option, "text": pair.option_text(option), "chosen": option == chosen}
                for option in order
            ],
            "task_config": {"options": order},
        }

    def validate(self, *, assignment: Assignment, payload: dict) -> dict:
        chosen = payload.get("chosen")
        if chosen is None:
            raise SubmissionError("Choose one of the two continuations.", field="chosen")
        if isinstance(chosen, bool) or chosen not in (1, 2):
            raise SubmissionError("That choice is not one of the two; reload the page.")
        return {"chosen": chosen}

    def store(self, *, assignment: Assignment, cleaned: dict) -> None:
        pair = assignment.item.continuation_pair
        ContinuationAnswer.objects.create(
            pair=pair,
            assignment=assignment,
            chosen=cleaned["chosen"],
            is_correct=None if pair.correct is None else cleaned["chosen"] == pair.correct,
        )

    def result(self, *, assignment: Assignment) -> dict:
        return {"chosen": assignment.continuation_answer.chosen}

    @transaction.atomic
    def items_refresh(self, *, batch: Batch) -> int:
        batch_lock(batch)
        source_batch_check(batch, makes="continuations")
        items = [{"continuation_pair": pair} for pair in pairs_to_add(batch=batch)]
        return batch_items_add(batch=batch, items=items)

    def agreement(self, *, batch: Batch) -> dict:
        return continuation_choice_report(batch=batch)

    def result_records(self, *, batch: Batch, assignments: list[Assignment]) -> dict[int, dict]:
        """Per answer: the option pair, its narrative and source, correct and chosen."""
        answers = ContinuationAnswer.objects.filter(assignment__item__batch=batch).select_related(
            "pair"
        )
        return {
            answer.assignment_id: {
                "pair": answer.pair_id,
                "narrative": answer.pair.narrative_id,
                "source": answer.pair.source,
                "correct": answer.pair.correct,
                "chosen": answer.chosen,
                "is_correct": answer.is_correct,
            }
            for answer in answers
        }


def continuation_choice_report(*, batch: Batch) -> dict:
    """Human accuracy against the known answer (the benchmark's human-performance
    figure), pairwise agreement and majority-vote accuracy; by narrative kind."""
    rows = list(
        counted(ContinuationAnswer, batch)
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


task_type = ContinuationChoiceTask()
