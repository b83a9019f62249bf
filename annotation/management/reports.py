"""What the commands share: a named file read under the import size limit, text written to
a file or standard output, and a report printed as JSON (--json) or as a summary with its
problems."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.intake.uploads import UploadTooLarge, upload_read


def file_read(path: Path) -> bytes:
    """The file's bytes (at most PARABLE_IMPORT_MAX_BYTES); CommandError when unreadable."""
    try:
        with path.open("rb") as file:
            return upload_read(file, name=str(path))
    except OSError as error:
        raise CommandError(f"Cannot read {path}: {error.strerror}.") from error
    except UploadTooLarge as error:
        raise CommandError(str(error)) from error


def text_write(command: BaseCommand, text: str, path: Path | None) -> None:
    """The text into a file (said on standard error), or to standard output without a path
    or with "-"."""
    if path is None or str(path) == "-":
        command.stdout.write(text, ending="")
        return
    try:
        path.write_bytes(text.encode("utf-8"))
    except OSError as error:
        raise CommandError(f"Cannot write {path}: {error.strerror}.") from error
    command.stderr.write(f"Wrote {path}.")


class ReportCommand(BaseCommand):
    """A command whose result is a report, printed by `report_write`."""

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true", help="Print the report as JSON.")

    def report_write(
        self, options: dict, report: dict, summary: str = "", problems: Iterable[str] = ()
    ) -> None:
        """The report as JSON under --json; else the summary, and each problem on stderr."""
        if options["json"]:
            self.stdout.write(json.dumps(report, ensure_ascii=False))
            return
        if summary:
            self.stdout.write(summary)
        for problem in problems:
            self.stderr.write(problem)
