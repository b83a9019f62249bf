"""Keywords of a narrative for the generation baseline: its verbs and named entities (spaCy).

ePiC conditions narrative generation on a proverb and the narrative's verbs and
named entities (Ghosh & Srivastava 2022, section 5.2). The pipeline named by
settings.PARABLE_SPACY_MODEL is loaded once per process, never inside a request: a Celery
worker loads it with its first keywords task; where tasks run in-process (no broker),
the first task that needs it loads it, after the response (config.task_queue).

An approved narrative is marked `keywords_pending_since` in the approval's
transaction; extraction clears the mark. Whatever is still marked after the grace
period (a broker that was down, a worker killed mid-task) is found by
`narratives_keywords_pending` and re-queued by the beat task `annotation.keywords_requeue`.
"""

from __future__ import annotations

import functools
import threading

from django.conf import settings
from django.db import transaction

from annotation.models import Narrative
from config.task_queue import waiting_past_grace

_loading = threading.Lock()


@functools.cache
def _load(name: str):
    import spacy

    return spacy.load(name)


def spacy_pipeline(name: str):
    """The spaCy pipeline `name` (a package name or a path), loaded once per process.

    The lock makes a caller that arrives while another thread loads it wait for it instead
    of loading a second copy.
    """
    with _loading:
        return _load(name)


def keywords_extract(text: str, *, model: str | None = None) -> dict:
    """Verbs (lemmas, lowercased, in order of first use) and named entities of a text.

    Returns {"verbs": [...], "entities": [{"text": ..., "label": ...}, ...], "model": name};
    auxiliaries are not verbs here, and each verb and entity appears once.
    """
    model = model or settings.PARABLE_SPACY_MODEL
    doc = spacy_pipeline(model)(text)
    verbs = list(dict.fromkeys(token.lemma_.lower() for token in doc if token.pos_ == "VERB"))
    entities = list(dict.fromkeys((entity.text, entity.label_) for entity in doc.ents))
    return {
        "verbs": verbs,
        "entities": [{"text": text, "label": label} for text, label in entities],
        "model": model,
    }


@transaction.atomic
def narrative_keywords_extract(*, narrative_id: int, force: bool = False) -> Narrative:
    """Store the narrative's keywords and clear its pending mark; done already with the
    same model, only the mark is cleared."""
    narrative = Narrative.objects.select_for_update().get(pk=narrative_id)
    model = settings.PARABLE_SPACY_MODEL
    if force or narrative.keywords.get("model") != model:
        narrative.keywords = keywords_extract(narrative.text, model=model)
    narrative.keywords_pending_since = None
    narrative.save(update_fields=["keywords", "keywords_pending_since"])
    return narrative


def narratives_keywords_pending(*, now=None, limit: int = 500) -> list[int]:
    """Ids of narratives whose keywords have been pending longer than the grace period
    (PARABLE_BACKGROUND_GRACE_SECONDS), oldest first, at most `limit`."""
    return waiting_past_grace(
        Narrative.objects, since="keywords_pending_since", limit=limit, now=now
    )
