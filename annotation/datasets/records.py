"""Selectors that read the dataset in chunks (flat memory, no N+1): export rows, record pks.
What the task types keep of a narrative (span pairs, ratings) comes from the registered
types (`narrative_parts`)."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence

from django.db.models import Case, Count, OuterRef, Q, QuerySet, Subquery, TextField, When
from django.db.models.functions import Cast

from annotation.models import Narrative
from annotation.opponents.selectors import ROUND_FIELDS, round_fields_of
from annotation.quality.flags import flags_by_narrative
from common.id_ranges import of_ids
from crowd import task_types
from crowd.models import Batch

DATASET_SOURCES = (Narrative.Source.CROWD, Narrative.Source.IMPORTED)
GENERATED_PK = re.compile(r"^Q(\d+)N(\d+)$")
FALLBACK_PK = re.compile(r"^parable-(\d+)$")
CHUNK_SIZE = 5_000


def demo_batch_ids() -> list[int]:
    """The demo batches' ids (none once the demo data is removed): demo data counts nowhere."""
    return list(Batch.objects.filter(is_demo=True).values_list("pk", flat=True))


def dataset_narratives(
    *,
    batches: Sequence[int] | None = None,
    approved_only: bool = False,
    sources: Sequence[str] | None = None,
) -> QuerySet[Narrative]:
    """The narratives in scope: of `sources` (default crowd and imported: model output is
    not part of the dataset unless asked for), written in `batches`, approved only. The
    demo batch's narratives are never part of the dataset: demo data counts nowhere."""
    narratives = Narrative.objects.filter(source__in=sources or DATASET_SOURCES)
    demo = demo_batch_ids()
    if demo:  # none once the demo data is removed: no join for the usual dataset
        narratives = narratives.exclude(assignment__item__batch__in=demo)
    if batches:
        narratives = narratives.filter(assignment__item__batch__in=batches)
    if approved_only:
        narratives = narratives.filter(status=Narrative.Status.APPROVED)
    return narratives


def narrative_chunks(queryset: QuerySet, fields: Sequence, size: int) -> Iterator[list[tuple]]:
    """Rows of values_list(id, *fields) by ascending id, `size` at a time (keyset pages)."""
    last = 0
    while True:
        rows = list(queryset.filter(id__gt=last).order_by("id").values_list("id", *fields)[:size])
        if not rows:
            return
        yield rows
        last = rows[-1][0]


def narrative_parts(
    narrative_ids: list[int], names: Iterable[str] | None = None
) -> dict[str, dict[int, list]]:
    """What the registered task types keep of these narratives: {part: {id: [...]}}, every
    declared part present (crowd.task_types.NarrativePart); only `names` when given."""
    wanted = None if names is None else set(names)
    parts: dict[str, dict[int, list]] = {}
    for task_type in task_types.in_order():
        declared = [part.name for part in task_type.narrative_parts]
        if declared and (wanted is None or wanted & set(declared)):
            parts |= {name: {} for name in declared}
            parts |= task_type.narrative_parts_of(narrative_ids=narrative_ids)
    return parts


def narrative_parts_store(name: str, rows: list[tuple[Narrative, list[dict]]]) -> int:
    """Store a part read from a dataset file, (narrative, records) pairs, replacing what was
    imported with those narratives before: through the type that keeps the part; none is
    stored when no registered type keeps it."""
    for task_type in task_types.in_order():
        if name in {part.name for part in task_type.narrative_parts}:
            return task_type.narrative_parts_store(part=name, rows=rows)
    return 0


# --------------------------------------------------------------------------- export rows

_EXPORT_FIELDS = (
    "external_id",
    "proverb_id",
    "proverb__text",
    "text",
    "source",
    "source_label",
    "status",
    "worker__provider",
    "worker__external_id",
    "split_seen",
    "split_unseen",
    "keywords_text",
    "parable_rank",
    "proverb_quote",
)
_NO_KEYWORDS = ("{}", "[]", "null", "", None)
FLAG_ROW = "flag_row"  # export_rows(flag_rows=True): the key of a row's FlagRow
_NO_ROUND = dict.fromkeys(ROUND_FIELDS)


def _parable_rank() -> Case:
    """k of the generated pk: rank by id among the proverb's narratives with no external id.
    The external-id test is inside the count, not the WHERE clause, so that SQLite walks the
    proverb's index (a few rows) rather than the external-id index (all)."""
    earlier = (
        Narrative.objects.filter(proverb_id=OuterRef("proverb_id"), id__lte=OuterRef("id"))
        .order_by()
        .values("proverb_id")
        .annotate(rank=Count("id", filter=Q(external_id__isnull=True)))
        .values("rank")[:1]
    )
    return Case(When(external_id__isnull=True, then=Subquery(earlier)), default=None)


def export_rows(
    *,
    batches: Sequence[int] | None = None,
    approved_only: bool = False,
    sources: Sequence[str] | None = None,
    chunk_size: int = CHUNK_SIZE,
    flag_rows: bool = False,
) -> Iterator[list[dict]]:
    """The dataset as export rows (one per narrative, by id), `chunk_size` rows at a time;
    with `flag_rows`, each row also has FLAG_ROW (its quality.flags.FlagRow, for the analysis).

    Keys as docs/datasets.md lists them. pk is the external id, or for a narrative created
    in Parable Q<proverb id>N<k>, k its rank by id among the proverb's narratives with no
    external id (parable-<id> when that is another record's pk). What is unknown is None:
    an imported narrative's worker, a pledge not agreed, a split unset, ROUND_FIELDS outside
    a round, the writing record's summary without one.
    """
    narratives = dataset_narratives(
        batches=batches, approved_only=approved_only, sources=sources
    ).annotate(
        parable_rank=_parable_rank(),
        keywords_text=Cast("keywords", TextField()),  # decoded only when not empty
    )
    check_taken = Narrative.objects.filter(external_id__regex=GENERATED_PK.pattern).exists()
    for rows in narrative_chunks(narratives, _EXPORT_FIELDS, chunk_size):
        ids = [row[0] for row in rows]
        parts = narrative_parts(ids)
        integrity = flags_by_narrative(of_ids(Narrative.objects, "id", ids))
        taken = _taken_pks(rows) if check_taken else set()
        rounds = round_fields_of(ids)
        chunk = [
            {**_export_row(row, parts, integrity, taken), **rounds.get(row[0], _NO_ROUND)}
            for row in rows
        ]
        if flag_rows:
            for row in chunk:
                row[FLAG_ROW] = integrity[row["id"]]["row"]
        yield chunk


def _taken_pks(rows: list[tuple]) -> set[str]:
    candidates = [f"Q{row[2]}N{row[13]}" for row in rows if row[1] is None]
    return set(
        Narrative.objects.filter(external_id__in=candidates).values_list("external_id", flat=True)
    )


def _export_row(row: tuple, parts: dict, integrity: dict, taken: set[str]) -> dict:
    (nid, external_id, proverb_id, proverb, text, source, label, status) = row[:8]
    (provider, worker_id, seen, unseen, keywords, rank, quote) = row[8:]
    pk = external_id or f"Q{proverb_id}N{rank}"
    if external_id is None and pk in taken:
        pk = f"parable-{nid}"
    return {
        "id": nid,
        "pk": pk,
        "proverb_id": proverb_id,
        "proverb": proverb,
        "proverb_quote": quote or None,
        "narrative": text,
        "source": source,
        "source_label": label,
        "status": status,
        "worker": f"{provider}:{worker_id}" if provider else None,
        "pledged_at": integrity[nid]["pledged_at"],
        "split_seen": seen or None,
        "split_unseen": unseen or None,
        "keywords": [] if keywords in _NO_KEYWORDS else keyword_list(json.loads(keywords)),
        **{name: by_narrative.get(nid, []) for name, by_narrative in parts.items()},
        "integrity_flags": integrity[nid]["flags"],
        "writing": integrity[nid]["writing"],
    }


def keyword_list(keywords) -> list[str]:
    """A narrative's stored keywords ({"verbs", "entities"}, or a plain list) as one list of
    strings without repeats: its verbs, then its entities' texts."""
    if not keywords:
        return []
    if isinstance(keywords, dict):
        items = [*keywords.get("verbs", []), *keywords.get("entities", [])]
    else:
        items = keywords if isinstance(keywords, list) else []
    words = (item.get("text", "") if isinstance(item, dict) else str(item) for item in items)
    return list(dict.fromkeys(word for word in words if word))


def rows_in_chunks(queryset: QuerySet, field_name: str, values: Iterable) -> list:
    """The queryset's rows whose `field_name` is one of `values`, read CHUNK_SIZE values a
    statement (a database limits the parameters of one)."""
    values = list(values)
    rows = []
    for start in range(0, len(values), CHUNK_SIZE):
        chunk = values[start : start + CHUNK_SIZE]
        rows.extend(queryset.filter(**{f"{field_name}__in": chunk}))
    return rows


def narratives_for_pks(pks: Iterable[str]) -> dict[str, int]:
    """Narrative ids of record pks: external ids, then pks that export_rows generated."""
    pks = list(dict.fromkeys(pks))
    pairs = Narrative.objects.values_list("external_id", "id")
    found: dict[str, int] = dict(rows_in_chunks(pairs, "external_id", pks))
    found.update(narratives_for_generated_pks([pk for pk in pks if pk not in found]))
    return found


def narratives_for_generated_pks(pks: Iterable[str]) -> dict[str, int]:
    """Narrative ids of the pks export_rows generates (Q<proverb id>N<k>, parable-<id>)."""
    ranked_pks = {pk: (int(m[1]), int(m[2])) for pk in pks if (m := GENERATED_PK.match(pk))}
    own_ids = {pk: int(m[1]) for pk in pks if (m := FALLBACK_PK.match(pk))}
    ranked: dict[int, list[int]] = defaultdict(list)
    proverb_ids = sorted({proverb_id for proverb_id, _ in ranked_pks.values()})
    crowd = Narrative.objects.filter(external_id__isnull=True).order_by("id")
    for narrative_id, proverb_id in rows_in_chunks(
        crowd.values_list("id", "proverb_id"), "proverb_id", proverb_ids
    ):
        ranked[proverb_id].append(narrative_id)
    found = {
        pk: ranked[proverb_id][k - 1]
        for pk, (proverb_id, k) in ranked_pks.items()
        if 1 <= k <= len(ranked[proverb_id])
    }
    existing = set(
        Narrative.objects.filter(pk__in=own_ids.values(), external_id__isnull=True).values_list(
            "id", flat=True
        )
    )
    found.update({pk: nid for pk, nid in own_ids.items() if nid in existing})
    return found
