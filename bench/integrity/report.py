"""Times `manage.py similarity_report`'s work on an ePiC-shaped dataset: embedding every
story once, then the dataset-wide scan (annotation/quality/similarity_scan.py: every
story against its proverb's and its worker's stories by matrix operations), beside the
per-story check (annotation/quality/similarity.py, one story at a time, as a submission
is checked) on a sample, scaled to the whole dataset.

Run from the repository root: `python bench/integrity/report.py [--size 2500] [--sample 50]`.
It migrates a temporary SQLite database and fills it with bench/export/run.py's `populate`.
Prints CPU seconds (this process and its threads) and wall seconds per phase, the ratio
of the per-story estimate to the scan, and the load average: this machine is shared.
Prints figures; it is not a test.

The model's work grows with wordpieces, not words. The generated stories have ePiC's
words (about 65 a story; the paper's Table 1: 64.27) but their pseudo-words split into
about 2.25 MiniLM wordpieces each, where English prose takes 1.4-1.55 (measured on the
text of the ePiC, figurative-language and story-gap papers). The embedding is timed
twice: on the stories as generated, and on the same stories cut to 1.5 wordpieces per
word, the length of ePiC's English stories in wordpieces.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
TARGET_CPU_S = 30.0
# `similarity_report` on 2,500 stories before the shared encoder and the matrix scan.
BEFORE = "138 s CPU, 12 min 48 s wall"
ENGLISH_WORDPIECES_PER_WORD = 1.5


def english_length(texts: list[str], tokenizer) -> list[str]:
    """Each text cut to ENGLISH_WORDPIECES_PER_WORD wordpieces per word it has."""
    encoded = tokenizer(texts, add_special_tokens=False, return_offsets_mapping=True)
    cut = []
    for text, offsets in zip(texts, encoded["offset_mapping"], strict=True):
        keep = round(len(text.split()) * ENGLISH_WORDPIECES_PER_WORD)
        cut.append(text if keep >= len(offsets) else text[: offsets[keep - 1][1]])
    return cut


def mean_wordpieces(texts: list[str], tokenizer) -> float:
    return sum(map(len, tokenizer(texts)["input_ids"])) / max(1, len(texts))


def _timed(action) -> tuple[float, float, object]:
    """(CPU seconds, wall seconds, result) of one call."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu, wall = usage.ru_utime + usage.ru_stime, time.perf_counter()
    result = action()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime - cpu, time.perf_counter() - wall, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=2_500, help="narratives (default 2,500)")
    parser.add_argument("--sample", type=int, default=50, help="stories checked one by one")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        os.environ["PARABLE_VAR_DIR"] = workdir
        os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.local"
        import django

        django.setup()
        from annotation.models import Narrative, NarrativeIntegrity
        from annotation.quality.embeddings import embed, embedding_model_path, sentence_model
        from annotation.quality.similarity import (
            EMBED_CHUNK,
            narrative_similarity_check,
            narratives_embed,
        )
        from annotation.quality.similarity_scan import similarity_scan
        from bench.export.run import populate

        populate(args.size)
        ids = list(Narrative.objects.values_list("pk", flat=True))
        embed(["warm the model up"])  # loading the model is not the report's work
        tokenizer = sentence_model(embedding_model_path()).tokenizer
        stories = list(Narrative.objects.order_by("pk").only("pk", "text"))
        texts = [story.text for story in stories]
        english = english_length(texts, tokenizer)
        english_cpu, english_wall, _ = _timed(  # in narratives_embed's chunks
            lambda: [
                embed(english[i : i + EMBED_CHUNK]) for i in range(0, len(english), EMBED_CHUNK)
            ]
        )
        embed_cpu, embed_wall, _ = _timed(lambda: narratives_embed(ids))
        scan_cpu, scan_wall, scan = _timed(lambda: similarity_scan(ids))
        sample = ids[:: max(1, len(ids) // args.sample)][: args.sample]
        NarrativeIntegrity.objects.filter(narrative_id__in=sample).update(checked_at=None)
        one_cpu, one_wall, _ = _timed(
            lambda: [narrative_similarity_check(narrative_id=pk) for pk in sample]
        )
        # The command as a researcher runs it, in a process of its own (imports and the
        # model's load included), on the stories cut to English's length, none embedded.
        for story, text in zip(stories, english, strict=True):
            story.text = text
        Narrative.objects.bulk_update(stories, ["text"], batch_size=500)
        NarrativeIntegrity.objects.update(embedding=None)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.perf_counter()
        subprocess.run(
            [sys.executable, "manage.py", "similarity_report", "--json"],
            cwd=ROOT,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        command_wall = time.perf_counter() - wall
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        command_cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        scale = len(ids) / len(sample)
        print(f"similarity report's work on {len(ids):,} narratives")
        print(
            f"  embedding every story once:        {embed_cpu:8.2f} s CPU {embed_wall:8.2f} s wall"
            f"   (as generated: {mean_wordpieces(texts, tokenizer):.0f} wordpieces a story)"
        )
        print(
            f"  the same, cut to English's length: {english_cpu:8.2f} s CPU"
            f" {english_wall:8.2f} s wall"
            f"   ({mean_wordpieces(english, tokenizer):.0f} wordpieces a story)"
        )
        print(
            f"  dataset-wide scan (matrix):        {scan_cpu:8.2f} s CPU {scan_wall:8.2f} s wall"
            f"   ({len(scan.pairs):,} pairs at or above a threshold)"
        )
        print(
            f"  per-story check, {len(sample)} scaled x{scale:.0f}:"
            f" {one_cpu * scale:8.2f} s CPU {one_wall * scale:8.2f} s wall"
            f"   ({one_cpu * scale / max(scan_cpu, 1e-9):,.0f}x the scan's CPU)"
        )
        for label, embedding in (("as generated", embed_cpu), ("English length", english_cpu)):
            print(
                f"  the report's work, {label + ':':16}{embedding + scan_cpu:8.2f} s CPU"
                f" (target < {TARGET_CPU_S:.0f} s; before: {BEFORE})"
            )
        print(
            f"  `similarity_report` itself, English length: {command_cpu:.2f} s CPU"
            f" {command_wall:.2f} s wall (a process of its own: imports, model load, report)"
        )
        print(f"  load average (1, 5, 15 min): {os.getloadavg()}")


if __name__ == "__main__":
    main()
