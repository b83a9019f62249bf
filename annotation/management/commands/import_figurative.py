"""python manage.py import_figurative FILE --kind idiom|simile [--split train|dev|test] [--json]"""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.datasets.figurative import FigurativeImportReport, figurative_import
from annotation.datasets.figurative_files import FigurativeFileError


class Command(BaseCommand):
    help = (
        "Import idiom or simile narratives in the figurative narratives benchmark's JSONL "
        "layout: each narrative stored once with its option pairs, the <b>...</b> around an "
        "idiom kept as a highlight span. Re-importing changes nothing. A file with a bad "
        "line is refused whole, every bad line reported by number."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--kind", choices=["idiom", "simile"], required=True)
        parser.add_argument("--split", choices=["train", "dev", "test"], default="")
        parser.add_argument("--json", action="store_true", help="Print the report as JSON.")

    def handle(self, *args, **options):
        path = options["file"]
        try:
            content = path.read_bytes()
        except OSError as error:
            raise CommandError(f"Cannot read {path}: {error.strerror}.") from error
        try:
            report = figurative_import(
                content=content, kind=options["kind"], split=options["split"]
            )
        except FigurativeFileError as error:
            errors = [{"line": line, "message": message} for line, message in error.errors]
            if options["json"]:
                self.stdout.write(json.dumps(FigurativeImportReport(errors=errors).as_dict()))
            else:
                for line, message in error.errors:
                    self.stderr.write(f"Line {line}: {message}")
            raise CommandError(f"Nothing was imported: {error}") from error
        if options["json"]:
            self.stdout.write(json.dumps(report.as_dict()))
            return
        self.stdout.write(
            f"{report.lines} line(s): {report.narratives} narrative(s) "
            f"({report.narratives_created} new), {report.pairs} option pair(s) "
            f"({report.pairs_created} new)."
        )
