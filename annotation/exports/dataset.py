"""Dataset export: ePiC, JSONL, CSV or Parquet data with a dataset card (README.md) beside it.

Rows stream from the database in chunks (datasets.records.export_rows), so memory stays flat.
Each file is written under a temporary name and renamed when complete: no half-written file
ever has its final name. Worker ids become salted hashes unless the researcher keeps them.
Over 400 lines: the four formats' writers, the Parquet schema and the ePiC split files.
"""

from __future__ import annotations

import itertools
import json
import logging
import operator
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from annotation.analysis.cards import dataset_card
from annotation.analysis.methods import methods_document
from annotation.analysis.methods_render import methods_latex, methods_markdown
from annotation.analysis.selectors import ScopeAnalysis
from annotation.datasets.epic_files import write_epic
from annotation.datasets.imported_files import (
    epic_file_key,
    epic_split_file_key,
    imported_file_layout,
)
from annotation.datasets.layouts import json_array_text
from annotation.datasets.records import DATASET_SOURCES, dataset_narratives, export_rows
from annotation.models import Narrative
from common.csv_cells import SafeCsvWriter
from common.progress import ProgressCallback
from common.pseudonyms import WorkerPseudonyms, export_salt
from crowd import task_types

logger = logging.getLogger(__name__)

FORMATS = ("epic", "jsonl", "csv", "parquet")
DATA_FILES = {
    "epic": "epic.json",
    "jsonl": "dataset.jsonl",
    "csv": "dataset.csv",
    "parquet": "dataset.parquet",
}
# The narrative's own columns, in order, with their Parquet types (pyarrow's names).
_BASE_TYPES = {
    "id": "int64",
    "pk": "string",
    "proverb_id": "int64",
    "proverb": "string",
    "proverb_quote": "string",
    "narrative": "string",
    "source": "string",
    "source_label": "string",
    "status": "string",
    "worker": "string",
    "pledged_at": "string",
    "split_seen": "string",
    "split_unseen": "string",
    # annotation.opponents.selectors.ROUND_FIELDS
    "round": "int32",
    "opponent_run": "int64",
    "model_rank": "int32",
    "model_fooled": "bool_",
    "human_validated": "bool_",
    "model_checks": "int32",
}
_BASE_COLUMNS = tuple(_BASE_TYPES)
# The writing record's summary (annotation.quality.integrity), a struct in Parquet.
_WRITING_TYPES = {
    "typed_share": "float64",
    "pasted_share": "float64",
    "without_keys_share": "float64",
    "synthetic_events": "int64",
    "deleted": "int64",
    "pauses": "int64",
    "mean_key_interval_ms": "float64",
    "composition_seconds": "int64",
    "hidden_seconds": "int64",
    "tab_switches": "int64",
    "blurs": "int64",
    "blurred_seconds": "int64",
}


def nested_columns() -> tuple[str, ...]:
    """The columns written as JSON in a CSV: keywords, the task types' narrative parts (span
    pairs, ratings), integrity flags and the writing record."""
    parts = (part.name for part in task_types.narrative_parts())
    return ("keywords", *parts, "integrity_flags", "writing")


def columns() -> tuple[str, ...]:
    """The export's columns, in order: the narrative's own, then the nested ones."""
    return (*_BASE_COLUMNS, *nested_columns())


# Split files written by Parable: ["Q1N1", "Q1N2"] and a newline.
ONE_LINE = {
    "indent": None,
    "ensure_ascii": False,
    "separators": [", ", ": "],
    "final_newline": "\n",
    "bom": False,
    "keys": None,
}


def parquet_schema():
    """The Parquet export's schema, the task types' narrative parts included (pyarrow is
    imported here, not by web workers)."""
    import pyarrow as pa

    def typed(fields) -> list:
        return [(name, getattr(pa, type_)()) for name, type_ in fields]

    parts = [
        (part.name, pa.list_(pa.struct(typed(part.fields))))
        for part in task_types.narrative_parts()
    ]
    return pa.schema(
        [
            *typed(_BASE_TYPES.items()),
            ("keywords", pa.list_(pa.string())),
            *parts,
            ("integrity_flags", pa.list_(pa.string())),
            ("writing", pa.struct(typed(_WRITING_TYPES.items()))),
        ]
    )


def pseudonymize(chunks: Iterable[list[dict]], pseudonym: WorkerPseudonyms) -> Iterator[list[dict]]:
    parts = [part for part in task_types.narrative_parts() if part.pseudonymized]
    for chunk in chunks:
        for row in chunk:
            row["worker"] = pseudonym(row["worker"])
            for part in parts:
                for record in row[part.name]:
                    for name in part.pseudonymized:
                        record[name] = pseudonym(record[name])
        yield chunk


@dataclass
class ExportSummary:
    """Counts gathered while the rows stream past, for the dataset card."""

    rows: int = 0
    proverbs: set = field(default_factory=set)
    workers: set = field(default_factory=set)
    without_worker: int = 0  # rows whose worker is not known (an imported release's)
    statuses: Counter = field(default_factory=Counter)
    sources: Counter = field(default_factory=Counter)
    # Records of each of the task types' narrative parts (span pairs, ratings).
    parts: Counter = field(
        default_factory=lambda: Counter({part.name: 0 for part in task_types.narrative_parts()})
    )
    splits: dict = field(
        default_factory=lambda: {"seen": Counter(), "unseen": Counter()}, repr=False
    )

    def count(self, chunks: Iterable[list[dict]]) -> Iterator[list[dict]]:
        for chunk in chunks:
            self.rows += len(chunk)
            self.proverbs.update(row["proverb_id"] for row in chunk)
            self.workers.update(row["worker"] for row in chunk if row["worker"])
            self.without_worker += sum(not row["worker"] for row in chunk)
            self.statuses.update(row["status"] for row in chunk)
            self.sources.update(
                f"{row['source']}:{row['source_label']}".rstrip(":") for row in chunk
            )
            for setting in ("seen", "unseen"):
                self.splits[setting].update(row[f"split_{setting}"] or "none" for row in chunk)
            for part in self.parts:
                self.parts[part] += sum(len(row[part]) for row in chunk)
            yield chunk


# Rows are plain dicts and lists made here: no cycle to look for.
_encode_json = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode


def write_jsonl(chunks: Iterable[list[dict]], stream: TextIO) -> int:
    count = 0
    for chunk in chunks:
        stream.writelines(_encode_json(row) + "\n" for row in chunk)
        count += len(chunk)
    return count


def write_csv(chunks: Iterable[list[dict]], stream: TextIO) -> int:
    """One row per narrative; keywords, span_pairs and ratings (the last columns) as JSON.

    Text cells that a spreadsheet would run as a formula get a leading `'` (csv_cells).
    """
    writer = SafeCsvWriter(stream)
    nested = nested_columns()
    writer.writerow(columns())
    flat = operator.itemgetter(*_BASE_COLUMNS)
    count = 0
    for chunk in chunks:
        writer.writerows(
            [
                *("" if value is None else value for value in flat(row)),
                *(_encode_json(row[column]) for column in nested),
            ]
            for row in chunk
        )
        count += len(chunk)
    return count


def write_parquet(chunks: Iterable[list[dict]], path: Path) -> int:
    """A Parquet file with `parquet_schema()`, one row group per chunk."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = parquet_schema()
    count = 0
    with pq.ParquetWriter(path, schema) as writer:
        for chunk in chunks:
            writer.write_table(pa.Table.from_pylist(chunk, schema=schema))
            count += len(chunk)
    return count


@contextmanager
def _replacing(path: Path):
    """Yield a temporary path beside `path`; rename it to `path` only on success."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        yield partial
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


@dataclass
class ExportResult:
    format: str
    directory: Path
    files: list[Path]
    rows: int
    card: Path
    methods: list[Path] = field(default_factory=list)  # methods.md, methods.tex


def dataset_export(
    *,
    format: str,
    directory: Path,
    batches: Sequence[int] | None = None,
    approved_only: bool = True,
    sources: Sequence[str] | None = None,
    raw_worker_ids: bool = False,
    requested_by: str = "",
    statistics: bool = True,
    analysis: dict | None = None,
    seed: int = 0,
    newer_flesch: bool = False,
    progress: ProgressCallback | None = None,
) -> ExportResult:
    """Write the dataset in `format` into `directory` with README.md and, for ePiC, split files.

    `raw_worker_ids` keeps the providers' ids: the export is logged with `requested_by` and
    its card says so. Every status unless `approved_only`. The card's statistics come from
    `analysis` (`analyze --json`'s output), else from running the analysis when `statistics`
    (with `newer_flesch`'s newer Flesch); with them, methods.md and methods.tex are written too.
    """
    if format not in FORMATS:
        raise ValueError(f"Unknown format {format!r}; use one of {', '.join(FORMATS)}.")
    directory.mkdir(parents=True, exist_ok=True)
    scope = {"batches": batches, "approved_only": approved_only, "sources": sources}
    if raw_worker_ids:
        logger.warning(
            "Raw worker ids exported by %s (%s format, batches %s, sources %s).",
            requested_by or "an unnamed caller",
            format,
            sorted(batches) if batches else "all",
            sorted(sources) if sources else "all",
        )
    total = dataset_narratives(**scope).count()
    streamed = None
    if analysis is None and statistics:
        # The analysis takes its narratives from the export's own rows, and its workers
        # score them while the rest are read and written.
        streamed = ScopeAnalysis(**scope, seed=seed, progress=progress, newer_flesch=newer_flesch)
    with streamed or nullcontext():
        summary = ExportSummary()
        chunks = export_rows(**scope, flag_rows=streamed is not None)
        if streamed is not None:
            chunks = streamed.tap(chunks)
        if not raw_worker_ids:
            chunks = pseudonymize(chunks, WorkerPseudonyms(export_salt()))
        chunks = _reporting(summary.count(chunks), total, progress)
        data_path = directory / DATA_FILES[format]
        split_pks = _SplitPks(directory)
        layout = None
        if format == "epic":
            chunks = split_pks.collect(chunks)
            layout = epic_export_layout(**scope)
        _write_data(format, chunks, data_path, layout)
        files = [data_path, *(split_pks.finish() if format == "epic" else [])]
        if streamed is not None:
            analysis = streamed.finish()
    methods, methods_files = None, []
    if analysis is not None:
        # The methods and data statement, beside the card and inside it.
        document = methods_document(analysis=analysis, batches=batches)
        methods = methods_markdown(document)
        for name, text in (("methods.md", methods), ("methods.tex", methods_latex(document))):
            with _replacing(directory / name) as partial:
                partial.write_text(text, encoding="utf-8")
            methods_files.append(directory / name)
    card_path = directory / "README.md"
    with _replacing(card_path) as partial:
        partial.write_text(
            dataset_card(
                format=format,
                files=[path.name for path in files],
                summary=summary,
                analysis=analysis,
                scope={
                    "batches": sorted(batches or []),
                    "approved_only": approved_only,
                    "sources": sorted(sources or DATASET_SOURCES),
                },
                raw_worker_ids=raw_worker_ids,
                methods=methods,
            ),
            encoding="utf-8",
        )
    return ExportResult(format, directory, files, summary.rows, card_path, methods_files)


def epic_export_layout(
    *, batches: Sequence[int] | None, approved_only: bool, sources: Sequence[str] | None
) -> dict | None:
    """The layout of the ePiC file that brought every narrative in scope (one source label),
    so that exporting what a file brought gives that file byte for byte; else None."""
    origins = list(
        dataset_narratives(batches=batches, approved_only=approved_only, sources=sources)
        .order_by()
        .values_list("source", "source_label")
        .distinct()[:2]
    )
    if len(origins) != 1 or origins[0][0] != Narrative.Source.IMPORTED:
        return None
    return imported_file_layout(epic_file_key(source_label=origins[0][1]))


def _write_data(
    format: str, chunks: Iterable[list[dict]], path: Path, layout: dict | None = None
) -> None:
    with _replacing(path) as partial:
        if format == "parquet":
            write_parquet(chunks, partial)
            return
        with open(partial, "w", encoding="utf-8", newline="") as stream:
            if format == "epic":
                write_epic(chunks, stream, layout)
                return
            {"jsonl": write_jsonl, "csv": write_csv}[format](chunks, stream)


def _reporting(chunks: Iterable[list[dict]], total: int, progress: ProgressCallback | None):
    done = 0
    for chunk in chunks:
        yield chunk
        done += len(chunk)
        if progress is not None:
            progress(done, total, "export")


class _SplitPks:
    """The record pks of each split, written into epic_<setting>_<part>_pks.json files.

    A narrative placed by an imported split file keeps its place (Narrative.split_*_position):
    those come first, in the file's order, then the others in export order, so split files
    imported and exported again come back in the same order.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.pks: dict[tuple[str, str], list[tuple[int, str]]] = defaultdict(list)

    def _path(self, setting: str, part: str) -> Path:
        return self.directory / f"epic_{setting}_{part}_pks.json"

    def collect(self, chunks: Iterable[list[dict]]) -> Iterator[list[dict]]:
        for chunk in chunks:
            for row in chunk:
                for setting in ("seen", "unseen"):
                    if row[f"split_{setting}"]:
                        self.pks[(setting, row[f"split_{setting}"])].append((row["id"], row["pk"]))
            yield chunk

    def _ordered(self, setting: str, pks: list[tuple[int, str]]) -> list[str]:
        field_name = f"split_{setting}_position"
        positions = dict(
            Narrative.objects.filter(**{f"{field_name}__isnull": False}).values_list(
                "id", field_name
            )
        )
        placed = sorted((positions[nid], pk) for nid, pk in pks if nid in positions)
        return [pk for _, pk in placed] + [pk for nid, pk in pks if nid not in positions]

    def finish(self) -> list[Path]:
        """Write the files into place (a split the export lacks is removed, so none lingers
        from an older export); returns their paths."""
        for setting, part in itertools.product(("seen", "unseen"), ("train", "test")):
            if (setting, part) not in self.pks:
                self._path(setting, part).unlink(missing_ok=True)
        paths = []
        for setting, part in sorted(self.pks):
            pks = self._ordered(setting, self.pks[(setting, part)])
            # As the imported split file was written (its export is then that file).
            layout = imported_file_layout(epic_split_file_key(setting=setting, part=part))
            with _replacing(self._path(setting, part)) as partial:
                partial.write_text(
                    json_array_text(pks, layout or ONE_LINE), encoding="utf-8", newline=""
                )
            paths.append(self._path(setting, part))
        return paths
