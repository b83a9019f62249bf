"""The generation baseline's evaluation sets, shipped as files of `Example`s with keywords
and splits (no Django): `shipped`, 2,040 stories composed from sentence frames on 136
proverbs (bench/modeling/compose_stories.py), and `figurative`, 1,295 stories written by
people, the figurative narratives benchmark's training narratives with their idiom or
simile as the proverb (MIT licence, figurative_set.LICENSE; bench/modeling/figurative_set.py).
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
