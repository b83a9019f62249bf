"""Subscribe Parable's webhook endpoint to Prolific's submission and study events."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

from prolific.client import ProlificClient, ProlificError
from prolific.submissions import EVENTS


class Command(BaseCommand):
    help = (
        "Subscribe PARABLE_PUBLIC_URL's /prolific/webhook/ to submission.status.change, "
        "study.status.change and study.has_high_return_rate, confirming each (Prolific "
        "needs a public HTTPS URL; polling runs regardless)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--workspace", default="", help="Defaults to PROLIFIC_WORKSPACE_ID.")

    def handle(self, *args, workspace, **options):
        target = settings.PARABLE_PUBLIC_URL.rstrip("/") + reverse("prolific:webhook")
        for event_type in EVENTS:
            try:
                hook = ProlificClient().hook_subscribe(
                    event_type=event_type,
                    target_url=target,
                    workspace_id=workspace or settings.PROLIFIC_WORKSPACE_ID,
                )
            except ProlificError as error:
                raise CommandError(str(error)) from error
            self.stdout.write(f"Subscribed {target} to {event_type} (subscription {hook['id']}).")
