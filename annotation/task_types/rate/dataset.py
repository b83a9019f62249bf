"""What the rate type gives the dataset: each narrative's rating summary (an export column),
the ratings the analysis compares by source (ePiC Table 5), and its batches' agreement."""

from __future__ import annotations

from collections import defaultdict
from statistics import mean

from django.db.models import Avg, Count, Max

from annotation.quality.agreement import rating_summary
from annotation.quality.reports import COUNTED, counted
from annotation.task_parts.records import RatingRecord, rating_source
from annotation.task_types.rate.criteria import BINARY_THRESHOLD, criterion_labels
from annotation.task_types.rate.models import Rating
from common.id_ranges import of_ids
from crowd.models import Batch
from crowd.task_types import NarrativePart

RATINGS = NarrativePart(
    name="ratings",
    definition="Rating summary: per criterion, mean of the Likert values (1-5) and n.",
    fields=(("criterion", "string"), ("mean", "float64"), ("n", "int64")),
)


def rating_summaries(narrative_ids: list[int]) -> dict[int, list[dict]]:
    """Per narrative, each criterion's mean rating and count, from work that counts."""
    wanted = set(narrative_ids)
    summaries = (
        of_ids(Rating.objects, "narrative_id", narrative_ids)
        .filter(assignment__status__in=COUNTED, assignment__item__withdrawn_at__isnull=True)
        .values("narrative_id", "criterion")
        .annotate(mean=Avg("value"), n=Count("id"))
        .order_by("narrative_id", "criterion")
    )
    result: dict[int, list[dict]] = defaultdict(list)
    for summary in summaries:
        if summary["narrative_id"] in wanted:
            result[summary["narrative_id"]].append(
                {
                    "criterion": summary["criterion"],
                    "mean": float(summary["mean"]),
                    "n": summary["n"],
                }
            )
    return result


def rating_records(counted_rows) -> list[RatingRecord]:
    """The ratings in the analysis' scope (`counted_rows("narrative_id")`: a filter)."""
    rows = (
        Rating.objects.filter(counted_rows("narrative_id"))
        .order_by("id")
        .values_list(
            "narrative_id",
            "narrative__source",
            "narrative__source_label",
            "criterion",
            "assignment__worker_id",
            "value",
        )
    )
    return [
        RatingRecord(nid, rating_source(source, label), criterion, str(worker), value)
        for nid, source, label, criterion, worker, value in rows.iterator(chunk_size=5_000)
    ]


def state() -> list:
    return [Rating.objects.aggregate(n=Count("id"), last=Max("id"))]


def rating_agreement(*, batch: Batch) -> dict:
    """Per criterion: mean, binarized pairwise agreement (>= 3), ordinal alpha; by source."""
    rows = list(
        counted(Rating, batch).values_list(
            "assignment__item_id",
            "assignment__worker_id",
            "criterion",
            "value",
            "narrative__source",
            "narrative__source_label",
        )
    )
    criteria = [c["key"] for c in batch.settings.get("criteria", [])]
    criteria += sorted({criterion for _, _, criterion, *_ in rows} - set(criteria))
    labels = criterion_labels(batch.settings)
    by_criterion = {}
    for criterion in criteria:
        triples = [
            (item, worker, value) for item, worker, key, value, *_ in rows if key == criterion
        ]
        by_criterion[criterion] = {
            "label": labels.get(criterion, criterion),
            **rating_summary(triples, criterion_levels="ordinal", threshold=BINARY_THRESHOLD),
        }
    grouped: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for _, _, criterion, value, source, label in rows:
        grouped[f"{source}: {label}" if label else source][criterion].append(value)
    by_source = {
        source: {
            criterion: {"mean": mean(values), "ratings": len(values)}
            for criterion, values in values_by_criterion.items()
        }
        for source, values_by_criterion in sorted(grouped.items())
    }
    return {
        "threshold": BINARY_THRESHOLD,
        "forms": len({(item, worker) for item, worker, *_ in rows}),
        "criteria": by_criterion,
        "by_source": by_source,
    }
