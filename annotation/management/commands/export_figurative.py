"""python manage.py export_figurative --kind idiom|simile [--split S] [--output FILE]"""

from pathlib import Path

from django.core.management.base import BaseCommand

from annotation.datasets.figurative import figurative_export_text
from annotation.management.reports import text_write


class Command(BaseCommand):
    help = (
        "Write idiom or simile narratives with their option pairs (imported ones and approved "
        "crowd continuations) as JSONL in the benchmark's layout, keys in the release's "
        "order, each imported line as published; with --split, that split's pairs, in the "
        "imported file's line endings (a file exported as it was imported comes back byte "
        "for byte)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--kind", choices=["idiom", "simile"], required=True)
        parser.add_argument("--split", choices=["train", "dev", "test"])
        parser.add_argument("--output", type=Path, help="A file to write (default: stdout).")

    def handle(self, *args, **options):
        text = figurative_export_text(kind=options["kind"], split=options["split"])
        text_write(self, text, options["output"])
