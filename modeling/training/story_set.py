"""The shipped evaluation set of the baselines: 2,040 English stories shaped like ePiC.

No Django. 136 proverbs (annotation/data/demo_proverbs.csv), 15 stories each of
about 65 words, each written from its proverb and a keyword list (its verbs and named
entities, extracted by spaCy as Parable extracts them on approval); seen: 11 train
and 4 test stories per proverb (1,496 and 544), unseen: 82 train and 54 test
proverbs. Composed offline, seeded, by bench/modeling/compose_stories.py, which says
how; the tests and bench/modeling/generation.py train and score on it.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from modeling.training.examples import Example

STORY_SET = Path(__file__).resolve().parents[1] / "data" / "story_set.jsonl.gz"


def story_set_examples(path: Path = STORY_SET) -> list[Example]:
    """The set's stories as Examples, in file order."""
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [Example.from_dict(json.loads(line)) for line in lines]
