"""python manage.py import_dataset --format epic FILE [--splits DIR] [--source-label X]
[--allow-partial] [--no-keywords] [--json]"""

from pathlib import Path

from django.core.management.base import CommandError

from annotation.analysis.keywords import narratives_keywords_fill
from annotation.datasets.epic import EpicImportReport, dataset_import_epic
from annotation.datasets.epic_files import EpicFileError
from annotation.datasets.splits import SplitFileError, split_files_select
from annotation.management.reports import ReportCommand, file_read
from common.progress import progress_bar
from common.task_queue import tasks_after_response_wait, tasks_in_lanes


class Command(ReportCommand):
    help = (
        "Import a dataset in the ePiC release format: proverbs matched or created, "
        "narratives approved and marked imported, spans resolved to offsets, splits from "
        "split files (all four). Re-importing the same file changes nothing. A malformed file "
        "is refused whole. Spans that are not found (by record and slot) and split pks that "
        "are not in the dataset are left out and the rest imported: a partial import, which "
        "exits with status 1 unless --allow-partial."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--format", choices=["epic"], default="epic")
        parser.add_argument(
            "--splits",
            type=Path,
            metavar="DIR",
            help="Folder of split files *_{seen,unseen}_{train,test}_*.json (arrays of pks).",
        )
        parser.add_argument(
            "--source-label", default="ePiC", help="Recorded on each narrative (default ePiC)."
        )
        parser.add_argument(
            "--allow-partial",
            action="store_true",
            help="Exit 0 when span pairs or split pks were left out (still reported).",
        )
        parser.add_argument(
            "--no-keywords",
            action="store_true",
            help="Leave the narratives' keywords (for the generation baseline) to the worker's "
            "re-queue or a later extract_keywords; by default they are extracted now.",
        )
        super().add_arguments(parser)

    def handle(self, *args, **options):
        content = file_read(options["file"])
        splits = _split_files(options["splits"]) if options["splits"] else None
        progress = progress_bar(self.stderr, quiet=options["json"])
        try:
            # The integrity check the import queues runs on its lane's thread (without a
            # broker) beside the keywords, which this thread extracts meanwhile.
            with tasks_in_lanes():
                report = dataset_import_epic(
                    content=content,
                    splits=splits,
                    source_label=options["source_label"],
                    progress=progress,
                    filename=options["file"].name,
                )
        except EpicFileError as error:
            report = EpicImportReport(errors=error.errors)
            self.report_write(options, report.as_dict(), "", [p.message for p in error.errors])
            raise CommandError(f"Nothing was imported: {error}") from error
        if not options["no_keywords"]:
            report.keywords_extracted = keywords_fill_or_warn(
                report.keyword_narratives, stderr=self.stderr, progress=progress
            )
        tasks_after_response_wait()
        problems = [problem.message for problem in report.errors + report.warnings]
        self.report_write(options, report.as_dict(), _summary(report), problems)
        partial_check(report.left_out(), allow=options["allow_partial"])


def _summary(report: EpicImportReport) -> str:
    return (
        ("Partial import: " if report.partial else "")
        + f"{report.narratives} record(s): {report.narratives_created} created, "
        f"{report.narratives_updated} updated, {report.narratives_unchanged} unchanged; "
        f"{report.proverbs} proverb(s) ({report.proverbs_created} new); "
        f"{report.span_pairs} span pair(s), {report.ambiguous_spans} ambiguous, "
        f"{report.unresolved_spans} unresolved."
        + (
            ""
            if report.keywords_extracted is None
            else f" Keywords extracted for {report.keywords_extracted} narrative(s)."
        )
    )


def keywords_fill_or_warn(narrative_ids: list[int], *, stderr, progress) -> int | None:
    """Extract the narratives' keywords with `progress`; None (and a warning on stderr)
    when the spaCy model cannot be loaded: they stay marked for a later extraction."""
    try:
        return narratives_keywords_fill(narrative_ids=narrative_ids, progress=progress)
    except (ImportError, OSError) as error:
        stderr.write(
            f"Keywords not extracted ({error}); the narratives stay marked: run "
            "extract_keywords once the spaCy model (PARABLE_SPACY_MODEL) is installed."
        )
        return None


def partial_check(left_out: list[str], *, allow: bool, limit: int = 10) -> None:
    """A partial import's exit (something `left_out`): status 1, a CommandError, unless
    allowed. The message names the first `limit` things left out."""
    if left_out and not allow:
        more = f" and {len(left_out) - limit} more" if len(left_out) > limit else ""
        raise CommandError(
            f"Partial import: left out {', '.join(left_out[:limit])}{more}; the rest was "
            "imported. Fix the files and import again, or pass --allow-partial to accept a "
            "partial import."
        )


def _split_files(directory: Path) -> dict[str, bytes]:
    if not directory.is_dir():
        raise CommandError(f"{directory} is not a folder of split files.")
    files = {path.name: file_read(path) for path in sorted(directory.iterdir()) if path.is_file()}
    try:
        chosen, _ = split_files_select(files)
    except SplitFileError as error:
        raise CommandError(" ".join(error.messages)) from error
    if not chosen:
        raise CommandError(f"No split files in {directory}: the folder is empty.")
    return chosen
