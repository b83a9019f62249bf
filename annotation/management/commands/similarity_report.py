"""python manage.py similarity_report [--batch ID ...] [--source-label L] [--approved-only]
[--near-duplicate X] [--homogeneity X] [--near-copy X] [--json]"""

import json

from django.core.management.base import BaseCommand

from annotation.datasets.records import dataset_narratives
from annotation.management.commands.export_dataset import batch_ids
from annotation.models import Narrative
from annotation.quality.integrity import IntegritySettings
from annotation.quality.similarity import narratives_embed, similarity_distribution
from annotation.quality.similarity_scan import similarity_scan
from common.progress import progress_bar

CHECK_TITLES = {
    "near_duplicate": "near-duplicate (same proverb, cosine)",
    "homogeneous": "homogeneous (same worker, other proverb, cosine)",
    "near_copy": "near-copy (name-blind trigram overlap)",
}
LISTED_PAIRS = 50


class Command(BaseCommand):
    help = (
        "Print the nearest-neighbour similarity of the dataset's stories (or of those "
        "imported under a source label): each story's highest cosine similarity "
        "(all-MiniLM-L6-v2) to another of its proverb and of its worker, and its highest "
        "name-blind word-trigram overlap (the copy check), with the share at or above each "
        "threshold; then the pairs at or above one, the earlier story marked as the source. "
        "Missing embeddings are computed and stored first."
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
        progress = progress_bar(self.stderr, quiet=options["json"])
        embedded = narratives_embed(
            ids, progress=lambda done: progress(done, len(ids), "embedding")
        )
        scan = similarity_scan(
            ids,
            settings=IntegritySettings(
                near_duplicate_similarity=options["near_duplicate"],
                homogeneity_similarity=options["homogeneity"],
                near_copy_share=options["near_copy"],
            ),
        )
        report = {
            "narratives": len(ids),
            "embedded_now": embedded,
            "same_proverb": similarity_distribution(
                scan.nearest_proverb, threshold=options["near_duplicate"]
            ),
            "same_worker": similarity_distribution(
                scan.nearest_worker, threshold=options["homogeneity"]
            ),
            "copy_overlap": similarity_distribution(
                scan.nearest_copy, threshold=options["near_copy"]
            ),
            "pairs": _pairs(scan.pairs),
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
        self._print_pairs(report["pairs"])

    def _print_pairs(self, pairs: dict) -> None:
        counts = ", ".join(f"{pairs[check]:,} {title}" for check, title in CHECK_TITLES.items())
        self.stdout.write(f"\nPairs at or above a threshold: {pairs['total']:,} ({counts})")
        for entry in pairs["list"][:LISTED_PAIRS]:
            checks = ", ".join(f"{check} {score:.2f}" for check, score in entry["checks"].items())
            self.stdout.write(
                f"  source {entry['source']['pk']} → copy {entry['copy']['pk']}: {checks}"
            )
        if pairs["total"] > LISTED_PAIRS:
            self.stdout.write(f"  … and {pairs['total'] - LISTED_PAIRS:,} more (see --json)")

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


def _pairs(pairs: list[dict]) -> dict:
    """The scan's pairs counted per check and in all, each story named by its id and its
    record pk (an imported external id, else "#<id>")."""
    ids = {entry[side] for entry in pairs for side in ("source", "copy")}
    external = dict(
        Narrative.objects.filter(pk__in=ids, external_id__isnull=False).values_list(
            "pk", "external_id"
        )
    )

    def named(pk: int) -> dict:
        return {"id": pk, "pk": external.get(pk) or f"#{pk}"}

    return {
        "total": len(pairs),
        **{check: sum(check in entry["checks"] for entry in pairs) for check in CHECK_TITLES},
        "list": [
            {"source": named(e["source"]), "copy": named(e["copy"]), "checks": e["checks"]}
            for e in pairs
        ],
    }
