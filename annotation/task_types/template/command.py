"""python manage.py template_batch_create --template FILE --csv FILE --name NAME
[--provider local|prolific|mturk] [--assignments N] [--per-worker-cap N] [--reward-cents N]
[--minutes N] [--instructions TEXT] [--pledge TEXT] [--canary-word WORD] [--refuse-paste]
[--publish]"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.task_types.template.creation import template_batch_create
from annotation.task_types.template.parsing import TemplateError
from crowd.batches import batch_publish
from crowd.models import Provider
from crowd.providers import ProviderError


class Command(BaseCommand):
    help = (
        "Create a batch of an MTurk HIT template (the requester UI's layout or a whole "
        "HTMLQuestion page) and its input CSV, one item per row, and print what Parable "
        "found: variables, fields, writing records, pre-checked radio groups, the first rows. "
        "A template or CSV Parable cannot run is refused with the reason; nothing is stored."
    )

    def add_arguments(self, parser):
        parser.add_argument("--template", type=Path, required=True)
        parser.add_argument("--csv", type=Path, required=True)
        parser.add_argument("--name", required=True)
        parser.add_argument("--provider", choices=Provider.values, default=Provider.LOCAL)
        parser.add_argument("--assignments", type=int, default=3, help="Workers per item.")
        parser.add_argument("--per-worker-cap", type=int)
        parser.add_argument("--reward-cents", type=int, default=0)
        parser.add_argument("--minutes", type=int, default=30, help="Time allowed.")
        parser.add_argument("--instructions", default="")
        parser.add_argument("--pledge", default="")
        parser.add_argument("--canary-word", default="")
        parser.add_argument("--refuse-paste", action="store_true")
        parser.add_argument("--publish", action="store_true")

    def handle(self, *args, **options):
        try:
            source = options["template"].read_bytes().decode("utf-8-sig")
            batch, report = template_batch_create(
                name=options["name"],
                source=source,
                content=options["csv"].read_bytes(),
                template_name=options["template"].name,
                integrity={
                    "canary_word": options["canary_word"].strip(),
                    "refuse_paste": options["refuse_paste"],
                },
                provider=options["provider"],
                target_per_item=options["assignments"],
                per_worker_cap=options["per_worker_cap"],
                reward_cents=options["reward_cents"],
                time_allowed_seconds=options["minutes"] * 60,
                instructions=options["instructions"],
                pledge=options["pledge"],
            )
        except (OSError, UnicodeDecodeError, TemplateError, ValueError) as error:
            raise CommandError(f"Nothing was created: {error}") from error
        for line in report:
            self.stdout.write(line)
        if options["publish"]:
            try:
                batch = batch_publish(batch=batch)
            except (ValueError, ProviderError) as error:
                raise CommandError(f"Batch {batch.pk} was made, not published: {error}") from error
        self.stdout.write(f"Batch {batch.pk} “{batch.name}”: {batch.get_status_display().lower()}.")
