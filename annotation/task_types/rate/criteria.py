"""Rating criteria: ePiC's defaults (§4.3, Table 5), their checks, gold ranges, and the
batch form's criterion rows. A criterion is {"key", "label", "question", "anchors": {"1":
..., "5": ...}} on the 1-5 scale; a gold answer gives a range per criterion.
"""

from __future__ import annotations

from django import forms

from annotation.quality.gold import CRITERION_KEY, SCALE
from common.api_parser import CLEAN_TEXT
from crowd.task_types import SettingConflict

# ePiC: "good" is a rating of 3 or more (Table 5 agreement, overall >= 3 vs < 3).
BINARY_THRESHOLD = 3

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


_TEXT = {"type": "string", "pattern": CLEAN_TEXT}
# The criteria clean_criteria takes (but for a key used twice, which no schema can say).
CRITERIA_SCHEMA = {
    "type": "array",
    "minItems": 1,
    "items": {
        "type": "object",
        "additionalProperties": False,
        "required": ["key"],
        "properties": {
            "key": {"type": "string", "pattern": CRITERION_KEY.pattern},
            "label": _TEXT,
            "question": _TEXT,
            "anchors": {
                "type": "object",
                "additionalProperties": False,
                "properties": {str(value): _TEXT for value in SCALE},
            },
        },
    },
}


def clean_criteria(criteria) -> list[dict]:
    """The criteria of a batch's settings, checked: keys, labels, questions, anchors."""
    if not isinstance(criteria, list) or not criteria:
        raise ValueError("criteria must be a non-empty list.")
    cleaned, keys = [], set()
    for number, criterion in enumerate(criteria, start=1):
        if not isinstance(criterion, dict):
            raise ValueError(f"criterion {number} must be an object with key, label, question.")
        key = criterion.get("key", "")
        if not isinstance(key, str) or not CRITERION_KEY.match(key):
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


def clean_gold_answer(answer, criteria: list[dict]) -> dict:
    """A gold rating answer {criterion: {"min": a, "max": b}}, checked against the criteria
    (the API's and the admin's list of ranges arrive as this map: gold_ranges_by_criterion)."""
    keys = {c["key"] for c in criteria}
    needed = (
        'A gold rating item needs ranges such as [{"criterion": "relatedness", "max": 2}] '
        f"over this batch's criteria {', '.join(sorted(keys))}."
    )
    if answer is None:  # what the batch rates asks for them: a conflict with the batch
        raise SettingConflict(needed)
    if not isinstance(answer, dict) or not answer:
        raise ValueError(needed)
    cleaned = {}
    for key, bounds in answer.items():
        if key not in keys:
            raise SettingConflict(f"Gold answer: {key!r} is not a criterion of this batch.")
        if not isinstance(bounds, dict) or not bounds or set(bounds) - {"min", "max"}:
            raise ValueError(f'Gold answer for {key}: give "min" and/or "max".')
        low, high = bounds.get("min", 1), bounds.get("max", 5)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (low, high)) or not (
            1 <= low <= high <= 5
        ):
            raise ValueError(f"Gold answer for {key}: need 1 <= min <= max <= 5.")
        cleaned[key] = {"min": low, "max": high}
    return cleaned


def criterion_labels(settings: dict) -> dict[str, str]:
    """The labels of a batch's criteria, by key."""
    return {c["key"]: c.get("label", c["key"]) for c in settings.get("criteria", [])}


def gold_passes(answer: dict, ratings: dict[str, int]) -> bool:
    """True when every criterion of the gold answer was rated inside its range."""
    return all(
        key in ratings and bounds["min"] <= ratings[key] <= bounds["max"]
        for key, bounds in answer.items()
    )


class CriterionWidget(forms.MultiWidget):
    """One criterion as a row: key, label, question, and the anchors of 1 to 5."""

    template_name = "task_types/rate/criterion_widget.html"

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


def criterion_fields() -> dict[str, CriterionField]:
    """The batch form's criterion rows, ePiC's four filled in."""
    return {
        f"criterion_{row}": CriterionField(
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
        for row in range(1, CRITERION_ROWS + 1)
    }


def criteria_entered(data: dict) -> list[dict] | None:
    """The criterion rows filled in; None when they are ePiC's, unchanged (the target's
    default then applies)."""
    rows = (data.get(f"criterion_{row}") for row in range(1, CRITERION_ROWS + 1))
    criteria = [row for row in rows if row]
    if not criteria or criteria == clean_criteria(NARRATIVE_CRITERIA):
        return None
    return criteria
