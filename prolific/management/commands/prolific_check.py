"""The pre-flight check of the Prolific settings (and of a study, with --study)."""

from django.core.management.base import BaseCommand, CommandError

from prolific.models import Study
from prolific.preflight import preflight


class Command(BaseCommand):
    help = (
        "Check, with read-only calls, that Prolific accepts the token, the workspace and its "
        "project, the workspace's balance (against a study's cost with --study, else against "
        "every study not published yet), the study's filters and time limits, that "
        "participants reach PARABLE_PUBLIC_URL and it answers as this deployment, and that "
        "submissions reach Parable (webhooks or polling). Each failure says what to set; "
        "the command fails when any check does."
    )

    def add_arguments(self, parser):
        parser.add_argument("--study", type=int, help="The id of a study in Prolific › Studies.")

    def handle(self, *args, study=None, **options):
        chosen = None
        if study is not None:
            chosen = Study.objects.select_related("batch").filter(pk=study).first()
            if chosen is None:
                raise CommandError(f"No study {study} (see Prolific › Studies).")
        checks = preflight(study=chosen)
        for check in checks:
            mark = "ok  " if check.ok else "FAIL"
            self.stdout.write(f"{mark} {check.name}: {check.detail}")
        failed = [check.name for check in checks if not check.ok]
        if failed:
            refused = [c.name for c in checks if not c.ok and c.blocking]
            said = (
                f"; publishing is refused while these fail: {', '.join(refused)}" if refused else ""
            )
            raise CommandError(f"{len(failed)} check(s) failed: {', '.join(failed)}{said}.")
        self.stdout.write("Every check passed.")
