"""The analysis of the dataset in the database: `dataset_analysis` loads the dataset in
scope into annotation.analysis.core's records, runs it, and adds scope, splits, integrity
and rounds. Its output is `manage.py analyze --json`'s; `definitions()` defines every key.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from django.db.models import Count, Q

from annotation.analysis.common import long_read_gc
from annotation.analysis.definitions import DEFINITIONS
from annotation.analysis.integrity import integrity_shares
from annotation.analysis.text_scores import KeptScores, scores_keep
from annotation.datasets.records import (
    CHUNK_SIZE,
    DATASET_SOURCES,
    FLAG_ROW,
    dataset_narratives,
    demo_batch_ids,
    narrative_chunks,
    narrative_parts,
)
from annotation.opponents.evaluation import ROUNDS_DEFINITIONS, rounds_analysis
from annotation.quality.flags import FlagRow, flag_rows
from annotation.quality.reports import COUNTED
from annotation.task_parts.records import (
    IntegrityRecord,
    NarrativeRecord,
    SpanPairRecord,
    rating_source,
)
from common.progress import ProgressCallback
from crowd import task_types

DATASET_DEFINITIONS: dict[str, str] = {
    "scope": (
        "Which narratives were analysed. A narrative's span pairs are those imported with "
        "it, else those of its earliest approved alignment assignment; ratings and choice "
        "answers count unless their assignment was rejected, expired or returned. Rating "
        "sources: 'dataset' for crowd narratives, 'imported:<label>' and 'model:<label>' "
        "for the others."
    ),
    "scope.batches": (
        "Crowd batch ids the analysis was limited to (narratives written in them; ratings "
        "and choice answers given in them or about those narratives); [] means the whole "
        "dataset."
    ),
    "scope.approved_only": "True when only approved narratives were loaded.",
    "scope.sources": (
        "Narrative sources analysed (crowd, imported, model); by default crowd and imported. "
        "Ratings and choice answers count when their narrative is of these sources."
    ),
    "scope.narratives_loaded": (
        "Narratives loaded: written by the crowd or imported (model output is not part of "
        "the dataset), any status unless approved_only."
    ),
    "splits": "Train/test splits of the approved narratives in scope (see the dataset card).",
    "splits.seen": (
        "Seen-proverb setting: narratives in train, in test and with no split ('none'); "
        "drawn per proverb, 0.6 n rounded half up to train, or taken from split files."
    ),
    "splits.unseen": (
        "Unseen-proverb setting: narratives in train, in test and with no split ('none'); "
        "proverbs are divided 0.6 / 0.4, so train and test share no proverb."
    ),
}


SPAN_STATISTICS = ("span_pairs_per_narrative", "words_per_proverb_span", "words_per_narrative_span")


def definitions() -> dict[str, str]:
    """Every key of the analysis output (`dataset_analysis`) with its definition."""
    return {**DEFINITIONS, **DATASET_DEFINITIONS, **ROUNDS_DEFINITIONS}


_RECORD_FIELDS = (
    "proverb_id",
    "proverb__text",
    "text",
    "status",
    "worker_id",
    "source",
    "source_label",
)


def narrative_record_chunks(
    *,
    batches: Sequence[int] | None = None,
    approved_only: bool = False,
    sources: Sequence[str] | None = None,
) -> Iterator[list[NarrativeRecord]]:
    """The dataset's narratives as analysis records, by id, with alignment 1's span
    pairs, a chunk (CHUNK_SIZE) at a time."""
    narratives = dataset_narratives(batches=batches, approved_only=approved_only, sources=sources)
    for rows in narrative_chunks(narratives, _RECORD_FIELDS, CHUNK_SIZE):
        ids = [row[0] for row in rows]
        pairs = narrative_parts(ids, names=["span_pairs"]).get("span_pairs", {})
        yield [_narrative_record(*row, pairs.get(row[0], [])) for row in rows]


def narrative_records(
    *,
    batches: Sequence[int] | None = None,
    approved_only: bool = False,
    sources: Sequence[str] | None = None,
) -> Iterator[NarrativeRecord]:
    """The dataset's narratives as analysis records, by id, with alignment 1's span pairs."""
    for chunk in narrative_record_chunks(
        batches=batches, approved_only=approved_only, sources=sources
    ):
        yield from chunk


def _narrative_record(
    nid, proverb_id, proverb, text, status, worker_id, source, label, pairs: list[dict]
) -> NarrativeRecord:
    """A narrative's analysis record, with its alignment 1's span pairs."""
    return NarrativeRecord(
        narrative_id=nid,
        proverb_id=proverb_id,
        proverb=proverb,
        text=text,
        status=status,
        worker=str(worker_id) if worker_id else None,
        source=rating_source(source, label),
        span_pairs=tuple(
            SpanPairRecord(pair["proverb_span"], pair["narrative_span"])
            for pair in pairs
            if pair["alignment"] == 1
        ),
    )


def export_row_records(rows: list[dict]) -> tuple[list[NarrativeRecord], list[IntegrityRecord]]:
    """The analysis records of export rows read with their FlagRow
    (annotation.datasets.records.export_rows(flag_rows=True)), which this removes."""
    narratives, integrity = [], []
    for row in rows:
        flag_row = row.pop(FLAG_ROW)
        fields = ("id", "proverb_id", "proverb", "narrative", "status")
        narratives.append(
            _narrative_record(
                *(row[name] for name in fields),
                flag_row.worker_id,
                row["source"],
                row["source_label"],
                row.get("span_pairs", []),
            )
        )
        integrity.append(_integrity_record(flag_row))
    return narratives, integrity


def _evaluation_scope(
    batches: Sequence[int] | None, sources: Sequence[str] | None, narrative_field: str
) -> Q:
    counted = Q(assignment__status__in=COUNTED, assignment__item__withdrawn_at__isnull=True)
    narrative = narrative_field.removesuffix("_id")
    demo = demo_batch_ids()
    if demo:  # demo data counts nowhere: judgements made in or about the demo batch
        counted &= ~Q(assignment__item__batch__in=demo) & ~Q(
            **{f"{narrative}__assignment__item__batch__in": demo}
        )
    if sources:
        counted &= Q(**{f"{narrative}__source__in": sources})
    if not batches:
        return counted
    written = dataset_narratives(batches=batches, sources=sources).values("id")
    return counted & (
        Q(**{f"{narrative_field}__in": written}) | Q(assignment__item__batch__in=batches)
    )


def evaluation_records(
    *, batches: Sequence[int] | None = None, sources: Sequence[str] | None = None
) -> dict[str, list]:
    """What the registered task types give the human evaluation in scope, by kind:
    "ratings", "choices", "model_choices" (annotation.task_parts.records)."""
    return task_types.gathered(
        "analysis_records", counted=lambda field: _evaluation_scope(batches, sources, field)
    )


def integrity_records(
    *,
    batches: Sequence[int] | None = None,
    approved_only: bool = False,
    sources: Sequence[str] | None = None,
) -> Iterator[IntegrityRecord]:
    """Each narrative in scope with its integrity flags, batch and worker."""
    narratives = dataset_narratives(batches=batches, approved_only=approved_only, sources=sources)
    for row in flag_rows(narratives, chunk_size=CHUNK_SIZE):
        yield _integrity_record(row)


def _integrity_record(row: FlagRow) -> IntegrityRecord:
    return IntegrityRecord(
        batch=row.batch_id,
        batch_name=row.batch_name if row.batch_id is not None else row.source_label,
        worker=str(row.worker_id) if row.worker_id else None,
        flags=tuple(flag.code for flag in row.flags),
        has_record=bool(row.has_integrity and row.telemetry),
        checked=row.checked,
    )


def split_counts(
    *, batches: Sequence[int] | None = None, sources: Sequence[str] | None = None
) -> dict:
    """Approved narratives in scope per split, for each setting (train, test, none)."""
    narratives = dataset_narratives(batches=batches, approved_only=True, sources=sources)
    counts = {}
    for setting in ("seen", "unseen"):
        rows = narratives.values_list(f"split_{setting}").annotate(n=Count("id")).order_by()
        found = {part or "none": n for part, n in rows}
        counts[setting] = {part: found.get(part, 0) for part in ("train", "test", "none")}
    return counts


def analysis_plan(
    *, batches: Sequence[int] | None = None, sources: Sequence[str] | None = None
) -> list[tuple[int, str]]:
    """(id, proverb) of the approved narratives in scope, by id: the plan that lets
    annotation.analysis.core.Analysis count overlaps while the narratives stream in."""
    narratives = dataset_narratives(batches=batches, approved_only=True, sources=sources)
    return list(narratives.order_by("id").values_list("id", "proverb__text"))


class ScopeAnalysis:
    """The analysis of the dataset in scope (`dataset_analysis`), fed by a reader that
    streams the narratives: `dataset_analysis`, or the export (`tap`), which so reads the
    dataset once while the workers score it. A context manager: inside, the collector runs
    rarely (common.long_read_gc); leaving ends the pool started for it, if any."""

    def __init__(
        self,
        *,
        batches: Sequence[int] | None = None,
        approved_only: bool = False,
        sources: Sequence[str] | None = None,
        seed: int = 0,
        progress: ProgressCallback | None = None,
        newer_flesch: bool = False,
    ) -> None:
        self.batches, self.approved_only, self.sources = batches, approved_only, sources
        self.seed, self.progress, self.newer_flesch = seed, progress, newer_flesch
        self.integrity: list[IntegrityRecord] = []
        self._kept: KeptScores | None = None  # read on the first add
        self._gc = long_read_gc()

    def __enter__(self) -> ScopeAnalysis:
        from annotation.analysis.core import Analysis  # numpy: not on a web worker's start-up

        self._gc.__enter__()  # from the plan's read on
        try:
            plan = analysis_plan(batches=self.batches, sources=self.sources)
            self.analysis = Analysis(
                expected=len(plan),
                plan=plan,
                seed=self.seed,
                progress=self.progress,
                newer_flesch=self.newer_flesch,
            )
        except BaseException:
            self._gc.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.analysis.close()
        finally:
            self._gc.__exit__(None, None, None)

    def add(self, narratives: list[NarrativeRecord], integrity: list[IntegrityRecord]) -> None:
        scores = None
        if self.analysis.reuses_scores:  # the scores kept for the approved texts
            if self._kept is None:
                self._kept = KeptScores(expected=self.analysis.expected)
            approved = [r.text for r in narratives if r.status == "approved"]
            kept = iter(self._kept.of(approved))
            scores = [next(kept) if r.status == "approved" else None for r in narratives]
        self.analysis.add(narratives, scores)
        self.integrity.extend(integrity)

    def tap(self, chunks: Iterable[list[dict]]) -> Iterator[list[dict]]:
        """Pass export chunks (read with flag_rows=True) through, taking their records
        and removing the rows' FlagRow."""
        for chunk in chunks:
            self.add(*export_row_records(chunk))
            yield chunk

    def finish(self) -> dict:
        """The analysis (`dataset_analysis`) of every narrative added; what needs no
        worker's result is made first, while the workers finish."""
        batches, sources = self.batches, self.sources
        splits = split_counts(batches=batches, sources=sources)
        integrity = integrity_shares(self.integrity)
        records = evaluation_records(batches=batches, sources=sources)
        result = self.analysis.finish(
            ratings=records.get("ratings", ()),
            choices=records.get("choices", ()),
            model_choices=records.get("model_choices", ()),
        )
        if "span_pairs" not in {part.name for part in task_types.narrative_parts()}:
            # No registered type keeps span pairs: their statistics are unknown, never 0.
            result.update(dict.fromkeys(SPAN_STATISTICS, None))
        scores_keep(self.analysis.scored)  # for the next analysis
        result["scope"] = {
            "batches": sorted(batches or []),
            "approved_only": self.approved_only,
            "sources": sorted(sources or DATASET_SOURCES),
            "narratives_loaded": len(self.analysis.records),
        }
        result["splits"] = splits
        result["integrity"] = integrity
        result["rounds"] = rounds_analysis(
            narratives=dataset_narratives(batches=batches, sources=sources),
            progress=self.progress,
        )
        return result


def dataset_analysis(
    *,
    batches: Sequence[int] | None = None,
    approved_only: bool = False,
    sources: Sequence[str] | None = None,
    seed: int = 0,
    progress: ProgressCallback | None = None,
    newer_flesch: bool = False,
) -> dict:
    """The analysis of the dataset in scope: annotation.analysis.core.analyze plus scope,
    splits, integrity shares and rounds (the newer rules' Flesch too with `newer_flesch`)."""
    scope = {"batches": batches, "approved_only": approved_only, "sources": sources}
    options = {"seed": seed, "progress": progress, "newer_flesch": newer_flesch}
    with ScopeAnalysis(**scope, **options) as analysis:
        for chunk in narrative_record_chunks(**scope):
            analysis.add(chunk, [])
        analysis.integrity.extend(integrity_records(**scope))
        return analysis.finish()
