"""manage.py import_mturk_results FILE --batch-type TYPE (write, align, rate, template)
--mapping ... [--json]"""

from pathlib import Path

from django.core.management.base import CommandError

from annotation.management.reports import ReportCommand, file_read
from crowd import task_types
from mturk.importing import mapping_help, mturk_results_import
from mturk.results import ResultsFileError


class Command(ReportCommand):
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
        super().add_arguments(parser)

    def handle(self, *args, **options):
        path = options["file"]
        try:
            report = mturk_results_import(
                content=file_read(path),
                batch_type=options["batch_type"],
                mapping=options["mapping"],
                batch_name=options["batch_name"] or f"MTurk results: {path.name}",
            )
        except ResultsFileError as error:
            raise CommandError(f"Nothing was imported: {error}") from error
        self.report_write(
            options,
            report.as_dict(),
            f"{report.rows} row(s): {report.created} imported, {report.unchanged} already "
            f"in Parable, {len(report.errors)} with errors; {report.workers_created} new "
            f"worker(s); batch {report.batch or 'none: nothing was written'}.",
            [f"line {error['line']}: {error['message']}" for error in report.errors],
        )
