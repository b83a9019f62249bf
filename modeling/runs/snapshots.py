"""Dataset snapshots: the approved dataset narratives with their splits, frozen for runs."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict

from django.db import transaction

from annotation.datasets.epic import SPAN_PAIRS
from annotation.datasets.records import dataset_narratives, narrative_parts
from modeling.models import Snapshot
from modeling.training.examples import Example, content_hash


def keyword_list(keywords: dict) -> tuple[str, ...]:
    """A narrative's stored keywords as one list: its verbs, then its named entities."""
    verbs = keywords.get("verbs") or []
    entities = [entity["text"] for entity in keywords.get("entities") or []]
    return tuple(dict.fromkeys([*verbs, *entities]))


def narrative_alignments(narrative_ids: list[int]) -> dict[int, tuple[tuple[str, int, int], ...]]:
    """One alignment per narrative, as the dataset's span pairs number it: the imported one,
    else the earliest approved alignment (other annotators' alignments of the same narrative
    are agreement data); none where no registered task type keeps span pairs."""
    pairs = narrative_parts(narrative_ids, names=[SPAN_PAIRS]).get(SPAN_PAIRS, {})
    return {
        narrative_id: tuple(
            (pair["proverb_span"], pair["narrative_start"], pair["narrative_end"])
            for pair in found
            if pair["alignment"] == 1
        )
        for narrative_id, found in pairs.items()
    }


def approved_examples() -> list[Example]:
    """Every approved dataset narrative (crowd or imported) as an Example, by id, with its
    keywords and its alignment where it has them."""
    narratives = dataset_narratives(approved_only=True).order_by("id")
    alignments = narrative_alignments(list(narratives.values_list("id", flat=True)))
    rows = narratives.values_list(
        "id", "text", "proverb_id", "proverb__text", "split_seen", "split_unseen", "keywords"
    )
    return [
        Example(
            *row[:-1],
            keywords=keyword_list(row[-1] or {}),
            alignments=alignments.get(row[0], ()),
        )
        for row in rows.iterator(chunk_size=2_000)
    ]


def snapshot_examples(snapshot: Snapshot) -> list[Example]:
    return [Example.from_dict(fields) for fields in snapshot.examples]


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
