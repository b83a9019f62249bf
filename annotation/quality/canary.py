"""The canary: a batch's hidden instruction (IntegritySettings.canary_word) and the flag
of a story that follows it. Pure: no Django. The page carries the instruction out of sight
and out of the accessibility tree (frontend/tasks/_canary.html).
"""

from __future__ import annotations

import re

from annotation.quality.integrity import Flag, IntegritySettings


def canary_found(text: str, *, settings: IntegritySettings) -> dict | None:
    """What a story that follows the batch's canary stores: {"word", "instruction"} when the
    canary word appears in it as a word (case-folded), else None."""
    word = settings.canary_word.casefold()
    if not word:
        return None
    pattern = re.compile(rf"(?<!\w){re.escape(word)}(?!\w)")
    if not pattern.search(text.casefold()):
        return None
    return {"word": settings.canary_word, "instruction": settings.canary_text}


def canary_flags(canary: dict | None) -> list[Flag]:
    """The canary flag of a story that followed the hidden instruction (see canary_found)."""
    if not canary:
        return []
    return [
        Flag(
            "canary",
            f"The story uses “{canary['word']}”, the word the task page's hidden instruction "
            f"asked for. Sighted readers and screen readers do not get that instruction; it "
            f"comes along when the task text is copied, for example into a language model. "
            f"The instruction: “{canary['instruction']}”",
            dict(canary),
        )
    ]
