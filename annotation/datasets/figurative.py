"""Import and export of figurative narratives (idioms, similes) in the benchmark's JSONL layout.

`figurative_import` stores each narrative once (the same narrative on several lines is
one row with several option pairs) and is idempotent: importing the file again changes
nothing. A file with a bad line is refused whole (annotation/datasets/figurative_files.py
lists the lines). `figurative_export_lines` writes the narratives and their option pairs
(imported, and those made from approved crowd continuations) back in the same layout.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import asdict, dataclass, field

from django.db import transaction

from annotation.datasets.figurative_files import figurative_line, parse_figurative_file
from annotation.models import ContinuationPair, FigurativeNarrative
from annotation.quality.similarity_scan import figurative_similarity_check_task
from config.task_queue import queue_on_commit


@dataclass
class FigurativeImportReport:
    lines: int = 0
    narratives: int = 0
    narratives_created: int = 0
    pairs: int = 0
    pairs_created: int = 0
    errors: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def content_key(*, kind: str, text: str, expression: str, meaning: str) -> str:
    """The identity of a figurative narrative across imports."""
    joined = "\x1f".join((kind, text, expression, meaning))
    return hashlib.sha256(joined.encode()).hexdigest()


def shown_first_for(pair_id: int) -> int:
    """Which option (1 or 2) a pair shows first: random, fixed by the pair's id."""
    return random.Random(f"continuation-pair:{pair_id}").choice((1, 2))


@transaction.atomic
def continuation_pair_create(
    *,
    narrative: FigurativeNarrative,
    option1: str,
    option2: str,
    correct: int,
    source: str = ContinuationPair.Source.IMPORTED,
    continuation=None,
) -> tuple[ContinuationPair, bool]:
    """The pair of these options (created when new, with its stored display order)."""
    pair, created = ContinuationPair.objects.get_or_create(
        narrative=narrative,
        option1=option1,
        option2=option2,
        defaults={"correct": correct, "source": source, "continuation": continuation},
    )
    if created:
        pair.shown_first = shown_first_for(pair.pk)
        pair.save(update_fields=["shown_first"])
    return pair, created


@transaction.atomic
def figurative_import(*, content: bytes, kind: str, split: str = "") -> FigurativeImportReport:
    """Import a JSONL file of idiom or simile narratives; raises FigurativeFileError."""
    if split not in FigurativeNarrative.Split.values:
        raise ValueError(f"split must be one of train, dev, test, not {split!r}.")
    lines = parse_figurative_file(content, kind=kind)
    report = FigurativeImportReport(lines=len(lines))
    narratives: dict[str, FigurativeNarrative] = {}
    for line in lines:
        key = content_key(
            kind=kind, text=line.text, expression=line.expression, meaning=line.meaning
        )
        if key not in narratives:
            start, end = line.span if line.span else (None, None)
            narrative, created = FigurativeNarrative.objects.get_or_create(
                content_key=key,
                defaults={
                    "kind": kind,
                    "text": line.text,
                    "expression": line.expression,
                    "expression_start": start,
                    "expression_end": end,
                    "meaning": line.meaning,
                    "split": split,
                },
            )
            if not created and split and narrative.split != split:
                narrative.split = split
                narrative.save(update_fields=["split"])
            narratives[key] = narrative
            report.narratives_created += created
        if line.options is not None:
            option1, option2, correct = line.options
            _, created = continuation_pair_create(
                narrative=narratives[key], option1=option1, option2=option2, correct=correct
            )
            report.pairs += 1
            report.pairs_created += created
    report.narratives = len(narratives)
    # The dataset check of what this file brought, once the import commits.
    queue_on_commit(figurative_similarity_check_task, [n.pk for n in narratives.values()])
    return report


def figurative_export_lines(*, kind: str, split: str | None = None) -> list[str]:
    """Lines in the release layout: one per option pair, or one per narrative without any.

    Narratives a reviewer confirmed as literal use are left out; option pairs of crowd
    continuations appear once their continuation is approved (the pair exists then).
    """
    narratives = FigurativeNarrative.objects.filter(kind=kind, literal_use_confirmed=False)
    if split is not None:
        narratives = narratives.filter(split=split)
    lines = []
    for narrative in narratives.prefetch_related("option_pairs").order_by("id"):
        span = (
            (narrative.expression_start, narrative.expression_end)
            if narrative.expression_start is not None
            else None
        )
        common = {
            "kind": kind,
            "text": narrative.text,
            "expression": narrative.expression,
            "span": span,
            "meaning": narrative.meaning,
        }
        pairs = sorted(
            (pair for pair in narrative.option_pairs.all() if not pair.withdrawn),
            key=lambda pair: pair.pk,
        )
        if not pairs:
            lines.append(figurative_line(**common))
        lines.extend(
            figurative_line(**common, options=(pair.option1, pair.option2, pair.correct))
            for pair in pairs
        )
    return lines


def segments(narrative: FigurativeNarrative) -> list[dict]:
    """The narrative as text pieces, the expression's piece marked (rendered escaped)."""
    if narrative.expression_start is None:
        return [{"text": narrative.text, "mark": False}]
    start, end = narrative.expression_start, narrative.expression_end
    pieces = [
        {"text": narrative.text[:start], "mark": False},
        {"text": narrative.text[start:end], "mark": True},
        {"text": narrative.text[end:], "mark": False},
    ]
    return [piece for piece in pieces if piece["text"]]


def shown_order(pair: ContinuationPair) -> list[int]:
    """The options (1, 2) in the order the pair shows them."""
    return [1, 2] if pair.shown_first == 1 else [2, 1]


def option_text(pair: ContinuationPair, option: int) -> str:
    return pair.option1 if option == 1 else pair.option2
