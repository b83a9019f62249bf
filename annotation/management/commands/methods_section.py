"""python manage.py methods_section [--batch ID ...] [--source S ...] [--approved-only]
[--seed N] [--analysis FILE] [--latex] [--out FILE]"""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.analysis.methods import methods_document, methods_latex, methods_markdown
from annotation.analysis.selectors import dataset_analysis
from annotation.management.commands.export_dataset import batch_ids, source_argument
from annotation.management.progress import progress_printer


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
        parser.add_argument("--batch", type=int, action="append", metavar="ID")
        parser.add_argument("--approved-only", action="store_true")
        source_argument(parser)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--analysis", type=Path, metavar="FILE")
        parser.add_argument("--latex", action="store_true")
        parser.add_argument("--out", type=Path, metavar="FILE")

    def handle(self, *args, **options):
        if options["analysis"]:
            try:
                analysis = json.loads(options["analysis"].read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                raise CommandError(f"Cannot read the analysis: {error}") from error
        else:
            analysis = dataset_analysis(
                batches=batch_ids(options["batch"]),
                approved_only=options["approved_only"],
                sources=options["source"],
                seed=options["seed"],
                progress=progress_printer(self.stderr),
            )
        document = methods_document(analysis=analysis, batches=batch_ids(options["batch"]))
        text = (methods_latex if options["latex"] else methods_markdown)(document)
        if options["out"]:
            options["out"].write_text(text, encoding="utf-8")
            self.stderr.write(f"Wrote {options['out']}.")
        else:
            self.stdout.write(text)
