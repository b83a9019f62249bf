"""The dataset-wide similarity scan: every story against its proverb's and its worker's
other stories at once, by matrix operations over embeddings and name-blind word trigrams.
It gives each story what the per-story check (similarity.py) stores, and the pairs at or
above the thresholds, the earlier story the source (`manage.py similarity_report`). numpy,
scipy and the encoder are imported where they run, to keep a web process light.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from annotation.models import FigurativeNarrative, Narrative, NarrativeIntegrity
from annotation.quality.integrity import IntegritySettings
from annotation.text import copy_shingles
from common.task_queue import queue_on_commit, task_send, task_waiting, waiting_past_grace

if TYPE_CHECKING:
    import numpy as np


@dataclass
class SimilarityScan:
    """What a scan found: per story {"proverb", "own", "copy"} as the per-story check
    stores it; the nearest similarities and copy overlaps (the report's distributions);
    `pairs` at or above the thresholds, {"source" (the earlier), "copy", "checks"}."""

    similarity: dict[int, dict] = field(default_factory=dict)
    nearest_proverb: list[float] = field(default_factory=list)
    nearest_worker: list[float] = field(default_factory=list)
    nearest_copy: list[float] = field(default_factory=list)
    pairs: list[dict] = field(default_factory=list)


def _shingle_matrix(texts: list[str]):
    """Stories x name-blind word trigrams, as a sparse 0/1 matrix (CSR)."""
    import numpy as np
    from scipy import sparse

    columns: dict[tuple, int] = {}
    indices, pointers = [], [0]
    for text in texts:
        indices.extend(columns.setdefault(shingle, len(columns)) for shingle in copy_shingles(text))
        pointers.append(len(indices))
    data = np.ones(len(indices), dtype=np.float32)
    return sparse.csr_matrix((data, indices, pointers), shape=(len(texts), max(len(columns), 1)))


def _jaccard(shingles, members: np.ndarray) -> np.ndarray:
    """Pairwise Jaccard overlaps of the members' trigram sets (a dense square matrix)."""
    import numpy as np

    block = shingles[members]
    common = (block @ block.T).toarray()
    sizes = np.diag(common)
    union = sizes[:, None] + sizes[None, :] - common
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(union > 0, common / union, 0.0)


def similarity_scan(
    narrative_ids: Iterable[int], *, settings: IntegritySettings | None = None
) -> SimilarityScan:
    """Scan the given narratives (embedding the ones without an embedding first)."""
    import numpy as np

    from annotation.quality.similarity import embeddings_of, narratives_embed

    ids = sorted(set(narrative_ids))
    narratives_embed(ids)
    vectors = embeddings_of(ids)
    rows = [
        row
        for row in Narrative.objects.filter(pk__in=ids)
        .order_by("created_at", "id")
        .values_list("pk", "proverb_id", "worker_id", "text")
        if row[0] in vectors
    ]
    if not rows:
        return SimilarityScan()
    matrix = np.stack([vectors[row[0]] for row in rows])
    return rows_scan(rows, matrix, settings=settings or IntegritySettings())


def rows_scan(
    rows: list[tuple], matrix: np.ndarray, *, settings: IntegritySettings
) -> SimilarityScan:
    """The scan of `rows` (id, group, worker id or None, text) in time order, with their
    unit embeddings as `matrix` rows: a story is compared with its group's other stories
    (a proverb's, an expression's) and its worker's."""
    import numpy as np

    scan = SimilarityScan()
    pks = np.array([row[0] for row in rows])
    proverbs = np.array([row[1] for row in rows])
    shingles = _shingle_matrix([row[3] for row in rows])
    best = {pk: {"proverb": None, "own": None, "copy": None} for pk in pks.tolist()}
    pairs: dict[tuple[int, int], dict] = {}

    def pair(first: int, second: int, check: str, score: float) -> None:
        key = (int(pks[first]), int(pks[second]))  # positions in time order: first is earlier
        pairs.setdefault(key, {})[check] = round(float(score), 4)

    def offer_copy(position: int, other: int, overlap: float, own: bool) -> None:
        current = best[int(pks[position])]["copy"]
        if current is None or overlap > current["overlap"]:
            best[int(pks[position])]["copy"] = {
                "narrative": int(pks[other]),
                "overlap": round(float(overlap), 4),
                "own": own,
            }

    groups: dict[tuple[str, int], list[int]] = {}
    for position, (_, proverb_id, worker_id, _) in enumerate(rows):
        groups.setdefault(("proverb", proverb_id), []).append(position)
        if worker_id is not None:
            groups.setdefault(("worker", worker_id), []).append(position)
    for (kind, _), positions in groups.items():
        if len(positions) < 2:
            continue
        members = np.array(positions)
        cosine = matrix[members] @ matrix[members].T
        np.fill_diagonal(cosine, -np.inf)
        overlap = _jaccard(shingles, members)
        np.fill_diagonal(overlap, -1.0)
        if kind == "proverb":
            nearest = cosine.argmax(axis=1)
            scan.nearest_proverb.extend(cosine.max(axis=1).tolist())
            for row, column in enumerate(nearest):
                best[int(pks[members[row]])]["proverb"] = {
                    "narrative": int(pks[members[column]]),
                    "similarity": round(float(cosine[row, column]), 4),
                }
            copy_from = ~np.eye(len(members), dtype=bool)
            paired, check, threshold = (
                copy_from,
                "near_duplicate",
                settings.near_duplicate_similarity,
            )
        else:
            scan.nearest_worker.extend(cosine.max(axis=1).tolist())
            # The worker's own earlier stories for other proverbs, as the per-story check.
            other_proverb = proverbs[members][:, None] != proverbs[members][None, :]
            copy_from = np.tril(other_proverb, k=-1)
            earlier = np.where(copy_from, cosine, -np.inf)
            for row in np.flatnonzero(copy_from.any(axis=1)):
                column = int(earlier[row].argmax())
                best[int(pks[members[row]])]["own"] = {
                    "narrative": int(pks[members[column]]),
                    "similarity": round(float(earlier[row, column]), 4),
                }
            paired, check, threshold = other_proverb, "homogeneous", settings.homogeneity_similarity
        for row in np.flatnonzero(copy_from.any(axis=1)):
            allowed = np.flatnonzero(copy_from[row])
            column = allowed[overlap[row, allowed].argmax()]
            offer_copy(members[row], members[column], overlap[row, column], kind == "worker")
        upper = np.triu(paired, k=1)
        for row, column in zip(*np.nonzero(upper & (cosine >= threshold)), strict=True):
            pair(members[row], members[column], check, cosine[row, column])
        copies = upper & (overlap >= settings.near_copy_share)
        for row, column in zip(*np.nonzero(copies), strict=True):
            pair(members[row], members[column], "near_copy", overlap[row, column])
    scan.similarity = best
    scan.nearest_copy = [entry["copy"]["overlap"] for entry in best.values() if entry["copy"]]
    scan.pairs = [
        {"source": source, "copy": copy, "checks": checks}
        for (source, copy), checks in sorted(pairs.items())
    ]
    return scan


def imported_similarity_check(*, narrative_ids: list[int]) -> int:
    """Give imported stories the dataset check's result, against every story of their
    proverbs and workers; how many were checked. Idempotent. The scan runs before the
    write's transaction (on SQLite it would hold the one write lock through it)."""
    imported = list(
        Narrative.objects.filter(pk__in=narrative_ids).values_list("pk", "proverb_id", "worker_id")
    )
    if not imported:
        return 0
    from annotation.quality.similarity import comparison_scope

    scope = comparison_scope({row[1] for row in imported}, {row[2] for row in imported})
    scan = similarity_scan(scope.values_list("pk", flat=True))
    now = timezone.now()
    with transaction.atomic():
        rows = list(
            NarrativeIntegrity.objects.select_for_update().filter(
                narrative_id__in=[pk for pk, _, _ in imported]
            )
        )
        for integrity in rows:
            integrity.similarity = scan.similarity.get(integrity.narrative_id, {})
            integrity.checked_at = now
        NarrativeIntegrity.objects.bulk_update(rows, ["similarity", "checked_at"], batch_size=500)
    return len(rows)


def imported_similarity_check_queue(*, narratives: list[Narrative]) -> None:
    """Queue the dataset check of imported stories (an ePiC file, MTurk results) once the
    import commits; their integrity rows, unchecked until it runs, let beat's
    `annotation.similarity_requeue` make good a lost task."""
    if not narratives:
        return
    ids = [narrative.pk for narrative in narratives]
    NarrativeIntegrity.objects.bulk_create(
        [NarrativeIntegrity(narrative_id=pk) for pk in ids], batch_size=1000, ignore_conflicts=True
    )
    NarrativeIntegrity.objects.filter(narrative_id__in=ids).update(checked_at=None)
    queue_on_commit("annotation.imported_similarity_check", ids)


def _expression(kind: str, expression: str) -> str:
    return f"{kind}:{' '.join(expression.casefold().split())}"


def figurative_similarity_check(*, narrative_ids: list[int]) -> int:
    """Give imported idiom and simile narratives the dataset check against every narrative
    of their expression (their group, as a proverb for ePiC stories), in
    FigurativeNarrative.similarity; how many were checked. Idempotent. The embeddings are
    made before the write's transaction and not kept."""
    given = list(
        FigurativeNarrative.objects.filter(pk__in=narrative_ids).values_list("kind", "expression")
    )
    groups = {_expression(kind, expression) for kind, expression in given}
    rows = [
        (pk, _expression(kind, expression), None, text)
        for pk, kind, expression, text in FigurativeNarrative.objects.filter(
            kind__in={kind for kind, _ in given}
        )
        .order_by("created_at", "id")
        .values_list("pk", "kind", "expression", "text")
        if _expression(kind, expression) in groups
    ]
    if not rows:
        return 0
    from annotation.quality.embeddings import embed

    scan = rows_scan(rows, embed([row[3] for row in rows]), settings=IntegritySettings())
    with transaction.atomic():
        checked = list(FigurativeNarrative.objects.select_for_update().filter(pk__in=narrative_ids))
        for narrative in checked:
            narrative.similarity = scan.similarity[narrative.pk]
        FigurativeNarrative.objects.bulk_update(checked, ["similarity"], batch_size=500)
    return len(checked)


def figurative_similarity_pending(*, now=None, limit: int = 200) -> list[int]:
    """Ids of imported idiom and simile narratives still unchecked past the grace period,
    oldest first: the import's task was lost."""
    unchecked = FigurativeNarrative.objects.filter(similarity__isnull=True)
    return waiting_past_grace(unchecked, since="created_at", limit=limit, now=now)


def figurative_similarity_requeue() -> int:
    """Queue one check of the oldest unchecked imported narratives (beat, with the story
    checks), unless a figurative check already waits in the queue; how many were queued."""
    pending = figurative_similarity_pending()
    if not pending or task_waiting("annotation.figurative_similarity_check"):
        return 0
    return len(pending) if task_send("annotation.figurative_similarity_check", pending) else 0
