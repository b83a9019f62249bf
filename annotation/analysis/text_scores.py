"""The per-text measures kept between analyses (annotation.models.TextScores): scoring every
text again is most of an analysis of a dataset that grew by a few batches. A row is found by
`text_key`, a hash of the scorers' versions, the Flesch rules and the text, so a figure read
back is the one the analysis would compute now. The newer Flesch and other splitters are
never kept.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from functools import cache
from importlib.metadata import version

from django.db import DatabaseError, connections, router, transaction

from annotation.models import TextScores

logger = logging.getLogger(__name__)
# At most this many keys in one IN (...): SQLite's default limit on host parameters is 999
# in older builds.
_LOOKUP = 900
Scores = tuple[float, float, int]  # (VADER compound, Flesch, sentences)


@cache
def scores_rules() -> str:
    """What makes a text's scores: the scorers' versions and the Flesch rules."""
    from annotation.analysis.readability import PAPER_RULES  # numpy: not on the web path

    return (
        f"vaderSentiment {version('vaderSentiment')}; Flesch {PAPER_RULES} with pyphen "
        f"{version('pyphen')}; sentences by spaCy {version('spacy')}'s sentencizer"
    )


def text_key(text: str, rules: str | None = None) -> str:
    """The key of a text's scores under `rules` (default: the installed scorers')."""
    material = f"{rules or scores_rules()}\x00{text}".encode("utf-8", "surrogatepass")
    return hashlib.blake2b(material, digest_size=16).hexdigest()


class KeptScores:
    """The kept scores of the texts of one analysis, read in the fewest queries: all the
    kept rows at once when there are not many more of them than the texts the analysis
    expects (a scan is several times faster than keyed lookups), else by key."""

    def __init__(self, *, expected: int) -> None:
        self._all: dict[str, Scores] | None = None
        if TextScores.objects.count() <= 2 * expected + _LOOKUP:
            self._all = _scores_of(TextScores.objects.all())

    def of(self, texts: Sequence[str]) -> list[Scores | None]:
        """The kept scores of each text, or None where there are none."""
        if self._all is None:
            return stored_scores(texts)
        return [self._all.get(text_key(text)) for text in texts]


def stored_scores(texts: Sequence[str]) -> list[Scores | None]:
    """The kept scores of each text, or None where there are none (looked up by key)."""
    keys = [text_key(text) for text in texts]
    found: dict[str, Scores] = {}
    for lo in range(0, len(keys), _LOOKUP):
        found |= _scores_of(TextScores.objects.filter(key__in=keys[lo : lo + _LOOKUP]))
    return [found.get(key) for key in keys]


def _scores_of(rows) -> dict[str, Scores]:
    """The scores of the TextScores rows of a queryset, by key."""
    fields = ("key", "compound", "flesch", "sentences")
    return {
        key: (compound, flesch, count) for key, compound, flesch, count in rows.values_list(*fields)
    }


def scores_keep(scored: Sequence[tuple[str, float, float, int]]) -> int:
    """Keep (text, compound, Flesch, sentences) for the next analysis; returns how many
    rows were offered. A speed-up only: a database error is logged, not raised, and a row
    another run kept first stays. One statement for every row (executemany: bulk_create
    builds one per 250 rows on SQLite, several times slower)."""
    rows = {text_key(text): (compound, flesch, count) for text, compound, flesch, count in scored}
    if not rows:
        return 0
    connection = connections[router.db_for_write(TextScores)]
    quote = connection.ops.quote_name
    columns = ", ".join(map(quote, ("key", "compound", "flesch", "sentences")))
    insert = f"INSERT INTO {quote(TextScores._meta.db_table)} ({columns}) VALUES (%s, %s, %s, %s)"
    if connection.vendor == "sqlite":
        insert = insert.replace("INSERT INTO", "INSERT OR IGNORE INTO", 1)
    else:
        insert += f" ON CONFLICT ({quote('key')}) DO NOTHING"
    try:
        with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
            cursor.executemany(insert, [(key, *values) for key, values in rows.items()])
    except DatabaseError:
        logger.warning("Could not keep %d texts' scores for the next analysis.", len(rows))
        return 0
    return len(rows)


def texts_score_keep(texts: Sequence[str]) -> int:
    """Score, in this process, and keep the texts that have no kept scores; returns how
    many were scored. Set off beside the keywords by an approval or an import."""
    from annotation.analysis.pool import score_texts  # the scorers: only where they run
    from annotation.analysis.sentences import get_sentence_splitter

    texts = list(dict.fromkeys(texts))
    missing = [text for text, kept in zip(texts, stored_scores(texts), strict=True) if not kept]
    if not missing:
        return 0
    compounds, flesch, _ = score_texts(missing)
    sentences = get_sentence_splitter("sentencizer")(missing)
    scores_keep(list(zip(missing, compounds, flesch, sentences, strict=True)))
    return len(missing)
