"""python manage.py extract_keywords [--json]"""

import json

from django.core.management.base import BaseCommand, CommandError

from annotation.analysis.keywords import narratives_keywords_fill, narratives_keywords_missing
from common.progress import progress_bar


class Command(BaseCommand):
    help = (
        "Extract the keywords (verbs and named entities, spaCy) of every approved dataset "
        "narrative that has none, e.g. narratives imported before imports extracted them: "
        "the generation baseline needs them. A progress bar on stderr; running it again finds "
        "nothing to do."
    )

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true", help="Print the counts as JSON.")

    def handle(self, *args, **options):
        missing = narratives_keywords_missing()
        try:
            extracted = narratives_keywords_fill(
                narrative_ids=missing, progress=progress_bar(self.stderr, quiet=options["json"])
            )
        except (ImportError, OSError) as error:
            raise CommandError(
                f"Cannot load the spaCy model (PARABLE_SPACY_MODEL): {error}"
            ) from error
        if options["json"]:
            self.stdout.write(json.dumps({"missing": len(missing), "extracted": extracted}))
            return
        self.stdout.write(
            f"{len(missing)} approved narrative(s) without keywords; {extracted} extracted."
        )
