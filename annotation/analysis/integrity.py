"""Shares of writing-integrity flags in the dataset (the fraction of narratives with each
flag): overall, per batch and per worker, from IntegrityRecord; the flags come from
annotation.quality.integrity.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from annotation.quality.integrity import FLAG_TITLES
from annotation.task_parts.records import IntegrityRecord

FLAG_CODES = tuple(FLAG_TITLES)


def _shares(records: list[IntegrityRecord]) -> dict[str, float | None]:
    total = len(records)
    # One pass: each record counts once per code it has, however often it holds it.
    counts = Counter(code for record in records for code in set(record.flags))
    return {code: round(counts[code] / total, 4) if total else None for code in FLAG_CODES}


def _flagged(records: list[IntegrityRecord]) -> float | None:
    if not records:
        return None
    return round(sum(bool(record.flags) for record in records) / len(records), 4)


def _group(records: list[IntegrityRecord]) -> dict:
    return {"narratives": len(records), "flagged": _flagged(records), "shares": _shares(records)}


def integrity_shares(records: Iterable[IntegrityRecord]) -> dict:
    """{"narratives", "with_record", "checked", "flagged", "shares", "by_batch", "by_worker"}.

    by_batch and by_worker are lists (batches by id, imported narratives last as batch
    None; workers by most flagged first) of {"narratives", "flagged", "shares"} plus
    the batch's id and name or the worker.
    """
    records = list(records)
    by_batch: dict[int | None, list[IntegrityRecord]] = defaultdict(list)
    by_worker: dict[str, list[IntegrityRecord]] = defaultdict(list)
    names = {}
    for record in records:
        by_batch[record.batch].append(record)
        names[record.batch] = record.batch_name
        if record.worker is not None:
            by_worker[record.worker].append(record)
    batches = sorted(by_batch, key=lambda batch: (batch is None, batch or 0))
    flagged = {worker: _flagged(group) for worker, group in by_worker.items()}
    workers = sorted(by_worker, key=lambda worker: (-flagged[worker], worker))
    return {
        "narratives": len(records),
        "with_record": sum(record.has_record for record in records),
        "checked": sum(record.checked for record in records),
        "flagged": _flagged(records),
        "shares": _shares(records),
        "by_batch": [
            {"batch": batch, "name": names[batch], **_group(by_batch[batch])} for batch in batches
        ],
        "by_worker": [{"worker": worker, **_group(by_worker[worker])} for worker in workers],
    }
