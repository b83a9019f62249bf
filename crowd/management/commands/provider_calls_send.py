"""python manage.py provider_calls_send: beat's part for provider calls, done once, where no
beat runs (the embedded default); run it from cron, or after the server was stopped."""

from django.core.management.base import BaseCommand

from crowd.outbox import provider_actions_drain


class Command(BaseCommand):
    help = (
        "Send the provider calls whose sending was lost or cut short (approvals, bonuses, "
        "blocks, messages), and settle those whose outcome is unknown from the provider's "
        "records, as Celery beat does every minute."
    )

    def handle(self, *args, **options):
        ended = provider_actions_drain()
        if not ended:
            self.stdout.write("No provider call was waiting.")
            return
        counts = ", ".join(f"{count} {status}" for status, count in sorted(ended.items()))
        self.stdout.write(f"Provider calls handled: {counts}.")
