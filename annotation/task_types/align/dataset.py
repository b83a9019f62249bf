"""What the align type gives the dataset: each narrative's span pairs (imported, or of
approved alignments), read, stored from a dataset file, and counted."""

from __future__ import annotations

from django.db.models import Count, Max, Q

from annotation.task_parts import spans
from annotation.task_types.align.models import SpanPair
from common.id_ranges import of_ids
from common.prose import paper_number, plural
from crowd.task_types import NarrativePart

SPAN_PAIRS = NarrativePart(
    name="span_pairs",
    definition=(
        "Aligned span pairs: alignment (1 = imported or earliest approved alignment), position "
        "(slot 1-5), proverb_start/proverb_end and narrative_start/narrative_end ([start, end) "
        "character offsets into proverb and narrative), proverb_span and narrative_span (the "
        "strings as annotated), ambiguous (the imported string occurred more than once; first "
        "occurrence taken), annotator (hashed like worker)."
    ),
    fields=(
        ("alignment", "int32"),
        ("position", "int32"),
        ("proverb_start", "int32"),
        ("proverb_end", "int32"),
        ("proverb_span", "string"),
        ("narrative_start", "int32"),
        ("narrative_end", "int32"),
        ("narrative_span", "string"),
        ("ambiguous", "bool_"),
        ("annotator", "string"),
    ),
    pseudonymized=("annotator",),
)
_SPAN_FIELDS = [name for name, _ in SPAN_PAIRS.fields[1:-1]]


def span_pairs_of(narrative_ids: list[int]) -> dict[int, list[dict]]:
    """Span pairs of the narratives (dicts of SPAN_PAIRS' fields): those imported with them
    and those of approved alignments still in use, by alignment then position."""
    wanted = set(narrative_ids)
    rows = (
        of_ids(SpanPair.objects, "narrative_id", narrative_ids)
        .filter(
            Q(assignment__isnull=True)
            | Q(assignment__status="approved", assignment__item__withdrawn_at__isnull=True)
        )
        .order_by("narrative_id", "position")
        .values_list(
            "narrative_id",
            "assignment_id",
            "assignment__worker__provider",
            "assignment__worker__external_id",
            *_SPAN_FIELDS,
        )
    )
    grouped: dict[int, list[dict]] = {}
    for nid, assignment_id, provider, worker_id, *values in rows:
        if nid in wanted:
            grouped.setdefault(nid, []).append(
                {
                    "alignment": assignment_id or 0,
                    **dict(zip(_SPAN_FIELDS, values, strict=True)),
                    "annotator": f"{provider}:{worker_id}" if assignment_id else None,
                }
            )
    for pairs in grouped.values():
        _number_alignments(pairs)
    return grouped


def _number_alignments(pairs: list[dict]) -> None:
    """Replace assignment ids (0: imported) by alignment numbers 1, 2, ... in that order:
    alignment 1 is the imported one, else the earliest approved (the one the ePiC format,
    the analysis and a run's snapshot use)."""
    numbers = {key: n for n, key in enumerate(sorted({p["alignment"] for p in pairs}), start=1)}
    for pair in pairs:
        pair["alignment"] = numbers[pair["alignment"]]
    if len(numbers) > 1:
        pairs.sort(key=lambda pair: (pair["alignment"], pair["position"]))


def span_pairs_store(rows) -> int:
    """Store imported span pairs, (narrative, [pair fields]) pairs, in place of those imported
    with these narratives before; how many were stored."""
    ids = [narrative.pk for narrative, _ in rows]
    for start in range(0, len(ids), 2_000):
        chunk = ids[start : start + 2_000]
        SpanPair.objects.filter(narrative_id__in=chunk, assignment__isnull=True).delete()
    created = SpanPair.objects.bulk_create(
        [SpanPair(narrative=narrative, **pair) for narrative, pairs in rows for pair in pairs],
        batch_size=2_000,
    )
    return len(created)


def imported_sentences(narratives) -> list[str]:
    """The methods section's sentence on the span pairs an import brought."""
    counts = SpanPair.objects.filter(narrative__in=narratives, assignment__isnull=True).aggregate(
        pairs=Count("id"),
        aligned=Count("narrative", distinct=True),
        ambiguous=Count("id", filter=Q(ambiguous=True)),
    )
    if not counts["pairs"]:
        return []
    ambiguous = f" ({paper_number(counts['ambiguous'])} ambiguous)" if counts["ambiguous"] else ""
    return [
        f"{plural(counts['pairs'], 'aligned span pair')} came with "
        f"{plural(counts['aligned'], 'narrative')}{ambiguous}."
    ]


def state() -> list:
    return [SpanPair.objects.aggregate(n=Count("id"), last=Max("id"))]


def drawing(assignment) -> dict:
    narrative = assignment.item.narrative
    return spans.drawing(
        proverb=narrative.proverb.text, narrative=narrative.text, pairs=assignment.span_pairs.all()
    )
