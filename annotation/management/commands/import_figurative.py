"""python manage.py import_figurative FILE --kind idiom|simile [--split train|dev|test]
[--labels auto|given|withheld] [--json]"""

from pathlib import Path

from django.core.management.base import CommandError

from annotation.datasets.figurative import (
    LABELS,
    FigurativeImportReport,
    figurative_import,
    figurative_report_summary,
)
from annotation.datasets.figurative_files import FigurativeFileError
from annotation.management.reports import ReportCommand, file_read


class Command(ReportCommand):
    help = (
        "Import idiom or simile narratives in the figurative narratives benchmark's JSONL "
        "layout: each narrative stored once with its option pairs, the <b>...</b> around an "
        "idiom kept as a highlight span; each option pair in the file's split. Re-importing "
        "changes nothing. Irregular lines are imported with a note each; a file with an "
        "unusable line is refused whole, every such line reported by number."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--kind", choices=["idiom", "simile"], required=True)
        parser.add_argument("--split", choices=["train", "dev", "test"], default="")
        parser.add_argument(
            "--labels",
            choices=LABELS,
            default="auto",
            help="Whether correctanswer holds labels: auto (default) withholds them for a test "
            "split, whose release has a placeholder, and for a file whose every line gives the "
            "same answer; withheld stores the pairs unlabelled.",
        )
        super().add_arguments(parser)

    def handle(self, *args, **options):
        path = options["file"]
        try:
            report = figurative_import(
                content=file_read(path),
                kind=options["kind"],
                split=options["split"],
                labels=options["labels"],
                filename=path.name,
            )
        except FigurativeFileError as error:
            errors = [{"line": line, "message": message} for line, message in error.errors]
            problems = [f"Line {line}: {message}" for line, message in error.errors]
            self.report_write(
                options, FigurativeImportReport(errors=errors).as_dict(), "", problems
            )
            raise CommandError(f"Nothing was imported: {error}") from error
        notes = [f"Line {note['line']}: {note['note']}" for note in report.notes]
        self.report_write(options, report.as_dict(), figurative_report_summary(report), notes)
