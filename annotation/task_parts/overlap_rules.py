"""The overlap rules of free-text task types (annotation.text.OverlapRules) as batch
settings: read from a batch's settings, and stated as a settings schema."""

from __future__ import annotations

from dataclasses import fields

from annotation.task_parts.sources import settings_object
from annotation.text import OverlapRules
from common.request_input import MAX_INT


def rules_schema() -> dict:
    """The overlap rules a free-text batch takes, as an OpenAPI schema: OverlapRules'
    fields, whole numbers from 0. That min_words <= max_words (a missing one taking its
    default) OverlapRules checks itself: no JSON Schema compares two values."""
    number = {"type": "integer", "minimum": 0, "maximum": MAX_INT}
    return settings_object({field.name: number for field in fields(OverlapRules)})


def batch_rules(settings: dict) -> OverlapRules:
    """The overlap rules of a free-text batch's settings (its "rules")."""
    return OverlapRules.from_dict(settings.get("rules"))
