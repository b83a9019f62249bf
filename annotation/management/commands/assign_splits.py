"""python manage.py assign_splits [--seed N | --from DIR [--allow-partial]] [--json]"""

from pathlib import Path

from django.core.management.base import CommandError

from annotation.datasets.splits import (
    SplitFileError,
    narrative_splits_apply,
    narrative_splits_assign,
    parse_split_files,
)
from annotation.management.commands.import_dataset import _split_files, partial_check
from annotation.management.reports import ReportCommand


class Command(ReportCommand):
    help = (
        "Assign the seen and unseen train/test splits of the approved narratives, drawn "
        "from a seed (seen: 6:4 of each proverb's narratives; unseen: 6:4 of the proverbs), "
        "or set them from a folder of split files (all four; pks not in the dataset are left "
        "out and the command exits with status 1 unless --allow-partial)."
    )

    def add_arguments(self, parser):
        source = parser.add_mutually_exclusive_group()
        source.add_argument("--seed", type=int, default=0)
        source.add_argument(
            "--from", type=Path, dest="directory", metavar="DIR", help="Folder of split files."
        )
        parser.add_argument(
            "--allow-partial",
            action="store_true",
            help="Exit 0 when split files name pks that are not in the dataset.",
        )
        super().add_arguments(parser)

    def handle(self, *args, **options):
        if options["directory"] is None:
            result = narrative_splits_assign(seed=options["seed"])
        else:
            files = _split_files(options["directory"])
            try:
                parts = parse_split_files(files)
            except SplitFileError as error:
                raise CommandError(f"Nothing was changed: {error}") from error
            result = narrative_splits_apply(parts=parts, files=files)
        unknown = result.unknown
        self.report_write(
            options,
            result.as_dict(),
            "\n".join(
                f"{setting}: {parts.get('train', 0)} train, {parts.get('test', 0)} test"
                for setting, parts in result.counts.items()
            ),
            [f"{len(unknown)} pk(s) not found: {', '.join(unknown[:20])}"] if unknown else [],
        )
        partial_check([f"split pk {pk}" for pk in unknown], allow=options["allow_partial"])
