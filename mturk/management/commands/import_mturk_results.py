"""manage.py import_mturk_results FILE --batch-type TYPE (write, align, rate, template)
--mapping ... [--json]"""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from crowd import task_types
from mturk.importing import mapping_help, mturk_results_import
from mturk.results import ResultsFileError


class Command(BaseCommand):
    help = (
        "Import an MTurk batch results CSV (the requester site's download) as Parable answers "
        "with their MTurk workers and statuses. Rows that fail are reported by line; the "
        "others are kept. Importing the same file again changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--batch-type", required=True, choices=task_types.keys_importable())
        parser.add_argument("--mapping", required=True, help=mapping_help())
        parser.add_argument(
            "--batch-name", default="", help="The import batch (default: from the file name)."
        )
        parser.add_argument("--json", action="store_true", help="Print the report as JSON.")

    def handle(self, *args, **options):
        path = options["file"]
        try:
            content = path.read_bytes()
        except OSError as error:
            raise CommandError(f"Cannot read {path}: {error.strerror}.") from error
        try:
            report = mturk_results_import(
                content=content,
                batch_type=options["batch_type"],
                mapping=options["mapping"],
                batch_name=options["batch_name"] or f"MTurk results: {path.name}",
            )
        except ResultsFileError as error:
            raise CommandError(f"Nothing was imported: {error}") from error
        if options["json"]:
            self.stdout.write(json.dumps(report.as_dict(), ensure_ascii=False))
        else:
            self.stdout.write(
                f"{report.rows} row(s): {report.created} imported, {report.unchanged} already "
                f"in Parable, {len(report.errors)} with errors; {report.workers_created} new "
                f"worker(s); batch {report.batch or 'none: nothing was written'}."
            )
            for error in report.errors:
                self.stderr.write(f"line {error['line']}: {error['message']}")
