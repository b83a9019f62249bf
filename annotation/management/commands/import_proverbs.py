"""python manage.py import_proverbs FILE [--source NAME] [--json]"""

from pathlib import Path

from django.core.management.base import CommandError

from annotation.curation.proverb_files import LineError
from annotation.curation.services import ImportReport, ProverbFileError, proverbs_import
from annotation.management.reports import ReportCommand, file_read


class Command(ReportCommand):
    help = (
        "Import proverbs from a text file (one a line) or a CSV (text, source, meaning). "
        "Duplicates are skipped and counted, likely variants proposed as groups, "
        "bad lines reported by number."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--source", default="", help="Source recorded on each proverb.")
        super().add_arguments(parser)

    def handle(self, *args, **options):
        path: Path = options["file"]
        try:
            report = proverbs_import(
                content=file_read(path), filename=path.name, source=options["source"] or path.stem
            )
        except ProverbFileError as error:
            self.report_write(options, ImportReport(errors=[LineError(0, str(error))]).as_dict())
            raise CommandError(str(error)) from error
        self.report_write(
            options,
            report.as_dict(),
            f"Created {report.created} proverb(s); skipped {report.duplicates} duplicate(s); "
            f"proposed {report.variant_groups} variant group(s).",
            [error.message for error in report.errors],
        )
