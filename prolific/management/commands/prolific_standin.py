"""Run the local Prolific stand-in, for trying Parable's Prolific flow without an account."""

import secrets
import threading

from django.core.management.base import BaseCommand

from prolific.standin import StandIn


class Command(BaseCommand):
    help = "Serve a local stand-in of Prolific's API (state in memory) until interrupted."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8010)
        parser.add_argument("--token", default="", help="API token it accepts (random if empty).")
        parser.add_argument("--webhook-secret", default="", help="Secret it signs webhooks with.")
        parser.add_argument("--workspace-id", default="standin-workspace", help="Its workspace.")
        parser.add_argument("--project-id", default="standin-project", help="Its project.")

    def handle(self, *args, **options):
        token = options["token"] or secrets.token_urlsafe(16)
        webhook_secret = options["webhook_secret"] or secrets.token_urlsafe(24)
        where = {name: options[name] for name in ("host", "port", "workspace_id", "project_id")}
        standin = StandIn(token=token, webhook_secret=webhook_secret, **where).start()
        self.stdout.write(
            "Prolific stand-in serving. Put these in .env (or the environment) and `make run`:\n\n"
            f"PROLIFIC_API_URL={standin.api_url}\n"
            f"PROLIFIC_API_TOKEN={token}\n"
            f"PROLIFIC_WORKSPACE_ID={standin.workspace_id}\n"
            f"PROLIFIC_PROJECT_ID={standin.project_id}\n"
            f"PROLIFIC_WEBHOOK_SECRET={webhook_secret}\n"
            f"PROLIFIC_COMPLETION_URL={standin.url}/submissions/complete\n"
            "PROLIFIC_LOCAL_TRIAL=true\n\n"
            f"Participants start studies from {standin.url}/ . Stop with Ctrl-C."
        )
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
        finally:
            standin.stop()
