"""python manage.py extract_keywords [--json]"""

from django.core.management.base import CommandError

from annotation.analysis.keywords import narratives_keywords_fill, narratives_keywords_missing
from annotation.management.reports import ReportCommand
from common.progress import progress_bar


class Command(ReportCommand):
    help = (
        "Extract the keywords (verbs and named entities, spaCy) of every approved dataset "
        "narrative that has none, e.g. narratives imported before imports extracted them: "
        "the generation baseline needs them. A progress bar on stderr; running it again finds "
        "nothing to do."
    )

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
        self.report_write(
            options,
            {"missing": len(missing), "extracted": extracted},
            f"{len(missing)} approved narrative(s) without keywords; {extracted} extracted.",
        )
