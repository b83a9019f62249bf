"""A snapshot's narratives as plain examples (no Django), and the parts a run uses. Model
selection never looks at test: a dev slice is held out of train (seen: one narrative of
each proverb with two or more; unseen: all narratives of 20% of the train proverbs).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass

SETTINGS = ("seen", "unseen")
# Unseen dev: all narratives of this share of the train proverbs. A tenth of ePiC's 150
# unseen train proverbs (15) left the epoch choice to chance on one seed; a fifth (30
# proverbs, about 300 narratives) ranks each against twice the candidates.
UNSEEN_DEV_SHARE = 0.2


class SnapshotError(ValueError):
    """The snapshot cannot serve the run; the message says what is missing."""


@dataclass(frozen=True)
class Example:
    narrative_id: int
    narrative: str
    proverb_id: int
    proverb: str
    seen: str  # "train" | "test" | ""
    unseen: str
    # Verbs, then named entities, as extracted on approval (the generation baseline's input).
    keywords: tuple[str, ...] = ()
    # The narrative's alignment: (proverb span, narrative start, narrative end) per span
    # pair, character offsets into `narrative`, [start, end).
    alignments: tuple[tuple[str, int, int], ...] = ()

    @classmethod
    def from_dict(cls, fields: dict) -> Example:
        """An example from its JSON form (lists where the dataclass has tuples)."""
        return cls(
            **{
                **fields,
                "keywords": tuple(fields.get("keywords", ())),
                "alignments": tuple(tuple(pair) for pair in fields.get("alignments", ())),
            }
        )


@dataclass(frozen=True)
class Parts:
    """The examples a run uses, and the proverbs each part is ranked against."""

    train: list[Example]
    dev: list[Example]
    test: list[Example]
    dev_proverbs: list[tuple[int, str]]
    test_proverbs: list[tuple[int, str]]
    train_proverbs: list[tuple[int, str]]


def content_hash(examples: Sequence[Example]) -> str:
    """SHA-256 of the examples in id order: equal hashes, equal data."""
    rows = sorted((asdict(example) for example in examples), key=lambda row: row["narrative_id"])
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()


def proverbs_of(examples: Sequence[Example]) -> list[tuple[int, str]]:
    """(id, text) of the examples' proverbs, by id."""
    return sorted({(example.proverb_id, example.proverb) for example in examples})


def split_parts(examples: Sequence[Example], *, setting: str, seed: int, dev: bool = True) -> Parts:
    """Train (less dev), dev and test of a setting; SnapshotError when too small (without
    `dev`, nothing trained, only test is needed)."""
    if setting not in SETTINGS:
        raise SnapshotError(f"setting is seen or unseen, not {setting!r}")
    train = [e for e in examples if getattr(e, setting) == "train"]
    test = [e for e in examples if getattr(e, setting) == "test"]
    if not test or (dev and not train):
        needed = "train and test" if dev else "test"
        raise SnapshotError(
            f"The snapshot has {len(train)} {setting} train and {len(test)} {setting} test "
            f"narratives; this run needs {needed}. Import a dataset with its split files or "
            "run assign_splits on the approved narratives."
        )
    held: list[Example] = []
    if dev:
        held = _seen_dev(train, seed) if setting == "seen" else _unseen_dev(train, seed)
        if not held:
            raise SnapshotError(
                f"The {setting} train part is too small to hold out a dev slice "
                "(seen: a proverb with two train narratives; unseen: two train proverbs)."
            )
    held_ids = {e.narrative_id for e in held}
    train = [e for e in train if e.narrative_id not in held_ids]
    if dev and len(proverbs_of(train)) < 2:
        raise SnapshotError(f"The {setting} train part needs narratives of two proverbs at least.")
    # Seen: one label set for every part; unseen: each part against its own proverbs.
    everything = proverbs_of(examples) if setting == "seen" else None
    return Parts(
        train=train,
        dev=held,
        test=test,
        dev_proverbs=everything or proverbs_of(held),
        test_proverbs=everything or proverbs_of(test),
        train_proverbs=everything or proverbs_of(train),
    )


def _seen_dev(train: list[Example], seed: int) -> list[Example]:
    by_proverb: dict[int, list[Example]] = defaultdict(list)
    for example in sorted(train, key=lambda e: e.narrative_id):
        by_proverb[example.proverb_id].append(example)
    rng = random.Random(f"{seed}:dev:seen")
    return [
        rng.choice(narratives)
        for _, narratives in sorted(by_proverb.items())
        if len(narratives) >= 2
    ]


def _unseen_dev(train: list[Example], seed: int) -> list[Example]:
    proverbs = sorted({e.proverb_id for e in train})
    if len(proverbs) < 2:
        return []
    random.Random(f"{seed}:dev:unseen").shuffle(proverbs)
    held = set(proverbs[: max(1, round(len(proverbs) * UNSEEN_DEV_SHARE))])
    return [e for e in train if e.proverb_id in held]
