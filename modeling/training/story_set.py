"""The evaluation sets of the generation baseline, shipped as files: English stories with
their keywords and splits, as `Example`s.

No Django. `shipped`: 2,040 stories shaped like ePiC, composed from sentence frames
(136 proverbs of annotation/data/demo_proverbs.csv, 15 stories each of about 65 words;
seen: 11 train and 4 test a proverb; unseen: 82 train and 54 test proverbs), by
bench/modeling/compose_stories.py. `figurative`: 1,295 stories written by people, the
figurative narratives benchmark's training narratives (MIT licence, figurative_set.LICENSE
beside it), each with its idiom or simile where ePiC has the proverb, by
bench/modeling/figurative_set.py. Both carry the keywords Parable extracts on approval
(verbs, then named entities, by spaCy); the scripts say how each was built and split.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from modeling.training.examples import Example

DATA = Path(__file__).resolve().parents[1] / "data"
SETS = {"shipped": DATA / "story_set.jsonl.gz", "figurative": DATA / "figurative_set.jsonl.gz"}
STORY_SET = SETS["shipped"]


def story_set_examples(path: Path = STORY_SET) -> list[Example]:
    """A set's stories as Examples, in file order (`path`: a SETS value or any such file)."""
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [Example.from_dict(json.loads(line)) for line in lines]
