"""Subscribe Parable's webhook endpoint to Prolific's submission and study events, once."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

from prolific.client import ProlificClient, ProlificError
from prolific.submissions import EVENTS


class Command(BaseCommand):
    help = (
        "Subscribe PARABLE_PUBLIC_URL's /prolific/webhook/ to submission.status.change, "
        "study.status.change and study.has_high_return_rate, confirming each (Prolific "
        "needs a public https:// URL). Safe to run again: the workspace's subscriptions are "
        "listed first, an enabled one is kept, and one left unconfirmed or disabled is "
        "replaced."
    )

    def add_arguments(self, parser):
        parser.add_argument("--workspace", default="", help="Defaults to PROLIFIC_WORKSPACE_ID.")

    def handle(self, *args, workspace, **options):
        workspace = workspace or settings.PROLIFIC_WORKSPACE_ID
        if not workspace:
            raise CommandError(
                "Set PROLIFIC_WORKSPACE_ID (or pass --workspace): Prolific subscribes a workspace."
            )
        target = settings.PARABLE_PUBLIC_URL.rstrip("/") + reverse("prolific:webhook")
        client = ProlificClient()
        try:
            existing = [
                hook
                for hook in client.hook_subscriptions(workspace_id=workspace)
                if hook.get("target_url") == target
            ]
            for event_type in EVENTS:
                self._subscribe(client, event_type, target, workspace, existing)
        except ProlificError as error:
            raise CommandError(str(error)) from error

    def _subscribe(self, client, event_type, target, workspace, existing) -> None:
        mine = [hook for hook in existing if hook.get("event_type") == event_type]
        enabled = [hook for hook in mine if hook.get("is_enabled")]
        if enabled:
            self.stdout.write(
                f"{target} is already subscribed to {event_type} (subscription {enabled[0]['id']})."
            )
            return
        for stale in mine:  # unconfirmed or disabled: its confirmation secret is lost
            client.hook_unsubscribe(subscription_id=stale["id"])
            self.stdout.write(f"Removed subscription {stale['id']} ({event_type}, not enabled).")
        hook = client.hook_subscribe(
            event_type=event_type, target_url=target, workspace_id=workspace
        )
        self.stdout.write(f"Subscribed {target} to {event_type} (subscription {hook['id']}).")
