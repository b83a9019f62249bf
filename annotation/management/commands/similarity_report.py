"""python manage.py similarity_report [--batch ID ...] [--source-label L] [--approved-only]
[--near-duplicate X] [--homogeneity X] [--near-copy X] [--json]"""

import json

from django.core.management.base import BaseCommand

from annotation.datasets.records import dataset_narratives
from annotation.management.commands.export_dataset import batch_ids
from annotation.management.progress import progress_printer
from annotation.quality.integrity import IntegritySettings
from annotation.quality.similarity import (
    narratives_embed,
    nearest_copy_overlaps,
    nearest_neighbour_similarities,
    similarity_distribution,
)


class Command(BaseCommand):
    help = (
        "Print the nearest-neighbour similarity distribution of the dataset (or of the "
        "narratives imported under a source label): for each story its highest cosine "
        "similarity (all-MiniLM-L6-v2) to another story of the same proverb, and to another "
        "story of the same worker, with the share at or above the near-duplicate and "
        "homogeneity thresholds; and each story's highest name-blind word-trigram overlap "
        "with another story of its proverb or worker (the copy check) with the share at or "
        "above the near-copy threshold. Missing embeddings are computed and stored first."
    )

    def add_arguments(self, parser):
        defaults = IntegritySettings()
        parser.add_argument("--batch", type=int, action="append", metavar="ID")
        parser.add_argument("--source-label", metavar="LABEL", help='e.g. "ePiC"')
        parser.add_argument("--approved-only", action="store_true")
        parser.add_argument(
            "--near-duplicate", type=float, default=defaults.near_duplicate_similarity
        )
        parser.add_argument("--homogeneity", type=float, default=defaults.homogeneity_similarity)
        parser.add_argument("--near-copy", type=float, default=defaults.near_copy_share)
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    def handle(self, *args, **options):
        narratives = dataset_narratives(
            batches=batch_ids(options["batch"]), approved_only=options["approved_only"]
        )
        if options["source_label"]:
            narratives = narratives.filter(source_label=options["source_label"])
        ids = list(narratives.values_list("id", flat=True))
        progress = progress_printer(self.stderr)
        embedded = narratives_embed(
            ids, progress=lambda done: progress(done, len(ids), "embedding")
        )
        nearest = nearest_neighbour_similarities(ids)
        report = {
            "narratives": len(ids),
            "embedded_now": embedded,
            "same_proverb": similarity_distribution(
                nearest["proverb"], threshold=options["near_duplicate"]
            ),
            "same_worker": similarity_distribution(
                nearest["worker"], threshold=options["homogeneity"]
            ),
            "copy_overlap": similarity_distribution(
                nearest_copy_overlaps(ids), threshold=options["near_copy"]
            ),
        }
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2))
            return
        self.stdout.write(f"{len(ids):,} narratives ({embedded:,} embedded now)")
        for key, title in (
            ("same_proverb", "Nearest story of the same proverb"),
            ("same_worker", "Nearest story of the same worker"),
            ("copy_overlap", "Name-blind trigram overlap with the nearest story (copy check)"),
        ):
            self._print(title, report[key])

    def _print(self, title: str, summary: dict) -> None:
        self.stdout.write(f"\n{title}: {summary['stories']:,} stories")
        if not summary["stories"]:
            return
        quantiles = "  ".join(
            f"p{float(q) * 100:g} {v:.3f}" for q, v in summary["quantiles"].items()
        )
        self.stdout.write(f"  mean {summary['mean']:.3f}  {quantiles}  max {summary['max']:.3f}")
        self.stdout.write(
            f"  at or above {summary['threshold']:.2f}: {summary['at_or_above']:,} "
            f"({summary['share_at_or_above']:.2%})"
        )
        widest = max(row["stories"] for row in summary["histogram"])
        for row in summary["histogram"]:
            bar = "#" * max(1, round(40 * row["stories"] / widest))
            self.stdout.write(f"  {row['from']:5.2f}–{row['to']:4.2f} {row['stories']:>7,} {bar}")
