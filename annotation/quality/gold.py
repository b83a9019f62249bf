"""Gold (control) items with known answers, and each worker's accuracy on them. Every worker
is offered a batch's gold items and agreement leaves them out; a worker below the batch's
`gold_min_accuracy` after `gold_min_answers` of them is flagged.
"""

from __future__ import annotations

import re

from django import forms
from django.db import transaction

from annotation.models import Narrative
from annotation.quality.agreement import worker_gold_accuracy
from common.request_input import MAX_INT
from crowd import task_types
from crowd.batches import batch_items_add
from crowd.models import Assignment, Batch

GOLD_DEFAULTS = {"gold_min_accuracy": 0.75, "gold_min_answers": 3}
# The keys clean_gold_settings takes, as a settings schema's properties.
GOLD_SETTINGS_SCHEMA = {
    "gold_min_accuracy": {"type": "number", "minimum": 0, "maximum": 1},
    "gold_min_answers": {"type": "integer", "minimum": 1, "maximum": MAX_INT},
}


class GoldSettingsForm(forms.Form):
    """The two flagging thresholds, after a batch form's own fields: put it before the form
    it extends (`class F(GoldSettingsForm, DrawnBatchForm)`)."""

    gold_min_accuracy = forms.FloatField(
        min_value=0,
        max_value=1,
        initial=GOLD_DEFAULTS["gold_min_accuracy"],
        help_text="Workers below this accuracy on gold items are flagged for review.",
    )
    gold_min_answers = forms.IntegerField(
        min_value=1,
        initial=GOLD_DEFAULTS["gold_min_answers"],
        help_text="Gold answers a worker needs before they can be flagged.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in GOLD_DEFAULTS:
            self.fields[name] = self.fields.pop(name)

    def gold_settings(self) -> dict:
        """The thresholds from the cleaned data, as batch settings."""
        return {name: self.cleaned_data[name] for name in GOLD_DEFAULTS}


def clean_gold_settings(settings: dict) -> dict:
    """Check gold_min_accuracy (0 to 1) and gold_min_answers (>= 1); raises ValueError."""
    cleaned = {**GOLD_DEFAULTS, **settings}
    accuracy = cleaned["gold_min_accuracy"]
    if isinstance(accuracy, bool) or not isinstance(accuracy, int | float):
        raise ValueError("gold_min_accuracy must be a number from 0 to 1.")
    if not 0 <= accuracy <= 1:
        raise ValueError("gold_min_accuracy must be a number from 0 to 1.")
    answers = cleaned["gold_min_answers"]
    if isinstance(answers, bool) or not isinstance(answers, int) or answers < 1:
        raise ValueError("gold_min_answers must be a whole number of at least 1.")
    cleaned["gold_min_accuracy"] = float(accuracy)
    return cleaned


class NoGoldItems(ValueError):
    """The batch's task type takes no gold items: what the batch is forbids it (the API's
    409), whatever the request says."""


# The Likert scale of ratings (ePiC §4.3), and a criterion's key: a gold range is on it.
SCALE = (1, 2, 3, 4, 5)
CRITERION_KEY = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


class GoldConflict(ValueError):
    """Gold items the batch as it stands cannot take (a narrative it holds already): the
    API's 409."""


def gold_ranges_by_criterion(ranges: list) -> dict:
    """A rate answer as the API and the admin take it, ranges [{"criterion": key, "min": a,
    "max": b}], as `gold_items_add` does: {key: {"min": a, "max": b}}. ValueError for a
    range naming no criterion, or a criterion given twice (the bounds are the type's)."""
    answer = {}
    for entry in ranges:
        if not isinstance(entry, dict) or not isinstance(entry.get("criterion"), str):
            raise ValueError('Gold answer: each range is an object with its "criterion".')
        key = entry["criterion"]
        if key in answer:
            raise ValueError(f"Gold answer: give the range of {key!r} once.")
        answer[key] = {bound: value for bound, value in entry.items() if bound != "criterion"}
    return answer


@transaction.atomic
def gold_items_add(*, batch: Batch, narratives: list[Narrative], answer: dict | None = None) -> int:
    """Add gold items on these narratives, none already in the batch; how many were added.
    `answer` is what the type needs beyond the narrative (rating ranges; choice: none)."""
    task_type = task_types.get(batch.task_type)
    if not task_type.has_gold:
        raise NoGoldItems(f"{task_type.label} batches have no gold items.")
    present = set(batch.items.filter(narrative__in=narratives).values_list("narrative", flat=True))
    if present:
        listed = ", ".join(str(pk) for pk in sorted(present))
        raise GoldConflict(f"Narrative(s) {listed} are already items of this batch.")
    items = [task_type.gold_item(batch=batch, narrative=n, answer=answer) for n in narratives]
    return batch_items_add(batch=batch, items=items)


def worker_gold_report(*, batch: Batch) -> dict[int, dict]:
    """Per worker id: gold correct, total, accuracy, and whether they are flagged."""
    settings = {**GOLD_DEFAULTS, **(batch.settings or {})}
    # Every submitted answer counts for quality control, rejected ones included.
    task_type = task_types.get(batch.task_type)
    outcomes = task_type.gold_outcomes(batch=batch, statuses=Assignment.STORED)
    gold = {item: True for item, _, _ in outcomes}
    report = worker_gold_accuracy(outcomes, gold)
    return {
        worker: {
            **row,
            "flagged": row["total"] >= settings["gold_min_answers"]
            and row["accuracy"] < settings["gold_min_accuracy"],
        }
        for worker, row in report.items()
    }
