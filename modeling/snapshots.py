"""Dataset snapshots: the approved dataset narratives with their splits, frozen for runs."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict

from django.db import transaction

from annotation.datasets.records import dataset_narratives
from modeling.examples import Example, content_hash
from modeling.models import Snapshot


def approved_examples() -> list[Example]:
    """Every approved dataset narrative (crowd or imported) as an Example, by id."""
    rows = (
        dataset_narratives(approved_only=True)
        .order_by("id")
        .values_list("id", "text", "proverb_id", "proverb__text", "split_seen", "split_unseen")
    )
    return [Example(*row) for row in rows.iterator(chunk_size=2_000)]


def snapshot_examples(snapshot: Snapshot) -> list[Example]:
    return [Example(**fields) for fields in snapshot.examples]


@transaction.atomic
def snapshot_freeze() -> Snapshot:
    """The snapshot of the approved data now; an unchanged dataset gives the same row."""
    examples = approved_examples()
    digest = content_hash(examples)
    splits = {
        setting: dict(Counter(getattr(example, setting) or "none" for example in examples))
        for setting in ("seen", "unseen")
    }
    snapshot, _ = Snapshot.objects.get_or_create(
        content_hash=digest,
        defaults={
            "examples": [asdict(example) for example in examples],
            "narratives": len(examples),
            "proverbs": len({example.proverb_id for example in examples}),
            "splits": splits,
        },
    )
    return snapshot
