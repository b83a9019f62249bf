"""python manage.py remove_demo_data: the demo batch, its work and workers, the demo proverbs."""

from django.core.management.base import BaseCommand, CommandError

from annotation.datasets.demo import DemoRemoval, demo_data_remove


class Command(BaseCommand):
    help = (
        "Remove what the demo set-up loaded (bootstrap without --no-demo): the demo write "
        "batch with its narratives and demo workers, and the demo proverbs. What study data "
        "uses is kept, and listed with why. Asks first, after showing what it would do, "
        "unless --no-input. Run it before importing a dataset or starting a study."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--no-input",
            "--noinput",
            action="store_false",
            dest="interactive",
            help="Remove without asking.",
        )

    def handle(self, *args, interactive=True, **options):
        if interactive:
            preview = demo_data_remove(commit=False)
            self.stdout.write(f"This removes {preview.summary()}.")
            self._write_kept(preview, "It keeps")
            if input("Type 'yes' to remove them: ").strip().lower() != "yes":
                raise CommandError("Nothing was removed.")
        removed = demo_data_remove()
        self.stdout.write(f"Removed {removed.summary()}.")
        self._write_kept(removed, "Kept")

    def _write_kept(self, removal: DemoRemoval, verb: str) -> None:
        if removal.kept:
            self.stdout.write(f"{verb}, because study data uses them:")
            for line in removal.kept:
                self.stdout.write(f"  - {line}")
