"""python manage.py methods_section [--batch ID ...] [--source S ...] [--approved-only]
[--seed N] [--analysis FILE] [--latex] [--out FILE]"""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.analysis.methods import methods_document
from annotation.analysis.methods_render import methods_latex, methods_markdown
from annotation.management.commands.analyze import scope_analysis, scope_arguments
from annotation.management.commands.export_dataset import batch_ids
from annotation.management.reports import text_write


class Command(BaseCommand):
    requires_system_checks = []
    help = (
        "Write the methods and data statement of the dataset in scope (Markdown, or LaTeX "
        "with --latex): items and curation, task design, providers, workers, pay, review "
        "outcomes, integrity controls and flag shares, agreement, and ePiC's Tables 1-3, "
        "every figure with where the dashboard shows it. The figures come from the "
        "analysis of the same scope (--analysis FILE: an `analyze --json` output; "
        "otherwise it is computed)."
    )

    def add_arguments(self, parser):
        scope_arguments(parser)
        parser.add_argument("--analysis", type=Path, metavar="FILE")
        parser.add_argument("--latex", action="store_true")
        parser.add_argument("--out", type=Path, metavar="FILE")

    def handle(self, *args, **options):
        batches = batch_ids(options["batch"])
        if options["analysis"]:
            try:
                analysis = json.loads(options["analysis"].read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                raise CommandError(f"Cannot read the analysis: {error}") from error
        else:
            analysis = scope_analysis(options, batches=batches, stderr=self.stderr)
        document = methods_document(analysis=analysis, batches=batches)
        text = (methods_latex if options["latex"] else methods_markdown)(document)
        text_write(self, text + "\n", options["out"])
