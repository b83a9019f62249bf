"""python manage.py bootstrap: roles, the demo proverbs and write batch with worker links, and a
first admin login (idempotent)."""

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from annotation.datasets.demo import demo_proverbs_load


class Command(BaseCommand):
    help = (
        "Prepare a fresh installation: role groups, the curation target, the demo proverbs "
        "(when the database has none), a demo write-narratives batch with worker links, and "
        "an admin login printed once."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--no-demo", action="store_true", help="Skip the demo proverbs and batch."
        )
        parser.add_argument("--username", default="admin")

    def handle(self, *args, **options):
        from annotation.curation.services import curation_target_set
        from annotation.models import CurationTarget, Proverb
        from crowd.access import groups_ensure

        groups_ensure()
        if not CurationTarget.objects.exists():
            curation_target_set(curated_target=settings.PARABLE_CURATED_TARGET)
        if not options["no_demo"]:
            report = demo_proverbs_load()
            self.stdout.write(
                f"Loaded {report.created} demo proverbs; "
                f"{report.variant_groups} variant group(s) await curation."
                if report is not None
                else f"Demo proverbs not loaded: the database holds {Proverb.objects.count()} "
                "proverb(s) already (demo data goes only into an empty database)."
            )
            self._demo_batch()
        user_model = get_user_model()
        if not user_model.objects.filter(is_superuser=True).exists():
            password = secrets.token_urlsafe(12)
            user_model.objects.create_superuser(
                username=options["username"], email="", password=password
            )
            self.stdout.write(
                self.style.SUCCESS(
                    f"Admin login (shown once): {settings.PARABLE_PUBLIC_URL}/admin/  "
                    f"user {options['username']}  password {password}"
                )
            )

    def _demo_batch(self) -> None:
        from django.urls import reverse

        from annotation.datasets.demo import demo_write_batch_ensure
        from crowd.workers import invite_token

        demo = demo_write_batch_ensure()
        if demo is None:
            self.stdout.write(
                "No demo batch: it is made only on curated demo proverbs, before any write "
                "batch; the study's own proverbs are left as they are."
            )
            return
        batch, workers = demo
        self.stdout.write(
            f"Demo batch “{batch.name}”: {batch.items.count()} proverbs, "
            f"{batch.target_per_item} narratives each. Worker links (one per browser):"
        )
        for worker in workers:
            path = reverse("frontend:invite", args=[invite_token(worker=worker, batch=batch)])
            self.stdout.write(f"  {worker}: {settings.PARABLE_PUBLIC_URL}{path}")
