"""Keywords of a narrative for the generation baseline: its verbs and named entities (spaCy).

ePiC conditions generation on a proverb and the narrative's verbs and named entities
(section 5.2). The spaCy pipeline (settings.PARABLE_SPACY_MODEL) is loaded once per process,
never inside a request. Approval marks a narrative `keywords_pending_since`; extraction
clears the mark and keeps the texts' analysis scores (text_scores), so an export need not
score them again. What is still marked after the grace period (broker down, worker killed)
is re-queued by the beat task `annotation.keywords_requeue`; imports use
`narratives_keywords_fill`, backfills `narratives_keywords_missing`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotation.analysis.text_scores import texts_score_keep
from annotation.datasets.records import dataset_narratives
from annotation.models import Narrative
from common.nlp import spacy_pipeline
from common.progress import ProgressCallback, progress_noop
from common.task_queue import queue_on_commit, waiting_past_grace


def keywords_extract(text: str, *, model: str | None = None) -> dict:
    """Verbs (lemmas, lowercased, in order of first use) and named entities of a text.

    Returns {"verbs": [...], "entities": [{"text": ..., "label": ...}, ...], "model": name};
    auxiliaries are not verbs here, and each verb and entity appears once.
    """
    model = model or settings.PARABLE_SPACY_MODEL
    return _keywords_of(spacy_pipeline(model)(text), model)


def _keywords_of(doc, model: str) -> dict:
    verbs = list(dict.fromkeys(token.lemma_.lower() for token in doc if token.pos_ == "VERB"))
    entities = list(dict.fromkeys((entity.text, entity.label_) for entity in doc.ents))
    return {
        "verbs": verbs,
        "entities": [{"text": text, "label": label} for text, label in entities],
        "model": model,
    }


def narrative_keywords_extract(*, narrative_id: int, force: bool = False) -> Narrative:
    """Store the narrative's keywords and clear its pending mark; done already with the
    same model, only the mark is cleared."""
    _keywords_store([narrative_id], model=settings.PARABLE_SPACY_MODEL, force=force)
    return Narrative.objects.get(pk=narrative_id)


def _keywords_store(narrative_ids: list[int], *, model: str, force: bool = False) -> int:
    """Extract the keywords of these narratives (those not done with `model`, or all when
    `force`) and store them with their pending marks cleared; returns how many were
    extracted. spaCy runs before the write's transaction, not in it: on SQLite a
    transaction holds the database's one write lock from its start, and workers' submits
    would wait for the pipeline. A text edited in between is extracted again under the lock."""
    read = {
        pk: text
        for pk, text, keywords in Narrative.objects.filter(pk__in=narrative_ids).values_list(
            "pk", "text", "keywords"
        )
        if force or keywords.get("model") != model
    }
    extracted = _keywords_of_texts(read, model)
    # The dataset analysis' scores of the same texts, kept for the next export (numpy and
    # the scorers are imported when they score: the web path only queues this task).
    texts_score_keep(list(read.values()))
    with transaction.atomic():
        narratives = list(
            Narrative.objects.select_for_update()
            .filter(pk__in=narrative_ids)
            .only("id", "text", "keywords", "keywords_pending_since")
        )
        edited = {n.pk: n.text for n in narratives if n.pk in read and n.text != read[n.pk]}
        extracted |= _keywords_of_texts(edited, model)
        for narrative in narratives:
            if narrative.pk in extracted:
                narrative.keywords = extracted[narrative.pk]
            narrative.keywords_pending_since = None
        Narrative.objects.bulk_update(narratives, ["keywords", "keywords_pending_since"])
    return len(read)


def _keywords_of_texts(texts: dict[int, str], model: str) -> dict[int, dict]:
    """Keywords by narrative id, through spaCy's batched pipe."""
    if not texts:
        return {}
    docs = spacy_pipeline(model).pipe(texts.values())
    return {pk: _keywords_of(doc, model) for pk, doc in zip(texts, docs, strict=True)}


def narratives_keywords_pending(*, now=None, limit: int = 500) -> list[int]:
    """Ids of narratives whose keywords have been pending longer than the grace period
    (PARABLE_BACKGROUND_GRACE_SECONDS), oldest first, at most `limit`."""
    return waiting_past_grace(
        Narrative.objects, since="keywords_pending_since", limit=limit, now=now
    )


def narratives_keywords_missing() -> list[int]:
    """Ids of approved dataset narratives (crowd or imported) without keywords, by id."""
    return list(
        dataset_narratives(approved_only=True)
        .filter(keywords={})
        .order_by("id")
        .values_list("id", flat=True)
    )


def narratives_keywords_fill(
    *, narrative_ids: list[int], progress: ProgressCallback | None = None, chunk: int = 200
) -> int:
    """Extract the keywords of these narratives not done with the current model, `chunk` at a
    time, each chunk committed with its pending marks cleared; returns how many."""
    progress = progress or progress_noop
    model = settings.PARABLE_SPACY_MODEL
    ids = list(dict.fromkeys(narrative_ids))
    extracted = 0
    progress(0, len(ids), "Extracting keywords")
    for start in range(0, len(ids), chunk):
        extracted += _keywords_store(ids[start : start + chunk], model=model)
        progress(min(start + chunk, len(ids)), len(ids), "Extracting keywords")
    return extracted


@transaction.atomic
def narratives_keywords_queue(*, narrative_ids: list[int]) -> int:
    """Mark these narratives pending and queue their extraction in one task on commit (the
    in-request import and the admin's backfill action); returns how many."""
    ids = list(dict.fromkeys(narrative_ids))
    Narrative.objects.filter(pk__in=ids).update(keywords_pending_since=timezone.now())
    if ids:
        queue_on_commit("annotation.narratives_keywords_fill", ids)
    return len(ids)
