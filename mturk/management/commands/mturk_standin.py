"""manage.py mturk_standin [--port 8765]: the local MTurk stand-in, to click through the flow."""

from django.core.management.base import BaseCommand, CommandError

from mturk.standin import MTurkState, StandInServer


class Command(BaseCommand):
    help = (
        "Serve the MTurk stand-in (Requester API and a small worker site) on loopback. "
        "Point Parable at it with MTURK_ENDPOINT=http://127.0.0.1:PORT; its state lives "
        "in memory and is gone when it stops."
    )

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8765)
        parser.add_argument("--balance", default="10000.00", help="Account balance in USD.")

    def handle(self, *args, **options):
        try:
            server = StandInServer(
                (options["host"], options["port"]), MTurkState(balance=options["balance"])
            )
        except OSError as error:
            raise CommandError(f"Cannot listen on port {options['port']}: {error}") from error
        self.stdout.write(
            f"MTurk stand-in at {server.url}/ (worker site; API for boto3 at the same URL).\n"
            f"Run Parable with MTURK_ENDPOINT={server.url}. Ctrl-C stops it."
        )
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
