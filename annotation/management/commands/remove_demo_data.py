"""python manage.py remove_demo_data: the demo batch, its work and workers, the demo proverbs."""

from django.core.management.base import BaseCommand, CommandError

from annotation.curation.demo import demo_data_remove


class Command(BaseCommand):
    help = (
        "Remove what the demo set-up loaded (bootstrap without --no-demo): the demo write "
        "batch with its narratives and demo workers, and the demo proverbs that no study "
        "data uses. Run it before importing a dataset or starting a study."
    )

    def handle(self, *args, **options):
        try:
            removed = demo_data_remove()
        except ValueError as error:
            raise CommandError(f"Nothing was removed: {error}") from error
        self.stdout.write(
            f"Removed {removed.proverbs} demo proverb(s), {removed.batches} demo batch(es) with "
            f"{removed.narratives} narrative(s), {removed.workers} demo worker(s); kept "
            f"{removed.proverbs_kept} demo proverb(s) that study data uses."
        )
