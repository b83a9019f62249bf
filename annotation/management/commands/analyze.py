"""python manage.py analyze [--batch ID ...] [--source S ...] [--approved-only] [--seed N]
[--newer-flesch] [--json OUT]"""

import json
from pathlib import Path

from django.core.management.base import BaseCommand

from annotation.analysis.cards import analysis_sections
from annotation.analysis.selectors import dataset_analysis
from annotation.management.commands.export_dataset import (
    batch_ids,
    newer_flesch_argument,
    source_argument,
)
from annotation.management.reports import text_write
from common.progress import progress_bar


def scope_arguments(parser) -> None:
    """The analysis scope's options: --batch, --approved-only, --source, --seed, and
    --newer-flesch."""
    parser.add_argument("--batch", type=int, action="append", metavar="ID")
    parser.add_argument("--approved-only", action="store_true")
    source_argument(parser)
    parser.add_argument("--seed", type=int, default=0)
    newer_flesch_argument(parser)


def scope_analysis(options: dict, *, batches: list[int] | None, stderr) -> dict:
    """The analysis of the scope the options name (`batches`: their checked --batch ids),
    its progress on `stderr` (a bar; none under --json)."""
    return dataset_analysis(
        batches=batches,
        approved_only=options["approved_only"],
        sources=options["source"],
        seed=options["seed"],
        progress=progress_bar(stderr, quiet=options.get("json_out") is not None),
        newer_flesch=options["newer_flesch"],
    )


class Command(BaseCommand):
    # Reads the database and writes files: the system checks (which load the whole URLconf,
    # the API schema views included) would cost more start-up than they are worth here.
    requires_system_checks = []
    help = (
        "Analyse the dataset as in the ePiC paper: collection, dataset statistics, lexical "
        "overlap, diversity, sentiment, readability, human evaluation. --json OUT writes "
        "the documented JSON contract (OUT '-' for standard output); a progress bar goes "
        "to standard error on a terminal, without --json."
    )

    def add_arguments(self, parser):
        scope_arguments(parser)
        parser.add_argument("--json", type=Path, metavar="OUT", dest="json_out")

    def handle(self, *args, **options):
        result = scope_analysis(options, batches=batch_ids(options["batch"]), stderr=self.stderr)
        if options["json_out"] is not None:
            text = json.dumps(result, ensure_ascii=False, indent=2) + "\n"
            text_write(self, text, options["json_out"])
            return
        for section in analysis_sections(result):
            self.stdout.write(f"\n{section.title}")
            for table in section.tables:
                if table.columns[:2] == ["Statistic", "Value"]:
                    for key, value, _ in table.rows:
                        self.stdout.write(f"  {key}: {value}")
