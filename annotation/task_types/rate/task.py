"""The "rate quality" task: Likert 1-5 judgements, on the batch's criteria (by default
ePiC's, §4.3), of drawn narratives (crowd, imported and model ones side by side) or of an
align batch's alignments ("how well do the aligned spans correspond").
"""

from __future__ import annotations

from collections import defaultdict

from django import forms
from django.db import transaction

from annotation.models import Narrative
from annotation.quality.gold import GOLD_SETTINGS_SCHEMA, GoldSettingsForm, clean_gold_settings
from annotation.task_parts import spans
from annotation.task_parts.imported import imported_narrative
from annotation.task_parts.sources import (
    DRAW_DEFAULTS,
    DRAW_SETTINGS_SCHEMA,
    DrawnBatchForm,
    DrawnTaskType,
    alignments_to_add,
    batch_lock,
    clean_draw_settings,
    settings_object,
    source_batch_check,
    source_drawing,
)
from annotation.task_types.rate import dataset
from annotation.task_types.rate.criteria import (
    ALIGNMENT_CRITERIA,
    CRITERIA_SCHEMA,
    NARRATIVE_CRITERIA,
    SCALE,
    SCALE_NOTE,
    clean_criteria,
    clean_gold_answer,
    criteria_entered,
    criterion_fields,
    criterion_labels,
    gold_passes,
)
from annotation.task_types.rate.models import Rating
from common.api_parser import CLEAN_TEXT
from common.prose import figure_text
from crowd.batches import batch_items_add
from crowd.models import Assignment, Batch, BatchItem
from crowd.task_types import SettingConflict, SubmissionError

TARGETS = ("narratives", "alignments")

INSTRUCTIONS = """Read the proverb and the story, then rate the story on every criterion from \
1 (lowest) to 5 (highest). The labels under each scale say what its ends and middle mean. \
3 leans positive: take a clear stand on each criterion."""

ALIGNMENT_INSTRUCTIONS = """Read the proverb and the story. Parts of them are marked in matching \
colours: each colour pairs a span of the proverb with a span of the story. Rate how well the \
paired spans correspond, from 1 (not at all) to 5 (perfectly). 3 leans positive."""


class RateBatchForm(GoldSettingsForm, DrawnBatchForm):
    """A rate-quality batch: narratives or alignments, criteria, gold thresholds."""

    source_makes = ("narratives", "alignments")

    target = forms.ChoiceField(
        choices=[
            ("narratives", "Narratives (from a writing batch or the dataset)"),
            ("alignments", "Alignments (from an align batch)"),
        ],
        initial="narratives",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        names, criteria = list(self.fields), criterion_fields()
        self.fields.update(criteria)  # right after the target, before the draws and gold
        self.order_fields([*names[: names.index("target") + 1], *criteria])

    def type_settings(self) -> dict:
        data = self.cleaned_data
        settings = {"target": data["target"], **self.gold_settings()}
        criteria = criteria_entered(data)
        if criteria is not None:
            settings["criteria"] = criteria
        return settings

    def clean(self):
        data = super().clean()
        if not self.errors:
            try:
                RateTask().clean_settings(self.batch_settings())
            except ValueError as error:
                raise forms.ValidationError(str(error)) from error
            if data["target"] == "alignments" and not data.get("source_batch"):
                raise forms.ValidationError("Alignments to rate come from an align batch.")
        return data


class RateTask(DrawnTaskType):
    key = "rate"
    instructions = INSTRUCTIONS
    produces = "ratings"
    narrative_parts = (dataset.RATINGS,)
    label = "Rate quality"
    target_per_item = 3
    template = "task_types/rate/page.html"
    batch_form = RateBatchForm  # crowd/admin/batches.py offers "New Rate quality batch"
    review_changelist = "admin:annotation_rating_changelist"  # review_url links there
    agreement_template = "task_types/rate/agreement.html"
    import_fields = ("proverb", "narrative", "rating.<criterion>")
    has_gold = True
    gold_answer_help = (
        'The accepted range per criterion, as the API takes it, e.g. [{"criterion": '
        '"relatedness", "max": 2}, {"criterion": "overall", "max": 2}] for a story that '
        'misses its proverb ({"relatedness": {"max": 2}, ...} is read too).'
    )

    def default_settings(self) -> dict:
        return {
            "target": "narratives",
            "criteria": NARRATIVE_CRITERIA,
            "scale_note": SCALE_NOTE,
            **DRAW_DEFAULTS,
        }

    def instructions_for(self, settings: dict) -> str:
        """The default instructions for these settings (alignments are rated differently)."""
        return ALIGNMENT_INSTRUCTIONS if settings.get("target") == "alignments" else INSTRUCTIONS

    def settings_schema(self) -> dict:
        properties = {
            "target": {"enum": list(TARGETS)},
            "criteria": CRITERIA_SCHEMA,
            "scale_note": {"type": "string", "pattern": CLEAN_TEXT},
            # the model run whose generated narratives the batch rates (a record only)
            "generation_run": {"type": "integer", "minimum": 1, "maximum": 2**63 - 1},
            **GOLD_SETTINGS_SCHEMA,
            **DRAW_SETTINGS_SCHEMA,
        }
        return {
            **settings_object(properties),
            # alignments are rated from a source align batch, not drawn
            "anyOf": [
                {"properties": {"target": {"enum": ["narratives"]}}},
                {"properties": {"draw": {"maxItems": 0}}},
            ],
        }

    def clean_settings(self, settings: dict) -> dict:
        cleaned = {**self.default_settings(), **settings}
        if cleaned["target"] not in TARGETS:
            raise ValueError(f"target must be one of {', '.join(TARGETS)}.")
        if cleaned["target"] == "alignments":
            if "criteria" not in settings:
                cleaned["criteria"] = ALIGNMENT_CRITERIA
            if settings.get("draw"):
                raise ValueError("Alignments are rated from a source align batch, not drawn.")
        cleaned["criteria"] = clean_criteria(cleaned["criteria"])
        cleaned["scale_note"] = str(cleaned.get("scale_note") or "")
        return clean_gold_settings(clean_draw_settings(cleaned))

    def page_context(self, *, assignment: Assignment) -> dict:
        item = assignment.item
        narrative = item.narrative
        settings = item.batch.settings
        finished = assignment.status in Assignment.STORED
        alignment = source_drawing(item.source_assignment)
        criteria = settings.get("criteria", NARRATIVE_CRITERIA)
        given = self.result(assignment=assignment)["ratings"] if finished else {}
        return {
            "narrative": narrative,
            "proverb": narrative.proverb,
            "alignment": alignment,
            "scale_note": settings.get("scale_note", SCALE_NOTE),
            "criteria": [
                {
                    **criterion,
                    "options": [
                        {
                            "value": value,
                            "anchor": criterion["anchors"].get(str(value), ""),
                            "chosen": given.get(criterion["key"]) == value,
                        }
                        for value in SCALE
                    ],
                }
                for criterion in criteria
            ],
            "task_config": {
                "criteria": [{"key": c["key"], "label": c["label"]} for c in criteria],
                "result": {"ratings": given} if finished else None,
            },
        }

    def validate(self, *, assignment: Assignment, payload: dict) -> dict:
        criteria = assignment.item.batch.settings.get("criteria", NARRATIVE_CRITERIA)
        ratings = payload.get("ratings")
        if not isinstance(ratings, dict):
            raise SubmissionError("The ratings could not be read; try again.", field="ratings")
        keys = [c["key"] for c in criteria]
        unknown = sorted(set(ratings) - set(keys))
        if unknown:
            raise SubmissionError(
                f"Unknown criteria: {', '.join(unknown)}.", field="ratings", details=unknown
            )
        labels = {c["key"]: c["label"] for c in criteria}
        missing = [key for key in keys if ratings.get(key) is None]
        if missing:
            raise SubmissionError(
                f"Rate every criterion: {', '.join(labels[k] for k in missing)} "
                f"{'is' if len(missing) == 1 else 'are'} missing.",
                field="ratings",
                details={"missing": missing},
            )
        cleaned = {}
        for key in keys:
            value = ratings[key]
            if isinstance(value, bool) or not isinstance(value, int) or value not in SCALE:
                raise SubmissionError(
                    f"{labels[key]}: choose a value from 1 to 5.",
                    field="ratings",
                    details={"invalid": [key]},
                )
            cleaned[key] = value
        return {"ratings": cleaned}

    def store(self, *, assignment: Assignment, cleaned: dict) -> None:
        item = assignment.item
        Rating.objects.bulk_create(
            Rating(
                narrative_id=item.narrative_id,
                alignment_id=item.source_assignment_id,
                assignment=assignment,
                criterion=key,
                value=value,
            )
            for key, value in cleaned["ratings"].items()
        )

    def result(self, *, assignment: Assignment) -> dict:
        return {"ratings": {r.criterion: r.value for r in assignment.ratings.order_by("id")}}

    @transaction.atomic
    def items_refresh(self, *, batch: Batch) -> int:
        if batch.settings.get("target") != "alignments":
            return super().items_refresh(batch=batch)
        batch_lock(batch)
        source_batch_check(batch, makes="alignments")
        items = [
            {"narrative": a.item.narrative, "source_assignment": a}
            for a in alignments_to_add(batch=batch)
        ]
        return batch_items_add(batch=batch, items=items)

    def gold_item(self, *, batch: Batch, narrative: Narrative, answer: dict | None) -> dict:
        if batch.settings.get("target") == "alignments":
            raise SettingConflict("Gold items are for batches rating narratives.")
        criteria = batch.settings.get("criteria", NARRATIVE_CRITERIA)
        return {
            "narrative": narrative,
            "is_gold": True,
            "gold_answer": clean_gold_answer(answer, criteria),
        }

    def gold_outcomes(self, *, batch: Batch, statuses) -> list[tuple[int, int, bool]]:
        ratings = Rating.objects.filter(
            assignment__item__batch=batch,
            assignment__item__is_gold=True,
            assignment__status__in=statuses,
        ).values_list(
            "assignment_id",
            "assignment__item_id",
            "assignment__worker_id",
            "assignment__item__gold_answer",
            "criterion",
            "value",
        )
        by_assignment: dict[int, dict] = defaultdict(dict)
        who: dict[int, tuple] = {}
        for assignment_id, item_id, worker_id, answer, criterion, value in ratings:
            by_assignment[assignment_id][criterion] = value
            who[assignment_id] = (item_id, worker_id, answer)
        return [
            (item_id, worker_id, gold_passes(answer, by_assignment[assignment_id]))
            for assignment_id, (item_id, worker_id, answer) in sorted(who.items())
        ]

    def result_records(self, *, batch: Batch, assignments: list[Assignment]) -> dict[int, dict]:
        """Per rating form: its target, the narrative's source, the ratings by criterion."""
        rows = (
            Rating.objects.filter(assignment__item__batch=batch)
            .select_related("narrative")
            .order_by("assignment_id", "id")
        )
        records: dict[int, dict] = {}
        for row in rows:
            record = records.setdefault(
                row.assignment_id,
                {
                    "narrative": row.narrative_id,
                    "alignment": row.alignment_id,
                    "source": row.narrative.source,
                    "source_label": row.narrative.source_label,
                    "ratings": {},
                },
            )
            record["ratings"][row.criterion] = row.value
        return records

    def agreement(self, *, batch: Batch) -> dict:
        return dataset.rating_agreement(batch=batch)

    def narrative_parts_of(self, *, narrative_ids: list[int]) -> dict[str, dict[int, list]]:
        return {dataset.RATINGS.name: dataset.rating_summaries(narrative_ids)}

    def analysis_records(self, *, counted) -> dict[str, list]:
        return {"ratings": dataset.rating_records(counted)}

    def dataset_state(self) -> list:
        return dataset.state()

    def agreement_display(self, *, report: dict) -> dict:
        criteria = list(report["criteria"])
        return {
            "criterion_rows": [
                {key: figure_text(value) for key, value in row.items()}
                for row in report["criteria"].values()
            ],
            "criteria_labels": [report["criteria"][c]["label"] for c in criteria],
            "source_rows": [
                {
                    "source": source,
                    "cells": [
                        f"{figure_text(by_criterion[c]['mean'])} (n={by_criterion[c]['ratings']})"
                        if c in by_criterion
                        else "—"
                        for c in criteria
                    ],
                }
                for source, by_criterion in report["by_source"].items()
            ],
        }

    def review_display(self, *, assignment: Assignment) -> dict:
        item = assignment.item
        narrative = Narrative.objects.select_related("proverb").get(pk=item.narrative_id)
        given = {rating.criterion: rating.value for rating in assignment.ratings.order_by("id")}
        display = {
            "kind": "rate",
            "proverb": narrative.proverb.text,
            "ratings": [
                {"label": label, "value": value} for label, value in labelled(item.batch, given)
            ],
            "gold": gold_passes(item.gold_answer, given) if item.is_gold else None,
        }
        if item.source_assignment_id is not None:
            display["alignment"] = spans.review_drawing(source_drawing(item.source_assignment))
        else:
            display["narrative"] = narrative.text
        return display

    def import_subject(self, *, batch: Batch, fields: dict[str, str]) -> dict:
        return {"narrative": imported_narrative(batch=batch, fields=fields)}

    def import_payload(self, *, item: BatchItem, fields: dict[str, str]) -> dict:
        """Ratings from the fields rating.<criterion>."""
        ratings = {}
        for name, value in fields.items():
            if name.startswith("rating."):
                if not value.isdigit():
                    raise SubmissionError(
                        f"Rating {name[7:]} {value!r} is not a number from 1 to 5."
                    )
                ratings[name[7:]] = int(value)
        return {"ratings": ratings}


def labelled(batch: Batch, ratings: dict[str, int]) -> list[tuple[str, int]]:
    """Ratings by criterion as (the criterion's label in the batch, value)."""
    labels = criterion_labels(batch.settings)
    return [(labels.get(criterion, criterion), value) for criterion, value in ratings.items()]


task_type = RateTask()
