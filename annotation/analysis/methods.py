"""A methods and data statement for a paper, in Markdown or LaTeX (methods_render), that says
what the scope's data shows and no more: collected and imported narratives each get sentences
of their own, demo data none; every figure is the dashboard analysis' own. Its parts are
registered with `methods_part_register` (from an AppConfig.ready()), each writing into the
document from the scope (`MethodsScope`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from django.db.models import Count, Q

from annotation.analysis.cards import Table
from annotation.analysis.selectors import definitions
from annotation.datasets.imported_files import epic_file_key
from annotation.datasets.records import DATASET_SOURCES, dataset_narratives
from annotation.models import ImportedFile, Narrative
from common.prose import paper_number
from crowd import task_types
from crowd.models import Assignment, Batch


@dataclass
class Methods:
    """The statement as blocks: ("h", title), ("p", text), ("quote", text), ("table", Table).
    `sources` pairs each figure named in the text with where Parable shows it."""

    blocks: list[tuple[str, object]] = field(default_factory=list)
    sources: list[tuple[str, str, str]] = field(default_factory=list)

    def heading(self, text: str) -> None:
        self.blocks.append(("h", text))

    def paragraph(self, text: str) -> None:
        self.blocks.append(("p", text))

    def quote(self, text: str) -> None:
        self.blocks.append(("quote", text))

    def table(self, table: Table) -> None:
        self.blocks.append(("table", table))

    def figure(self, value, label: str, source: str, *, text: str | None = None) -> str:
        """The value as a paper writes it (or `text`), noted with its label and source."""
        shown = paper_number(value) if text is None else text
        self.sources.append((label, shown, source))
        return shown


@dataclass
class ImportedSource:
    """Narratives imported under one source label, and the file they came from."""

    label: str
    narratives: int
    proverbs: int
    proverbs_created: int
    kept: list[str]  # what the task types say they keep of them (its span pairs)
    splits: dict[str, Counter]
    file: ImportedFile | None


@dataclass
class MethodsScope:
    """What a part writes from: the analysis, the batches collected here in scope (no
    demo batch), the counts of narratives by origin and the imports in scope."""

    analysis: dict
    batches: list[Batch]
    collected: int
    imported: list[ImportedSource]
    approved_only: bool
    meaning: dict[str, str]


@dataclass(frozen=True)
class MethodsPart:
    key: str
    order: int
    write: Callable[[Methods, MethodsScope], None]


_parts: dict[str, MethodsPart] = {}


def methods_part_register(
    *, key: str, order: int, write: Callable[[Methods, MethodsScope], None]
) -> MethodsPart:
    """Add a part to every methods statement, written in `order` among the others
    (annotation's: 100 scope, 200 items, 300 task design, 400 workers and pay, 500
    imported data, 600 integrity, 700 agreement, 800 dataset); the table of where each
    figure comes from always comes last. Registering a key again replaces that part."""
    part = MethodsPart(key=key, order=order, write=write)
    _parts[key] = part
    return part


def methods_parts() -> list[MethodsPart]:
    return sorted(_parts.values(), key=lambda part: (part.order, part.key))


def methods_document(*, analysis: dict, batches: Sequence[int] | None = None) -> Methods:
    """The methods and data statement of the scope that `analysis` (the dashboard's
    analysis result, `dataset_analysis`) was computed on."""
    scope = methods_scope(analysis=analysis, batches=batches)
    doc = Methods()
    for part in methods_parts():
        part.write(doc, scope)
    doc.heading("Where each figure comes from")
    doc.table(Table(["Figure", "Value", "Where Parable shows it"], doc.sources))
    return doc


def methods_scope(*, analysis: dict, batches: Sequence[int] | None = None) -> MethodsScope:
    """The scope's batches and narratives by origin, from the analysis' own scope."""
    stated = analysis.get("scope") or {}
    batch_ids = list(batches or stated.get("batches") or [])
    sources = stated.get("sources") or list(DATASET_SOURCES)
    approved_only = bool(stated.get("approved_only"))
    narratives = dataset_narratives(batches=batch_ids, approved_only=approved_only, sources=sources)
    # The batches of the registered types: a type taken out says nothing of its batches.
    registered = Batch.objects.filter(task_type__in=task_types.registered())
    chosen = registered.filter(is_demo=False).order_by("id")
    if batch_ids:
        chosen = chosen.filter(pk__in=batch_ids)
    else:
        chosen = chosen.filter(items__assignments__status__in=Assignment.STORED).distinct()
    return MethodsScope(
        analysis=analysis,
        batches=list(chosen),
        collected=narratives.filter(source=Narrative.Source.CROWD).count(),
        imported=_imported_sources(narratives.filter(source=Narrative.Source.IMPORTED)),
        approved_only=approved_only,
        meaning=definitions(),
    )


def _imported_sources(narratives) -> list[ImportedSource]:
    found = []
    labels = narratives.order_by("source_label").values_list("source_label", flat=True).distinct()
    for label in labels:
        mine = narratives.filter(source_label=label)
        counts = mine.aggregate(
            narratives=Count("id"),
            proverbs=Count("proverb", distinct=True),
            created=Count("proverb", distinct=True, filter=Q(proverb__source=label)),
        )
        splits = {
            setting: Counter(
                dict(
                    mine.exclude(**{f"split_{setting}": ""})
                    .values_list(f"split_{setting}")
                    .annotate(n=Count("id"))
                    .order_by()
                )
            )
            for setting in ("seen", "unseen")
        }
        found.append(
            ImportedSource(
                label=label,
                narratives=counts["narratives"],
                proverbs=counts["proverbs"],
                proverbs_created=counts["created"],
                kept=[
                    sentence
                    for task_type in task_types.in_order()
                    for sentence in task_type.methods_sentences(imported=mine)
                ],
                splits=splits,
                file=ImportedFile.objects.filter(key=epic_file_key(source_label=label)).first(),
            )
        )
    return found
