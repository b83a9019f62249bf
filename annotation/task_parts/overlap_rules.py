"""The overlap rules of free-text task types (annotation.text.OverlapRules) as batch
settings and their schema, and a narrative as review shows it: the words the rules count
marked, its overlap figures in words."""

from __future__ import annotations

from dataclasses import fields

from annotation.task_parts.sources import settings_object
from annotation.text import OverlapRules, check_overlap
from common.request_input import MAX_INT


def rules_schema() -> dict:
    """OverlapRules' fields as an OpenAPI schema, whole numbers from 0 (min_words <=
    max_words OverlapRules checks: no JSON Schema compares two values)."""
    number = {"type": "integer", "minimum": 0, "maximum": MAX_INT}
    return settings_object({field.name: number for field in fields(OverlapRules)})


def rules_entered(data: dict) -> dict:
    """The overlap rules a batch form's cleaned data holds (a field per rule)."""
    return {field.name: data.get(field.name) for field in fields(OverlapRules)}


def batch_rules(settings: dict) -> OverlapRules:
    """The overlap rules of a free-text batch's settings (its "rules")."""
    return OverlapRules.from_dict(settings.get("rules"))


def marked_pieces(proverb: str, text: str) -> list[dict]:
    """The text in pieces, the words a rule counts marked ({"text", "mark"}), as the task
    page marks them."""
    pieces, position = [], 0
    for start, end in check_overlap(proverb, text, {"min_words": 0})["highlights"]:
        pieces.append({"text": text[position:start], "mark": False})
        pieces.append({"text": text[start:end], "mark": True})
        position = end
    pieces.append({"text": text[position:], "mark": False})
    return [piece for piece in pieces if piece["text"]]


def overlap_lines(overlap: dict) -> list[str]:
    """A narrative's stored overlap figures as short lines."""
    lines = [
        f"{n}-grams shared: {overlap[str(n)]['shared']} of {overlap[str(n)]['proverb']}"
        for n in (1, 2, 3)
        if isinstance(overlap.get(str(n)), dict)
    ]
    if "shared_content_words" in overlap:
        counted = overlap["shared_content_words"]
        lines.append(
            f"Proverb words used (the rule's count, small words left out): {len(counted)}"
            + (f" ({', '.join(counted)})" if counted else "")
        )
    if overlap.get("longest_shared_ngram"):
        lines.append(
            "Longest phrase from the proverb: " + " ".join(overlap["longest_shared_ngram"])
        )
    if overlap.get("shared_words"):
        lines.append(
            "All words in common, small ones included: " + ", ".join(overlap["shared_words"])
        )
    return lines
