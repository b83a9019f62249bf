"""Train/test splits of the dataset for the seen and unseen proverb settings (ePiC §5.1).

Seen: each proverb's narratives are divided 6:4 between train and test, so every
proverb is in both. Unseen: the proverbs are divided 6:4, so train and test share
no proverb. Both are drawn from a seed, or taken from split files (JSON arrays of
record pks named ``*_{seen,unseen}_{train,test}_*.json``, as ePiC releases them).

The rule, for n items (a proverb's narratives, or the proverbs): the items are
ordered by id and shuffled with ``random.Random(f"{seed}:seen:{proverb_id}")``
(seen) or ``random.Random(f"{seed}:unseen")`` (unseen); the first
``round_half_up(0.6 * n) = (6 * n + 5) // 10`` are train, the rest test (10
narratives: 6 and 4; 250 proverbs: 150 and 100; 1 narrative: train). Only
approved narratives written by the crowd or imported get a split; others get none.
"""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Count

from annotation.datasets.imported_files import epic_split_file_key, imported_file_record
from annotation.datasets.layouts import json_array_layout
from annotation.datasets.records import DATASET_SOURCES, narratives_for_pks
from annotation.models import ImportedFile, Narrative

SETTINGS = ("seen", "unseen")
PARTS = ("train", "test")
SPLIT_FILE_NAME = re.compile(r"(?:^|_)(seen|unseen)_(train|test)(?:_[^/\\]*)?\.json$")
_CHUNK = 2_000


class SplitFileError(ValueError):
    """Split files that cannot be applied; nothing from them was written."""

    def __init__(self, messages: list[str]) -> None:
        self.messages = messages
        super().__init__("; ".join(messages))


@dataclass
class SplitResult:
    counts: dict = field(default_factory=dict)  # setting -> part -> narratives
    unknown: list[str] = field(default_factory=list)  # pks named in files but not found

    def as_dict(self) -> dict:
        return {"splits": self.counts, "unknown": self.unknown}


def train_count(n: int) -> int:
    """Items of n that go to train: 0.6 n rounded half up."""
    return (6 * n + 5) // 10


def seen_parts(narratives_by_proverb: Mapping[int, Sequence[int]], seed: int) -> dict[int, str]:
    """Narrative id -> "train" | "test", per proverb (see the module docstring)."""
    parts = {}
    for proverb_id, narrative_ids in narratives_by_proverb.items():
        parts.update(_divide(narrative_ids, random.Random(f"{seed}:seen:{proverb_id}")))
    return parts


def unseen_parts(proverb_ids: Iterable[int], seed: int) -> dict[int, str]:
    """Proverb id -> "train" | "test" (see the module docstring)."""
    return _divide(proverb_ids, random.Random(f"{seed}:unseen"))


def _divide(ids: Iterable[int], rng: random.Random) -> dict[int, str]:
    ordered = sorted(ids)
    rng.shuffle(ordered)
    cut = train_count(len(ordered))
    return {item: PARTS[0] if i < cut else PARTS[1] for i, item in enumerate(ordered)}


def split_file_part(name: str) -> tuple[str, str] | None:
    """(setting, part) named by a split file's name, or None when it names none."""
    match = SPLIT_FILE_NAME.search(name)
    return (match[1], match[2]) if match else None


def split_files_select(files: Mapping[str, bytes]) -> tuple[dict[str, bytes], list[str]]:
    """The split files among a release folder's files, and the names of the others (ePiC's
    has two *_label_map.json files beside them); SplitFileError when none is a split file."""
    chosen = {name: content for name, content in files.items() if split_file_part(name)}
    if files and not chosen:
        expected = "epic_seen_train_pks.json (*_{seen,unseen}_{train,test}_*.json)"
        names = ", ".join(sorted(files))
        raise SplitFileError([f"No split files among {names}: expected names like {expected}."])
    return chosen, sorted(set(files) - set(chosen))


def missing_split_files(names: Iterable[str]) -> list[str]:
    """The split files a release folder lacks, named after one it has (all four are expected:
    seen and unseen, train and test)."""
    named = {split_file_part(name): name for name in sorted(names) if split_file_part(name)}
    if not named:
        return []
    model = next(iter(named.values()))
    found = SPLIT_FILE_NAME.search(model)
    prefix = "_" if found.group().startswith("_") else ""
    return [
        model[: found.start()] + f"{prefix}{setting}_{part}" + model[found.end(2) :]
        for setting in SETTINGS
        for part in PARTS
        if (setting, part) not in named
    ]


def parse_split_files(files: Mapping[str, bytes]) -> dict[str, dict[str, str]]:
    """Setting -> record pk -> part (in file order), from split files by name. SplitFileError
    for a file that is not one, a pk in both parts, or a missing one of the four (without
    the unseen test file, those narratives would silently have no unseen split)."""
    parts: dict[str, dict[str, str]] = defaultdict(dict)
    problems = []
    for name, content in sorted(files.items()):
        named = split_file_part(name)
        if named is None:
            problems.append(
                f"{name}: a split file is named *_{{seen,unseen}}_{{train,test}}_*.json."
            )
            continue
        pks = _read_pks(name, content, problems)
        setting, part = named
        for pk in pks:
            if parts[setting].setdefault(pk, part) != part:
                problems.append(f"{name}: {pk} is in both {setting} train and {setting} test.")
    problems.extend(
        f"The split files lack {name} (each of seen and unseen needs its train and its test "
        "file); give all four."
        for name in missing_split_files(files)
    )
    if problems:
        raise SplitFileError(problems)
    return dict(parts)


def _read_pks(name: str, content: bytes, problems: list[str]) -> list[str]:
    try:
        pks = json.loads(content.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        problems.append(f"{name}: not a JSON file ({error}).")
        return []
    if not isinstance(pks, list) or not all(isinstance(pk, str) for pk in pks):
        problems.append(f"{name}: a split file is a JSON array of record pks (strings).")
        return []
    return pks


def split_files_record(files: Mapping[str, bytes]) -> None:
    """Keep each split file's name and layout (ImportedFile), so that exported split files
    are written as the imported ones were: the export of the files' narratives gives the
    files back byte for byte. Files `parse_split_files` read."""
    for name, content in files.items():
        setting, part = split_file_part(name)
        text = content.decode("utf-8")
        pks = json.loads(text)
        imported_file_record(
            kind=ImportedFile.Kind.EPIC_SPLIT,
            key=epic_split_file_key(setting=setting, part=part),
            filename=name,
            fields=[],
            records=len(pks),
            layout=json_array_layout(text, pks),
        )


@transaction.atomic
def narrative_splits_apply(
    *, parts: Mapping[str, Mapping[str, str]], files: Mapping[str, bytes] | None = None
) -> SplitResult:
    """Set the splits that split files name, with each narrative's place in its file (the
    export writes the files in that order); narratives they don't name keep theirs. With
    the `files` themselves, their names and layouts are kept too (split_files_record)."""
    if files:
        split_files_record(files)
    result = SplitResult()
    for setting, by_pk in parts.items():
        found = narratives_for_pks(list(by_pk))
        result.unknown.extend(pk for pk in by_pk if pk not in found)
        next_position = dict.fromkeys(PARTS, 0)
        narratives = []
        for pk, part in by_pk.items():
            position = next_position[part]
            next_position[part] += 1
            if pk in found:
                narrative = Narrative(pk=found[pk])
                setattr(narrative, f"split_{setting}", part)
                setattr(narrative, f"split_{setting}_position", position)
                narratives.append(narrative)
        result.counts[setting] = {
            part: sum(getattr(n, f"split_{setting}") == part for n in narratives) for part in PARTS
        }
        Narrative.objects.bulk_update(
            narratives, [f"split_{setting}", f"split_{setting}_position"], batch_size=_CHUNK
        )
    result.unknown = sorted(set(result.unknown))
    return result


@transaction.atomic
def narrative_splits_assign(*, seed: int = 0) -> SplitResult:
    """Draw the seen and unseen splits of every approved dataset narrative from a seed."""
    rows = (
        Narrative.objects.filter(status=Narrative.Status.APPROVED, source__in=DATASET_SOURCES)
        .order_by("id")
        .values_list("id", "proverb_id")
    )
    by_proverb: dict[int, list[int]] = defaultdict(list)
    for narrative_id, proverb_id in rows.iterator(chunk_size=_CHUNK):
        by_proverb[proverb_id].append(narrative_id)
    seen = seen_parts(by_proverb, seed)
    unseen_proverbs = unseen_parts(by_proverb, seed)
    Narrative.objects.exclude(split_seen="", split_unseen="").update(
        split_seen="", split_unseen="", split_seen_position=None, split_unseen_position=None
    )
    combined = defaultdict(list)
    for proverb_id, narrative_ids in by_proverb.items():
        for narrative_id in narrative_ids:
            combined[(seen[narrative_id], unseen_proverbs[proverb_id])].append(narrative_id)
    counts = {setting: dict.fromkeys(PARTS, 0) for setting in SETTINGS}
    for (seen_part, unseen_part), ids in combined.items():
        for start in range(0, len(ids), _CHUNK):  # one UPDATE per combination, not per row
            Narrative.objects.filter(pk__in=ids[start : start + _CHUNK]).update(
                split_seen=seen_part, split_unseen=unseen_part
            )
        counts["seen"][seen_part] += len(ids)
        counts["unseen"][unseen_part] += len(ids)
    return SplitResult(counts=counts)


def split_counts() -> dict[str, dict[str, int]]:
    """Approved dataset narratives per part of each setting ("none": no split yet)."""
    narratives = Narrative.objects.filter(
        status=Narrative.Status.APPROVED, source__in=DATASET_SOURCES
    )
    counts = {}
    for setting in SETTINGS:
        rows = narratives.values_list(f"split_{setting}").annotate(n=Count("id")).order_by()
        found = {part or "none": n for part, n in rows}
        counts[setting] = {part: found.get(part, 0) for part in (*PARTS, "none")}
    return counts
