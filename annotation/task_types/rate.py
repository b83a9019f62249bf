"""The "rate quality" task: Likert 1-5 judgements of a narrative or of an alignment.

Criteria are set per batch and default to ePiC's (§4.3, Table 5): Relatedness,
Interesting/Creative, Fluency and Overall, each with anchored labels, 3 leaning
positive. Targets are narratives (from a writing batch, or drawn from the dataset
by source to compare crowd, imported and model narratives side by side) or the
alignments of an approved align batch ("how well do the aligned spans correspond").
"""

from __future__ import annotations

import re
from collections import defaultdict

from django import forms
from django.db import transaction

from annotation import spans
from annotation.models import Narrative, Rating, SpanPair
from annotation.quality.gold import GoldSettingsForm, clean_gold_settings
from annotation.task_types.sources import (
    DrawnBatchForm,
    alignments_to_add,
    batch_lock,
    clean_draw_settings,
    narratives_to_add,
    source_batch_check,
)
from crowd.batches import batch_items_add
from crowd.models import Assignment, Batch
from crowd.task_types import SubmissionError, TaskType, register

SCALE = (1, 2, 3, 4, 5)

NARRATIVE_CRITERIA = [
    {
        "key": "relatedness",
        "label": "Relatedness",
        "question": "How closely does the story reflect the meaning of the proverb?",
        "anchors": {
            "1": "Totally unrelated",
            "2": "Mostly unrelated",
            "3": "Related, loosely",
            "4": "Clearly related",
            "5": "Perfectly related",
        },
    },
    {
        "key": "interesting",
        "label": "Interesting/Creative",
        "question": "How much is the story like a short creative or interesting story?",
        "anchors": {
            "1": "Very uninteresting, boring",
            "2": "Dull",
            "3": "Somewhat interesting",
            "4": "Interesting",
            "5": "Very creative, story-like",
        },
    },
    {
        "key": "fluency",
        "label": "Fluency",
        "question": "How grammatically correct is the story's English?",
        "anchors": {
            "1": "Poor English with grammatical mistakes",
            "2": "Several mistakes",
            "3": "Readable, a few mistakes",
            "4": "Nearly perfect",
            "5": "Perfect English with no errors",
        },
    },
    {
        "key": "overall",
        "label": "Overall",
        "question": "Overall, how good is this story as an illustration of the proverb?",
        "anchors": {
            "1": "Very poor",
            "2": "Poor",
            "3": "Acceptable",
            "4": "Good",
            "5": "Excellent",
        },
    },
]

ALIGNMENT_CRITERIA = [
    {
        "key": "alignment",
        "label": "Alignment",
        "question": "How well do the coloured spans of the proverb correspond to the spans of "
        "the story with the same colour?",
        "anchors": {
            "1": "Not at all",
            "2": "Weakly",
            "3": "Reasonably",
            "4": "Well",
            "5": "Perfectly",
        },
    }
]

SCALE_NOTE = (
    "1 is the lowest and 5 the highest. 3 leans positive: choose 3 or more when what you "
    "rate is at least somewhat good on a criterion, 1 or 2 when it is not."
)

TARGETS = ("narratives", "alignments")
_KEY = re.compile(r"^[a-z][a-z0-9_]{0,63}$")

INSTRUCTIONS = """Read the proverb and the story, then rate the story on every criterion from \
1 (lowest) to 5 (highest). The labels under each scale say what its ends and middle mean. \
3 leans positive: take a clear stand on each criterion."""

ALIGNMENT_INSTRUCTIONS = """Read the proverb and the story. Parts of them are marked in matching \
colours: each colour pairs a span of the proverb with a span of the story. Rate how well the \
paired spans correspond, from 1 (not at all) to 5 (perfectly). 3 leans positive."""


def _clean_criteria(criteria) -> list[dict]:
    if not isinstance(criteria, list) or not criteria:
        raise ValueError("criteria must be a non-empty list.")
    cleaned, keys = [], set()
    for number, criterion in enumerate(criteria, start=1):
        if not isinstance(criterion, dict):
            raise ValueError(f"criterion {number} must be an object with key, label, question.")
        key = criterion.get("key", "")
        if not isinstance(key, str) or not _KEY.match(key):
            raise ValueError(
                f"criterion {number}: key must be lowercase letters, digits or _ (up to 64)."
            )
        if key in keys:
            raise ValueError(f"criterion {number}: key {key!r} is used twice.")
        keys.add(key)
        label = criterion.get("label") or key.replace("_", " ").capitalize()
        anchors = criterion.get("anchors") or {}
        if not isinstance(anchors, dict) or not set(map(str, anchors)) <= {str(v) for v in SCALE}:
            raise ValueError(f"criterion {key}: anchors are labels for the values 1 to 5.")
        cleaned.append(
            {
                "key": key,
                "label": str(label),
                "question": str(criterion.get("question", "")),
                "anchors": {str(value): str(text) for value, text in anchors.items()},
            }
        )
    return cleaned


def _clean_answer(answer, criteria: list[dict]) -> dict:
    """A gold rating answer {criterion: {"min": a, "max": b}}, checked against the criteria."""
    keys = {c["key"] for c in criteria}
    if not isinstance(answer, dict) or not answer:
        raise ValueError(
            'A gold rating item needs ranges such as {"relatedness": {"max": 2}} '
            f"over the criteria {', '.join(sorted(keys))}."
        )
    cleaned = {}
    for key, bounds in answer.items():
        if key not in keys:
            raise ValueError(f"Gold answer: {key!r} is not a criterion of this batch.")
        if not isinstance(bounds, dict) or not bounds or set(bounds) - {"min", "max"}:
            raise ValueError(f'Gold answer for {key}: give "min" and/or "max".')
        low, high = bounds.get("min", 1), bounds.get("max", 5)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (low, high)) or not (
            1 <= low <= high <= 5
        ):
            raise ValueError(f"Gold answer for {key}: need 1 <= min <= max <= 5.")
        cleaned[key] = {"min": low, "max": high}
    return cleaned


def gold_passes(answer: dict, ratings: dict[str, int]) -> bool:
    """True when every criterion of the gold answer was rated inside its range."""
    return all(
        key in ratings and bounds["min"] <= ratings[key] <= bounds["max"]
        for key, bounds in answer.items()
    )


class CriterionWidget(forms.MultiWidget):
    """One criterion as a row: key, label, question, and the anchors of 1 to 5."""

    template_name = "admin/annotation/rate/criterion_widget.html"

    def __init__(self):
        super().__init__(
            [
                forms.TextInput(attrs={"placeholder": "key", "size": 12}),
                forms.TextInput(attrs={"placeholder": "label", "size": 20}),
                forms.TextInput(attrs={"placeholder": "question", "size": 60}),
                *(
                    forms.TextInput(attrs={"placeholder": f"{value}: label", "size": 18})
                    for value in SCALE
                ),
            ]
        )

    def decompress(self, value):
        if not value:
            return [""] * (3 + len(SCALE))
        anchors = value.get("anchors", {})
        return [
            value.get("key", ""),
            value.get("label", ""),
            value.get("question", ""),
            *(anchors.get(str(scale), "") for scale in SCALE),
        ]


class CriterionField(forms.MultiValueField):
    """A rating criterion ({"key", "label", "question", "anchors"}), or None when no key."""

    widget = CriterionWidget

    def __init__(self, **kwargs):
        super().__init__(
            fields=(
                forms.CharField(max_length=64, required=False),
                forms.CharField(max_length=200, required=False),
                forms.CharField(max_length=500, required=False),
                *(forms.CharField(max_length=200, required=False) for _ in SCALE),
            ),
            require_all_fields=False,
            required=False,
            **kwargs,
        )

    def compress(self, data_list):
        if not data_list or not (data_list[0] or "").strip():
            return None
        key, label, question, *anchors = (value or "" for value in data_list)
        return {
            "key": key.strip(),
            "label": label.strip(),
            "question": question.strip(),
            "anchors": {
                str(scale): text.strip() for scale, text in zip(SCALE, anchors, strict=True) if text
            },
        }


CRITERION_ROWS = 6


class RateBatchForm(GoldSettingsForm, DrawnBatchForm):
    """A rate-quality batch: narratives or alignments, criteria, gold thresholds."""

    source_types = ("write", "align")

    target = forms.ChoiceField(
        choices=[
            ("narratives", "Narratives (from a writing batch or the dataset)"),
            ("alignments", "Alignments (from an align batch)"),
        ],
        initial="narratives",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["target_per_item"].initial = 3
        criteria = {}
        for row in range(1, CRITERION_ROWS + 1):
            criteria[f"criterion_{row}"] = CriterionField(
                label=f"Criterion {row}",
                initial=NARRATIVE_CRITERIA[row - 1] if row <= len(NARRATIVE_CRITERIA) else None,
                help_text=(
                    "ePiC's four criteria, editable: a key (lowercase), the label and question "
                    "workers see, and the labels of 1 to 5. Clear a key to drop a criterion; "
                    "fill an empty row to add one. Left as they are, a batch that rates "
                    "alignments uses its one Alignment criterion instead."
                )
                if row == 1
                else "",
            )
        # Right after the target, before the draws and gold thresholds.
        names = list(self.fields)
        position = names.index("target") + 1
        ordered = [*names[:position], *criteria, *names[position:]]
        self.fields.update(criteria)
        self.fields = {name: self.fields[name] for name in ordered}

    def criteria(self) -> list[dict] | None:
        """The criteria rows filled in; None when they are ePiC's, unchanged (the target's
        default then applies)."""
        rows = (self.cleaned_data.get(f"criterion_{row}") for row in range(1, CRITERION_ROWS + 1))
        criteria = [row for row in rows if row]
        if not criteria or criteria == _clean_criteria(NARRATIVE_CRITERIA):
            return None
        return criteria

    def type_settings(self) -> dict:
        data = self.cleaned_data
        settings = {"target": data["target"], **self.gold_settings()}
        criteria = self.criteria()
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
        if not self.errors and not (data.get("instructions") or "").strip():
            data["instructions"] = RateTask().instructions_for(self.batch_settings())
        return data


class RateTask(TaskType):
    key = "rate"
    label = "Rate quality"
    template = "frontend/tasks/rate.html"
    batch_form = RateBatchForm  # crowd/admin.py offers "New Rate quality batch"
    review_changelist = "admin:annotation_rating_changelist"  # review_url links there

    def default_settings(self) -> dict:
        return {
            "target": "narratives",
            "criteria": NARRATIVE_CRITERIA,
            "scale_note": SCALE_NOTE,
            "sample": None,
            "seed": 1,
            "draw": [],
        }

    def default_instructions(self) -> str:
        return INSTRUCTIONS

    def instructions_for(self, settings: dict) -> str:
        """The default instructions for these settings (alignments are rated differently)."""
        return ALIGNMENT_INSTRUCTIONS if settings.get("target") == "alignments" else INSTRUCTIONS

    def clean_settings(self, settings: dict) -> dict:
        cleaned = {**self.default_settings(), **settings}
        if cleaned["target"] not in TARGETS:
            raise ValueError(f"target must be one of {', '.join(TARGETS)}.")
        if cleaned["target"] == "alignments":
            if "criteria" not in settings:
                cleaned["criteria"] = ALIGNMENT_CRITERIA
            if settings.get("draw"):
                raise ValueError("Alignments are rated from a source align batch, not drawn.")
        cleaned["criteria"] = _clean_criteria(cleaned["criteria"])
        cleaned["scale_note"] = str(cleaned.get("scale_note") or "")
        return clean_gold_settings(clean_draw_settings(cleaned))

    def page_context(self, *, assignment: Assignment) -> dict:
        item = assignment.item
        narrative = item.narrative
        settings = item.batch.settings
        finished = assignment.status in Assignment.STORED
        alignment = None
        if item.source_assignment_id is not None:
            pairs = list(SpanPair.objects.filter(assignment_id=item.source_assignment_id))
            alignment = spans.drawing(
                proverb=narrative.proverb.text, narrative=narrative.text, pairs=pairs
            )
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
        batch_lock(batch)
        if batch.settings.get("target") == "alignments":
            source_batch_check(batch, expected="align")
            items = [
                {"narrative": a.item.narrative, "source_assignment": a}
                for a in alignments_to_add(batch=batch)
            ]
        else:
            source_batch_check(batch, expected="write")
            items = [{"narrative": n} for n in narratives_to_add(batch=batch)]
        return batch_items_add(batch=batch, items=items)

    def gold_item(self, *, batch: Batch, narrative: Narrative, answer: dict | None) -> dict:
        if batch.settings.get("target") == "alignments":
            raise ValueError("Gold items are for batches rating narratives.")
        criteria = batch.settings.get("criteria", NARRATIVE_CRITERIA)
        return {
            "narrative": narrative,
            "is_gold": True,
            "gold_answer": _clean_answer(answer, criteria),
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

    def batch_results(self, *, batch: Batch) -> list[dict]:
        """One record per submitted rating form: target, source of the narrative, ratings."""
        rows = (
            Rating.objects.filter(assignment__item__batch=batch)
            .select_related("assignment__item", "narrative")
            .order_by("assignment_id", "id")
        )
        records: dict[int, dict] = {}
        for row in rows:
            record = records.setdefault(
                row.assignment_id,
                {
                    "assignment": row.assignment_id,
                    "item": row.assignment.item_id,
                    "is_gold": row.assignment.item.is_gold,
                    "worker": row.assignment.worker_id,
                    "status": row.assignment.status,
                    "narrative": row.narrative_id,
                    "alignment": row.alignment_id,
                    "source": row.narrative.source,
                    "source_label": row.narrative.source_label,
                    "ratings": {},
                },
            )
            record["ratings"][row.criterion] = row.value
        return list(records.values())


register(RateTask())
