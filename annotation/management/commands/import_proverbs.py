"""python manage.py import_proverbs FILE [--source NAME] [--json]"""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.curation.services import ProverbFileError, proverbs_import
from annotation.intake.uploads import UploadTooLarge, upload_read


class Command(BaseCommand):
    help = (
        "Import proverbs from a text file (one a line) or a CSV (text, source, meaning). "
        "Duplicates are skipped and counted, likely variants proposed as groups, "
        "bad lines reported by number."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--source", default="", help="Source recorded on each proverb.")
        parser.add_argument("--json", action="store_true", help="Print the report as JSON.")

    def handle(self, *args, **options):
        path: Path = options["file"]
        try:
            with path.open("rb") as file:
                content = upload_read(file, name=str(path))
        except OSError as error:
            raise CommandError(f"Cannot read {path}: {error.strerror}.") from error
        except UploadTooLarge as error:
            raise CommandError(str(error)) from error
        try:
            report = proverbs_import(
                content=content, filename=path.name, source=options["source"] or path.stem
            )
        except ProverbFileError as error:
            if options["json"]:
                self.stdout.write(
                    json.dumps(
                        {
                            "created": 0,
                            "duplicates": 0,
                            "variant_groups": 0,
                            "errors": [{"line": 0, "message": str(error)}],
                        }
                    )
                )
            raise CommandError(str(error)) from error
        if options["json"]:
            self.stdout.write(json.dumps(report.as_dict()))
            return
        self.stdout.write(
            f"Created {report.created} proverb(s); skipped {report.duplicates} duplicate(s); "
            f"proposed {report.variant_groups} variant group(s)."
        )
        for error in report.errors:
            self.stderr.write(error.message)
