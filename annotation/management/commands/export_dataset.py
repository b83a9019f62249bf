"""python manage.py export_dataset --format epic|jsonl|csv|parquet OUT [--batch ID ...]
[--all-statuses] [...]"""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.exports.dataset import DATA_FILES, FORMATS, dataset_export
from common.progress import progress_bar
from crowd.models import Batch


def source_argument(parser) -> None:
    """--source crowd|imported|model, repeatable: the narrative sources in scope."""
    parser.add_argument(
        "--source",
        choices=("crowd", "imported", "model"),
        action="append",
        help="Only narratives of this source (repeat for several); default crowd and imported.",
    )


def batch_ids(values: list[int] | None) -> list[int] | None:
    """The --batch ids, checked to exist."""
    if not values:
        return None
    missing = sorted(
        set(values) - set(Batch.objects.filter(pk__in=values).values_list("pk", flat=True))
    )
    if missing:
        raise CommandError(f"No batch with id {', '.join(map(str, missing))}.")
    return sorted(set(values))


def newer_flesch_argument(parser) -> None:
    """--newer-flesch: the analysis gives textstat 0.7.13's Flesch beside the paper's."""
    parser.add_argument(
        "--newer-flesch",
        action="store_true",
        help="Also give Flesch reading ease under textstat 0.7.13's rules, beside the "
        "paper's (textstat 0.7.2's): it takes as long again as the paper's figure.",
    )


class Command(BaseCommand):
    # Reads the database and writes files: the system checks (which load the whole URLconf,
    # the API schema views included) would cost more start-up than they are worth here.
    requires_system_checks = []
    help = (
        "Export the dataset into the folder OUT: the data file (epic.json, dataset.jsonl, "
        "dataset.csv or dataset.parquet, one row per narrative; approved narratives unless "
        "--all-statuses), README.md (the dataset card "
        "with every statistic and its definition) and, for ePiC, the split files. Worker ids "
        "become salted hashes unless --raw-worker-ids."
    )

    def add_arguments(self, parser):
        parser.add_argument("out", type=Path, help="Folder to write into (created if missing).")
        parser.add_argument("--format", choices=FORMATS, required=True)
        parser.add_argument(
            "--batch",
            type=int,
            action="append",
            metavar="ID",
            help="Only narratives written in this crowd batch (repeat for several).",
        )
        statuses = parser.add_mutually_exclusive_group()
        statuses.add_argument(
            "--approved-only",
            action="store_true",
            help="Approved narratives only: the default, kept for scripts that name it.",
        )
        statuses.add_argument(
            "--all-statuses",
            action="store_true",
            help="Every status (submitted, rejected, ...), not approved narratives only.",
        )
        source_argument(parser)
        parser.add_argument(
            "--raw-worker-ids",
            action="store_true",
            help="Keep provider worker ids instead of salted hashes.",
        )
        statistics = parser.add_mutually_exclusive_group()
        statistics.add_argument(
            "--analysis",
            type=Path,
            metavar="FILE",
            help="Statistics for the card from an `analyze --json` output, not recomputed.",
        )
        statistics.add_argument(
            "--no-statistics",
            action="store_true",
            help="Card without the analysis (counts only): fastest.",
        )
        parser.add_argument("--seed", type=int, default=0, help="Seed of the analysis.")
        newer_flesch_argument(parser)

    def handle(self, *args, **options):
        analysis = _read_analysis(options["analysis"]) if options["analysis"] else None
        result = dataset_export(
            format=options["format"],
            directory=options["out"],
            batches=batch_ids(options["batch"]),
            approved_only=not options["all_statuses"],
            sources=options["source"],
            raw_worker_ids=options["raw_worker_ids"],
            requested_by="the export_dataset command",
            statistics=not options["no_statistics"],
            analysis=analysis,
            seed=options["seed"],
            newer_flesch=options["newer_flesch"],
            progress=progress_bar(self.stderr),
        )
        self.stdout.write(
            f"Wrote {result.rows} narrative(s) to {result.directory / DATA_FILES[result.format]}"
            f" and the dataset card {result.card}."
        )


def _read_analysis(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CommandError(f"Cannot read the analysis {path}: {error}") from error
