"""The dataset check of writing integrity: each story against its proverb's other stories
and its worker's earlier stories, by sentence-embedding cosine similarity and name-blind
word trigrams. A submitted story's Celery task checks it with the stories waiting, whole
proverbs at a time, so that checks arriving together are embedded in one call; beat queues
a lost one again. The dataset-wide scan is similarity_scan.py.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable

import numpy as np
from django.db import transaction
from django.db.models import Count, Min
from django.utils import timezone

from annotation.models import Narrative, NarrativeIntegrity
from annotation.quality.embeddings import embed, embedding_model_path, from_bytes, to_bytes
from annotation.text import copy_shingles, jaccard
from common.task_queue import waiting_past_grace

EMBED_CHUNK = 1024
# Stories checked in one pass at most, counted in whole proverbs (a proverb with more
# waiting stories is taken alone). A pass costs its stories' forward passes and a few
# statements, whatever its size: 32 keeps a pass near a second of one core.
CHECK_BATCH = 32


def narratives_embed(
    narrative_ids: Iterable[int], *, progress: Callable[[int], None] | None = None
) -> int:
    """Store embeddings of the given narratives that have none from the configured model,
    in chunks of EMBED_CHUNK (memory stays flat); how many were embedded. Idempotent."""
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


def _nearest(vector: np.ndarray, ids: list[int], vectors: dict[int, np.ndarray]) -> dict | None:
    """{"narrative": id, "similarity": cosine} of the story among `ids` nearest to
    `vector` (the first of equals), or None."""
    if not ids:
        return None
    scores = np.stack([vectors[narrative_id] for narrative_id in ids]) @ vector
    best = int(np.argmax(scores))
    return {"narrative": ids[best], "similarity": round(float(scores[best]), 4)}


def _nearest_copy(mine: set, ids: list[int], shingles: dict[int, set], own: set[int]):
    """The story among `ids` sharing most word trigrams with a story whose name-blind
    trigrams are `mine` (a renamed copy embeds differently, but reads the same), or None."""
    best = None
    for narrative_id in ids:
        overlap = jaccard(mine, shingles[narrative_id])
        if best is None or overlap > best["overlap"]:
            best = {
                "narrative": narrative_id,
                "overlap": round(overlap, 4),
                "own": narrative_id in own,
            }
    return best


def _vectors(ids: list[int], texts: dict[int, str], *, held: set[int]):
    """Every embedding of `ids` by id, and the ids among `held` that had none. Stories
    without one are embedded in one call, rounded as stored (float16) so that a check reads
    the same figures whenever it runs. The caller stores those of `held` (the rows it
    holds); the others are stored here where their row can be locked without waiting (a
    story with no row gets one, unchecked, so that beat checks it too); a row another pass
    holds is that pass's to store."""
    vectors = embeddings_of(ids)
    missing = [narrative_id for narrative_id in ids if narrative_id not in vectors]
    if not missing:
        return vectors, set()
    for narrative_id, vector in zip(
        missing, embed([texts[narrative_id] for narrative_id in missing]), strict=True
    ):
        vectors[narrative_id] = from_bytes(to_bytes(vector))
    others = sorted(set(missing) - held)
    if others:
        with transaction.atomic():  # a savepoint inside a check's own transaction
            model = embedding_model_path()
            rows = list(
                NarrativeIntegrity.objects.select_for_update(skip_locked=True)
                .filter(narrative_id__in=others)
                .only("narrative_id")
            )
            for row in rows:
                row.embedding, row.embedding_model = to_bytes(vectors[row.narrative_id]), model
            NarrativeIntegrity.objects.bulk_update(rows, ["embedding", "embedding_model"])
            rowless = set(others) - set(
                NarrativeIntegrity.objects.filter(narrative_id__in=others).values_list(
                    "narrative_id", flat=True
                )
            )
            NarrativeIntegrity.objects.bulk_create(
                [
                    NarrativeIntegrity(
                        narrative_id=narrative_id,
                        embedding=to_bytes(vectors[narrative_id]),
                        embedding_model=model,
                    )
                    for narrative_id in sorted(rowless)
                ],
                ignore_conflicts=True,
            )
    return vectors, set(missing) & held


def _similarity_store(rows: list[NarrativeIntegrity]) -> dict[int, dict]:
    """Check the stories of the integrity `rows` (held by this transaction) against the
    dataset in one pass, store what it finds and return it by id: per story {"proverb",
    "own", "copy"}, the nearest other story of its proverb and of its worker's earlier
    stories for other proverbs ({"narrative", "similarity": cosine}), and the story of
    either kind sharing the most name-blind word trigrams ({"narrative", "overlap":
    Jaccard, "own"})."""
    held = {row.narrative_id for row in rows}
    stories = list(
        Narrative.objects.filter(pk__in=held).values_list("pk", "proverb_id", "worker_id")
    )
    proverbs = {proverb_id for _, proverb_id, _ in stories}
    workers = {worker_id for _, _, worker_id in stories if worker_id is not None}
    scope = comparison_scope(proverbs, workers)
    texts, by_proverb, by_worker = {}, defaultdict(list), defaultdict(list)
    for pk, proverb_id, worker_id, text in sorted(
        scope.values_list("pk", "proverb_id", "worker_id", "text")
    ):
        texts[pk] = text
        by_proverb[proverb_id].append(pk)
        by_worker[worker_id].append((pk, proverb_id))
    compared = {}
    for pk, proverb_id, worker_id in stories:
        same_proverb = [other for other in by_proverb[proverb_id] if other != pk]
        own_earlier = [
            other
            for other, other_proverb in (by_worker[worker_id] if worker_id is not None else ())
            if other < pk and other_proverb != proverb_id
        ]
        compared[pk] = (same_proverb, own_earlier)
    needed = sorted(held.union(*(set(ids) for pair in compared.values() for ids in pair)))
    vectors, new = _vectors(needed, texts, held=held)
    shingles = {pk: copy_shingles(texts[pk]) for pk in needed}
    figures = {
        pk: {
            "proverb": _nearest(vectors[pk], same_proverb, vectors),
            "own": _nearest(vectors[pk], own_earlier, vectors),
            "copy": _nearest_copy(
                shingles[pk], same_proverb + own_earlier, shingles, set(own_earlier)
            ),
        }
        for pk, (same_proverb, own_earlier) in compared.items()
    }
    now, model = timezone.now(), embedding_model_path()
    for row in rows:
        row.similarity, row.checked_at = figures[row.narrative_id], now
        if row.narrative_id in new:
            row.embedding = to_bytes(vectors[row.narrative_id])
            row.embedding_model = model
    fields = ["similarity", "checked_at"] + (["embedding", "embedding_model"] if new else [])
    NarrativeIntegrity.objects.bulk_update(rows, fields, batch_size=500)
    return figures


def narratives_similarity_pending(*, now=None, limit: int = 200) -> list[int]:
    """Ids of narratives still unchecked past the grace period, oldest first: their task
    was lost (a broker outage, a worker killed), so beat queues them again."""
    unchecked = NarrativeIntegrity.objects.filter(checked_at__isnull=True)
    return waiting_past_grace(
        unchecked, since="narrative__created_at", limit=limit, now=now, id_field="narrative_id"
    )


def comparison_scope(proverb_ids: Iterable[int], worker_ids: Iterable[int | None]):
    """The stories a check of stories of these proverbs by these workers compares: every
    story of the proverbs and every story of the workers."""
    scope = Narrative.objects.filter(proverb_id__in=list(proverb_ids))
    workers = [worker_id for worker_id in worker_ids if worker_id is not None]
    if workers:
        scope = scope | Narrative.objects.filter(worker_id__in=workers)
    return scope


def _embed_ahead(proverb_ids: list[int], worker_ids: Iterable[int | None]) -> None:
    """Embed the stories a check will compare before its transaction: on SQLite a
    transaction holds the one write lock from its start, and submits would wait for the
    model (seconds when it first loads)."""
    texts = dict(comparison_scope(proverb_ids, worker_ids).values_list("pk", "text"))
    _vectors(sorted(texts), texts, held=set())


def narrative_similarity_check(*, narrative_id: int) -> NarrativeIntegrity:
    """Check one story again (`_similarity_store`), the model run before its transaction
    (`_embed_ahead`). Idempotent: it recomputes the same figures, with stories since."""
    narrative = Narrative.objects.get(pk=narrative_id)  # a story that does not exist raises
    _embed_ahead([narrative.proverb_id], [narrative.worker_id])
    with transaction.atomic():
        integrity, _ = NarrativeIntegrity.objects.select_for_update().get_or_create(
            narrative_id=narrative_id
        )
        _similarity_store([integrity])
    return integrity


def _pass_proverbs(waiting, first_proverb: int) -> list[int]:
    """The proverbs one pass takes: the first story's, then those of the oldest waiting
    stories while their waiting stories fit in CHECK_BATCH."""
    proverbs = [first_proverb]
    room = CHECK_BATCH - waiting.filter(narrative__proverb_id=first_proverb).count()
    groups = (
        waiting.exclude(narrative__proverb_id=first_proverb)
        .values("narrative__proverb_id")
        .annotate(oldest=Min("narrative_id"), stories=Count("narrative_id"))
        .order_by("oldest")
        .values_list("narrative__proverb_id", "stories")
    )
    for proverb_id, stories in groups[:CHECK_BATCH]:
        if stories > room:
            break
        proverbs.append(proverb_id)
        room -= stories
    return proverbs


def narratives_similarity_check_waiting(*, narrative_id: int) -> list[int] | None:
    """Check a submitted story and, in the same pass, the stories waiting with it, whole
    proverbs at a time (`_pass_proverbs`: its proverb-mates are what its check embeds
    anyway); the ids checked, none when it is checked already (or gone), and None when
    another pass holds its row (the caller tries again later). Rows other passes hold are
    skipped (SKIP LOCKED): passes in several processes never wait for each other."""
    waiting = NarrativeIntegrity.objects.filter(checked_at__isnull=True)
    proverb = (
        waiting.filter(narrative_id=narrative_id)
        .values_list("narrative__proverb_id", flat=True)
        .first()
    )
    if proverb is None:
        return []
    proverbs = _pass_proverbs(waiting, proverb)
    _embed_ahead(
        proverbs,
        waiting.filter(narrative__proverb_id__in=proverbs).values_list(
            "narrative__worker_id", flat=True
        ),
    )
    with transaction.atomic():
        first = list(
            waiting.filter(narrative_id=narrative_id)
            .select_for_update(skip_locked=True, of=("self",))
            .values_list("narrative__proverb_id", flat=True)
        )
        if not first:
            return None if waiting.filter(narrative_id=narrative_id).exists() else []
        rows = list(
            waiting.filter(
                narrative__proverb_id__in=_pass_proverbs(waiting, first[0])
            ).select_for_update(skip_locked=True, of=("self",))
        )
        return sorted(_similarity_store(rows))


QUANTILES = (0.5, 0.9, 0.95, 0.99, 0.995)


def similarity_distribution(values: list[float], *, threshold: float) -> dict:
    """Nearest-neighbour similarities summarised: {"stories", "mean", "quantiles", "max",
    "threshold", "at_or_above", "share_at_or_above", "histogram" in steps of 0.05}."""
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
