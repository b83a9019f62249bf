"""Import of the ePiC release format (annotation.datasets.epic_files reads and writes it).

`epic_prepare` reads, checks and resolves the file (no database, with progress); `epic_write`
stores it in one transaction. A file `parse_epic_file` refuses writes nothing. An unresolved
span (by record, pk and slot) or a split pk not in the dataset is left out and makes the import
partial (`import_dataset` then exits non-zero unless --allow-partial). Re-importing changes nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotation.datasets.epic_files import (
    EPIC_FIELDS,
    EpicFileError,
    EpicRecord,
    RecordProblem,
    ResolvedSpanPair,
    epic_layout,
    parse_epic_file,
    resolve_record_spans,
)
from annotation.datasets.imported_files import epic_file_key, imported_file_record
from annotation.datasets.records import (
    narrative_parts,
    narrative_parts_store,
    narratives_for_generated_pks,
    rows_in_chunks,
)
from annotation.datasets.splits import SplitFileError, narrative_splits_apply, parse_split_files
from annotation.models import ImportedFile, Narrative, Proverb
from annotation.quality.similarity_scan import imported_similarity_check_queue
from annotation.text import normalize_text, word_count
from common.progress import ProgressCallback, progress_noop

_CHUNK = 2_000
# The narrative part (crowd.task_types.NarrativePart) a record's alignment is kept as.
SPAN_PAIRS = "span_pairs"
_PAIR_KEY = tuple(pair_field.name for pair_field in fields(ResolvedSpanPair))
_PROGRESS_RECORDS = 1_000  # records resolved between progress reports


@dataclass
class EpicImportReport:
    proverbs: int = 0
    proverbs_created: int = 0
    narratives: int = 0
    narratives_created: int = 0
    narratives_updated: int = 0
    narratives_unchanged: int = 0
    span_pairs: int = 0
    ambiguous_spans: int = 0
    unresolved_spans: int = 0
    splits: dict = field(default_factory=dict)
    # Quotes matched to an existing proverb whose text is not identical (case, punctuation):
    # {"pk", "quote", "proverb", "proverb_text", "records"}, for the researcher to confirm.
    inexact_matches: list[dict] = field(default_factory=list)
    # What the files hold that was left out (a span pair not found, a split pk not in the
    # dataset): the import is partial when there is any.
    errors: list[RecordProblem] = field(default_factory=list)
    warnings: list[RecordProblem] = field(default_factory=list)
    # Narratives created or changed, marked for keyword extraction (not in the JSON), and
    # how many the caller extracted (None: left to a task or a backfill).
    keyword_narratives: list[int] = field(default_factory=list)
    keywords_extracted: int | None = None

    @property
    def partial(self) -> bool:
        return bool(self.errors)

    def left_out(self) -> list[str]:
        """What was left out, by record and slot or by split pk."""
        return [
            f"{problem.pk} slot {problem.slot}" if problem.slot else f"split pk {problem.pk}"
            for problem in self.errors
        ]

    def as_dict(self) -> dict:
        counts = {
            key: value
            for key, value in asdict(self).items()
            if key not in ("errors", "keyword_narratives")
        }
        counts["partial"] = self.partial
        counts["errors"] = [problem.as_dict() for problem in self.errors]
        counts["warnings"] = [problem.as_dict() for problem in self.warnings]
        return counts


@dataclass
class EpicPrepared:
    """A checked ePiC file with its spans resolved: what `epic_write` stores."""

    records: list[EpicRecord]
    spans: list[tuple[list[ResolvedSpanPair], list[RecordProblem]]]  # one per record
    split_parts: dict | None
    filename: str = ""
    layout: dict | None = None  # how the file was written (epic_layout)
    split_files: Mapping[str, bytes] | None = None


def epic_prepare(
    *,
    content: bytes,
    splits: Mapping[str, bytes] | None = None,
    progress: ProgressCallback | None = None,
    filename: str = "",
) -> EpicPrepared:
    """Read and check an ePiC file and its split files and resolve every record's spans: the
    slow part of an import, with no database, run before its transaction so that its progress
    can be watched. Raises EpicFileError for a malformed file or split file."""
    progress = progress or progress_noop
    progress(0, 1, "Reading the file")
    records = parse_epic_file(content, max_records=settings.PARABLE_IMPORT_MAX_RECORDS)
    layout = epic_layout(content)
    try:
        split_parts = parse_split_files(splits) if splits else None
    except SplitFileError as error:
        raise EpicFileError(
            [RecordProblem(0, None, message) for message in error.messages]
        ) from error
    progress(1, 1, "Reading the file")
    spans = []
    for done, record in enumerate(records, start=1):
        spans.append(resolve_record_spans(record))
        if done % _PROGRESS_RECORDS == 0 or done == len(records):
            progress(done, len(records), "Resolving spans")
    return EpicPrepared(
        records=records,
        spans=spans,
        split_parts=split_parts,
        filename=filename,
        layout=layout,
        split_files=splits or None,
    )


@transaction.atomic
def epic_write(
    prepared: EpicPrepared, *, source_label: str = "ePiC", progress: ProgressCallback | None = None
) -> EpicImportReport:
    """Store a prepared ePiC file as approved, imported narratives, in one transaction.

    Proverbs are matched by normalized text or created curated with source
    `source_label`. A record whose pk is already a narrative's external id is that
    narrative: unchanged when proverb, text and span pairs are the same, else
    updated; a pk Parable generated on export (Q<proverb id>N<k>) whose proverb
    and text match that narrative is recognised too. Raises EpicFileError (nothing
    written) when a record's pk belongs to another source's narrative.
    """
    progress = progress or progress_noop
    records = prepared.records
    report = EpicImportReport(narratives=len(records))
    progress(0, len(records), "Writing narratives")
    proverbs = _proverbs_for(records, source_label, report)
    existing = _existing_narratives(records, proverbs, source_label)
    stored = narrative_parts([n.pk for n in existing.values()], names=[SPAN_PAIRS])
    imported = {
        nid: sorted(_pair_key(pair) for pair in pairs if pair["annotator"] is None)
        for nid, pairs in stored.get(SPAN_PAIRS, {}).items()
    }
    new, changed = _sort_records(prepared, proverbs, existing, imported, source_label, report)
    written = new + changed
    marked = timezone.now()  # keywords to extract: by the caller, else the re-queue
    for narrative, _ in written:
        narrative.keywords_pending_since = marked
    Narrative.objects.bulk_create([narrative for narrative, _ in new], batch_size=_CHUNK)
    # A changed narrative's imported span pairs are replaced by narrative_parts_store below.
    Narrative.objects.bulk_update(
        [narrative for narrative, _ in changed],
        ["proverb", "proverb_quote", "text", "word_count", "keywords", "keywords_pending_since"],
        batch_size=_CHUNK,
    )
    narrative_parts_store(
        SPAN_PAIRS, [(narrative, [asdict(pair) for pair in pairs]) for narrative, pairs in written]
    )
    report.narratives_created, report.narratives_updated = len(new), len(changed)
    report.keyword_narratives = [narrative.pk for narrative, _ in written]
    imported_similarity_check_queue(narratives=[narrative for narrative, _ in written])
    imported_file_record(
        kind=ImportedFile.Kind.EPIC,
        key=epic_file_key(source_label=source_label),
        filename=prepared.filename,
        fields=prepared.layout["keys"][1] if prepared.layout else list(EPIC_FIELDS),
        records=len(records),
        layout=prepared.layout,
    )
    progress(len(records), len(records), "Writing narratives")
    if prepared.split_parts is not None:
        applied = narrative_splits_apply(parts=prepared.split_parts, files=prepared.split_files)
        report.splits = applied.counts
        report.errors.extend(
            RecordProblem(0, pk, f"Split files name {pk}, which is not in the dataset.")
            for pk in applied.unknown
        )
    return report


def dataset_import_epic(
    *,
    content: bytes,
    splits: Mapping[str, bytes] | None = None,
    source_label: str = "ePiC",
    progress: ProgressCallback | None = None,
    filename: str = "",
) -> EpicImportReport:
    """Import an ePiC file (and optional split files): `epic_prepare`, then `epic_write`;
    nothing is written when either refuses the file."""
    prepared = epic_prepare(content=content, splits=splits, progress=progress, filename=filename)
    return epic_write(prepared, source_label=source_label, progress=progress)


def _sort_records(
    prepared: EpicPrepared,
    proverbs: dict[str, Proverb],
    existing: dict[str, Narrative],
    imported: dict[int, list[tuple]],
    source_label: str,
    report: EpicImportReport,
) -> tuple[list, list]:
    """(narrative, span pairs) to create and to change (given its new proverb and text, unsaved);
    the rest counted unchanged. `imported`: each existing narrative's stored pair keys."""
    new, changed = [], []
    for record, (pairs, problems) in zip(prepared.records, prepared.spans, strict=True):
        proverb = proverbs[normalize_text(record.quote)]
        report.errors.extend(problems)
        report.unresolved_spans += len(problems)
        report.span_pairs += len(pairs)
        report.ambiguous_spans += sum(pair.ambiguous for pair in pairs)
        narrative = existing.get(record.pk)
        if narrative is None:
            new.append((_new_narrative(record, proverb, source_label), pairs))
        elif narrative.external_id is None or _same_content(
            narrative, record, proverb, imported.get(narrative.pk, []), pairs
        ):
            report.narratives_unchanged += 1  # a Parable record keeps its own alignments
        else:
            narrative.proverb = proverb
            narrative.proverb_quote = _quote_kept(record, proverb)
            if narrative.text != record.narrative:
                narrative.keywords = {}
            narrative.text = record.narrative
            narrative.word_count = word_count(record.narrative)
            changed.append((narrative, pairs))
    return new, changed


def _new_narrative(record: EpicRecord, proverb: Proverb, source_label: str) -> Narrative:
    return Narrative(
        proverb=proverb,
        text=record.narrative,
        source=Narrative.Source.IMPORTED,
        source_label=source_label,
        status=Narrative.Status.APPROVED,
        external_id=record.pk,
        word_count=word_count(record.narrative),
        proverb_quote=_quote_kept(record, proverb),
    )


def _quote_kept(record: EpicRecord, proverb: Proverb) -> str:
    """The record's verbatim quote when the proverb's text differs from it, else ""."""
    return "" if record.quote == proverb.text else record.quote


def _proverbs_for(
    records: list[EpicRecord], source_label: str, report: EpicImportReport
) -> dict[str, Proverb]:
    """Proverbs by normalized quote: existing ones, and new curated ones for the rest."""
    quotes: dict[str, EpicRecord] = {}
    for record in records:
        quotes.setdefault(normalize_text(record.quote), record)
    found = rows_in_chunks(Proverb.objects, "normalized_text", quotes)
    found = {proverb.normalized_text: proverb for proverb in found}
    # A demo proverb the dataset uses is study data now, curated as the import makes its own
    # (the demo list leaves its variants candidates): it counts and stays on removal as is.
    Proverb.objects.filter(pk__in=[p.pk for p in found.values()], is_demo=True).update(
        is_demo=False, status=Proverb.Status.CURATED
    )
    per_quote = Counter(normalize_text(record.quote) for record in records)
    for key, proverb in found.items():
        record = quotes[key]
        if proverb.text != record.quote:
            report.inexact_matches.append(
                {
                    "pk": record.pk,
                    "quote": record.quote,
                    "proverb": proverb.pk,
                    "proverb_text": proverb.text,
                    "records": per_quote[key],
                }
            )
            report.warnings.append(
                RecordProblem(
                    record.number,
                    record.pk,
                    f"{record.pk}: quote {record.quote!r} matched proverb {proverb.pk} "
                    f"{proverb.text!r} (not identical: please confirm); the record's own "
                    "quote is kept with its narratives and exported.",
                )
            )
    created = Proverb.objects.bulk_create(
        [
            Proverb(
                text=record.quote,
                normalized_text=key,
                source=source_label,
                status=Proverb.Status.CURATED,
            )
            for key, record in quotes.items()
            if key not in found
        ]
    )
    report.proverbs = len(quotes)
    report.proverbs_created = len(created)
    return {**found, **{proverb.normalized_text: proverb for proverb in created}}


def _existing_narratives(
    records: list[EpicRecord], proverbs: dict[str, Proverb], source_label: str
) -> dict[str, Narrative]:
    """Narratives already standing for records, by pk; raises EpicFileError on a conflict."""
    by_pk = {
        narrative.external_id: narrative
        for narrative in rows_in_chunks(
            Narrative.objects.all(),
            "external_id",
            (record.pk for record in records),
        )
    }
    conflicts = [
        RecordProblem(
            record.number,
            record.pk,
            f"Record {record.number} ({record.pk}): that pk belongs to a narrative "
            f"{_origin(by_pk[record.pk])}, not imported from {source_label!r}.",
        )
        for record in records
        if record.pk in by_pk
        and (
            by_pk[record.pk].source != Narrative.Source.IMPORTED
            or by_pk[record.pk].source_label != source_label
        )
    ]
    if conflicts:
        raise EpicFileError(conflicts)
    by_pk.update(_parable_records([r for r in records if r.pk not in by_pk], proverbs))
    return by_pk


def _origin(narrative: Narrative) -> str:
    if narrative.source == Narrative.Source.IMPORTED:
        return f"imported from {narrative.source_label!r}"
    return f"of source {narrative.source}"


def _parable_records(
    records: list[EpicRecord], proverbs: dict[str, Proverb]
) -> dict[str, Narrative]:
    """Narratives Parable exported with a generated pk, when their proverb and text match."""
    by_pk = {record.pk: record for record in records}
    ids = narratives_for_generated_pks(by_pk)
    narratives = Narrative.objects.in_bulk(ids.values())
    return {
        pk: narratives[nid]
        for pk, nid in ids.items()
        if narratives[nid].proverb_id == proverbs[normalize_text(by_pk[pk].quote)].pk
        and narratives[nid].text == by_pk[pk].narrative
    }


def _pair_key(pair: dict | ResolvedSpanPair) -> tuple:
    fields = pair if isinstance(pair, dict) else asdict(pair)
    return tuple(fields[name] for name in _PAIR_KEY)


def _same_content(
    narrative: Narrative,
    record: EpicRecord,
    proverb: Proverb,
    stored: list[tuple],
    pairs: list[ResolvedSpanPair],
) -> bool:
    return (
        narrative.proverb_id == proverb.pk
        and narrative.proverb_quote == _quote_kept(record, proverb)
        and narrative.text == record.narrative
        and stored == sorted(_pair_key(p) for p in pairs)
    )
