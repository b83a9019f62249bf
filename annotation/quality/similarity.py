"""The dataset check of writing integrity: each story against its proverb's other stories
and its worker's earlier stories, by sentence-embedding cosine similarity.

`narrative_similarity_check` runs in a Celery task queued when a story is submitted (a
story still unchecked after the grace period is queued again by beat's
`annotation.similarity_requeue`);
`narratives_embed` fills missing embeddings in chunks (imported datasets, the report
command); the dataset-wide scan (all stories at once, by matrix operations) is
annotation/quality/similarity_scan.py; `similarity_distribution` summarises what a
researcher checks thresholds against.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
from django.db import transaction
from django.utils import timezone

from annotation.models import Narrative, NarrativeIntegrity
from annotation.quality.embeddings import embed, embedding_model_path, from_bytes, to_bytes
from annotation.text import copy_shingles, jaccard
from common.task_queue import waiting_past_grace

EMBED_CHUNK = 1024


def narratives_embed(
    narrative_ids: Iterable[int], *, progress: Callable[[int], None] | None = None
) -> int:
    """Store embeddings of the given narratives that have none from the configured model.

    Returns how many were embedded; idempotent. Chunks of EMBED_CHUNK keep memory flat.
    """
    model = embedding_model_path()
    ids = sorted(set(narrative_ids))
    done = set(
        NarrativeIntegrity.objects.filter(
            narrative_id__in=ids, embedding_model=model, embedding__isnull=False
        ).values_list("narrative_id", flat=True)
    )
    missing = [narrative_id for narrative_id in ids if narrative_id not in done]
    for start in range(0, len(missing), EMBED_CHUNK):
        chunk = missing[start : start + EMBED_CHUNK]
        texts = dict(Narrative.objects.filter(pk__in=chunk).values_list("pk", "text"))
        order = [narrative_id for narrative_id in chunk if narrative_id in texts]
        vectors = embed([texts[narrative_id] for narrative_id in order])
        # One statement per chunk: a row that exists (a crowd story's writing record)
        # keeps its other fields and gets the embedding.
        NarrativeIntegrity.objects.bulk_create(
            [
                NarrativeIntegrity(
                    narrative_id=narrative_id, embedding=to_bytes(vector), embedding_model=model
                )
                for narrative_id, vector in zip(order, vectors, strict=True)
            ],
            update_conflicts=True,
            unique_fields=["narrative"],
            update_fields=["embedding", "embedding_model"],
        )
        if progress:
            progress(start + len(chunk))
    return len(missing)


def embeddings_of(narrative_ids: Iterable[int]) -> dict[int, np.ndarray]:
    """Stored embeddings (from the configured model) by narrative id."""
    rows = NarrativeIntegrity.objects.filter(
        narrative_id__in=list(narrative_ids),
        embedding_model=embedding_model_path(),
        embedding__isnull=False,
    ).values_list("narrative_id", "embedding")
    return {narrative_id: from_bytes(data) for narrative_id, data in rows}


def _nearest(vector: np.ndarray, others: dict[int, np.ndarray]) -> tuple[int, float] | None:
    if not others:
        return None
    ids = list(others)
    scores = np.stack([others[narrative_id] for narrative_id in ids]) @ vector
    best = int(np.argmax(scores))
    return ids[best], float(scores[best])


def _nearest_copy(narrative: Narrative, same_proverb: list[int], own_earlier: list[int]):
    """The story sharing most word trigrams with this one once names and pronouns are set
    aside (a renamed copy embeds differently, but reads the same), or None."""
    shingles = copy_shingles(narrative.text)
    own = set(own_earlier)
    best = None
    texts = Narrative.objects.filter(pk__in=[*same_proverb, *own_earlier]).values_list("pk", "text")
    for pk, text in texts.iterator(chunk_size=500):
        overlap = jaccard(shingles, copy_shingles(text))
        if best is None or overlap > best["overlap"]:
            best = {"narrative": pk, "overlap": round(overlap, 4), "own": pk in own}
    return best


def narratives_similarity_pending(*, now=None, limit: int = 200) -> list[int]:
    """Ids of narratives whose dataset check has not run although they were submitted
    longer than the grace period ago (PARABLE_BACKGROUND_GRACE_SECONDS), oldest first:
    their task was lost (a broker outage, a worker killed), so beat queues them again."""
    unchecked = NarrativeIntegrity.objects.filter(checked_at__isnull=True)
    return waiting_past_grace(
        unchecked, since="narrative__created_at", limit=limit, now=now, id_field="narrative_id"
    )


def narrative_similarity_check(*, narrative_id: int) -> NarrativeIntegrity:
    """Compare a story with its proverb's other stories and its worker's earlier stories.

    Stores in NarrativeIntegrity.similarity {"proverb": match | None, "own": match | None,
    "copy": copy | None}, a match being {"narrative": id, "similarity": cosine} and the copy
    the story of either kind with the most word trigrams in common once names and pronouns
    are set aside: {"narrative": id, "overlap": Jaccard, "own": bool}. Idempotent: run again, it
    recomputes the same figures (and picks up stories embedded since).

    The embedding and the comparisons run outside any transaction, and only the result's
    write takes one: on SQLite a transaction holds the database's one write lock from its
    start, and workers' submits would wait for the model (seconds when it first loads).
    """
    narrative = Narrative.objects.get(pk=narrative_id)
    same_proverb = list(
        Narrative.objects.filter(proverb_id=narrative.proverb_id)
        .exclude(pk=narrative.pk)
        .values_list("pk", flat=True)
    )
    own_earlier = []
    if narrative.worker_id is not None:
        own_earlier = list(
            Narrative.objects.filter(worker_id=narrative.worker_id, pk__lt=narrative.pk)
            .exclude(proverb_id=narrative.proverb_id)
            .values_list("pk", flat=True)
        )
    narratives_embed([narrative.pk, *same_proverb, *own_earlier])
    vectors = embeddings_of([narrative.pk, *same_proverb, *own_earlier])
    vector = vectors.pop(narrative.pk)
    similarity = {}
    for key, ids in (("proverb", same_proverb), ("own", own_earlier)):
        nearest = _nearest(vector, {pk: vectors[pk] for pk in ids if pk in vectors})
        similarity[key] = (
            {"narrative": nearest[0], "similarity": round(nearest[1], 4)} if nearest else None
        )
    similarity["copy"] = _nearest_copy(narrative, same_proverb, own_earlier)
    with transaction.atomic():
        integrity = NarrativeIntegrity.objects.select_for_update().get(narrative_id=narrative.pk)
        integrity.similarity = similarity
        integrity.checked_at = timezone.now()
        integrity.save(update_fields=["similarity", "checked_at"])
    return integrity


QUANTILES = (0.5, 0.9, 0.95, 0.99, 0.995)


def similarity_distribution(values: list[float], *, threshold: float) -> dict:
    """Summary of nearest-neighbour similarities: count, quantiles, histogram, share flagged.

    {"stories", "mean", "quantiles": {"0.5": x, ...}, "max", "threshold", "at_or_above",
    "share_at_or_above", "histogram": [{"from", "to", "stories"}] in steps of 0.05}.
    """
    if not values:
        return {"stories": 0, "threshold": threshold, "at_or_above": 0, "share_at_or_above": None}
    array = np.asarray(values, dtype=np.float64)
    edges = np.round(np.arange(-0.2, 1.0001, 0.05), 2)
    counts, _ = np.histogram(np.clip(array, -0.2, 1.0), bins=edges)
    flagged = int((array >= threshold).sum())
    return {
        "stories": len(values),
        "mean": round(float(array.mean()), 4),
        "quantiles": {str(q): round(float(np.quantile(array, q)), 4) for q in QUANTILES},
        "max": round(float(array.max()), 4),
        "threshold": threshold,
        "at_or_above": flagged,
        "share_at_or_above": round(flagged / len(values), 4),
        "histogram": [
            {"from": float(low), "to": float(high), "stories": int(count)}
            for low, high, count in zip(edges[:-1], edges[1:], counts, strict=True)
            if count
        ],
    }
