"""How a written narrative is shown for review: its text with the words the overlap rules
count marked, and its stored overlap figures in words (the review queue and the narrative
list)."""

from __future__ import annotations

from annotation.text import check_overlap


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
