"""Import and export of figurative narratives (idioms, similes) in the benchmark's JSONL layout.

A narrative is stored once however many lines or split files bring it; a split belongs to
the option pair (importing dev never moves a train pair). A test split's labels are withheld
in the release (a placeholder "option1" on every line): its pairs are stored unlabelled and
count in no accuracy. The export gives each imported line back as published.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field

from django.db import transaction
from django.db.models import Q

from annotation.datasets.figurative_files import (
    figurative_line,
    jsonl_layout,
    jsonl_text,
    parse_figurative_file,
)
from annotation.datasets.imported_files import (
    figurative_file_key,
    imported_file_layout,
    imported_file_record,
)
from annotation.datasets.records import rows_in_chunks
from annotation.models import ContinuationPair, FigurativeNarrative, ImportedFile
from annotation.task_parts.option_pairs import shown_first_for
from annotation.text import normalize_text
from common.task_queue import queue_on_commit


@dataclass
class FigurativeImportReport:
    lines: int = 0
    narratives: int = 0
    narratives_created: int = 0
    pairs: int = 0
    pairs_created: int = 0
    labelled: bool = True
    labels_added: int = 0
    pairs_in_other_split: int = 0
    other_glosses: int = 0  # lines whose narrative was stored with another line's gloss
    irregular_lines: int = 0
    notes: list[dict] = field(default_factory=list)
    errors: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


LABELS = ("auto", "given", "withheld")
_CHUNK = 1_000  # rows a bulk statement writes
# From this many option pairs up, one correctanswer on every line is a placeholder (the
# release's withheld test labels), not labels: a real benchmark balances the two options.
PLACEHOLDER_MIN_PAIRS = 20


def content_key(*, kind: str, text: str, expression: str) -> str:
    """The identity of a figurative narrative across lines and imports: its kind, text and
    expression. A gloss is not part of it: the same narrative published with two meanings
    is one narrative (each line keeps its own gloss, as published)."""
    return hashlib.sha256("\x1f".join([kind, text, expression]).encode()).hexdigest()


def line_state(narrative: FigurativeNarrative, pair: ContinuationPair | None = None) -> str:
    """A digest of everything the export rebuilds a line from: while a line's stored digest
    still matches, nothing it says has changed since import and the line is written back
    as published."""
    values = [
        narrative.kind,
        narrative.text,
        narrative.expression,
        narrative.expression_start,
        narrative.expression_end,
        narrative.meaning,
        narrative.source_values,
    ]
    if pair is not None:
        values += [pair.option1, pair.option2, pair.correct, pair.published_answer]
    encoded = json.dumps(values, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(encoded.encode()).hexdigest()


def figurative_report_summary(report: FigurativeImportReport) -> str:
    """The import's report in one sentence (the command and the admin print it)."""
    labels = "" if report.labelled else ", stored unlabelled"
    parts = [
        f"{report.lines} line(s): {report.narratives} narrative(s) "
        f"({report.narratives_created} new), {report.pairs} option pair(s) "
        f"({report.pairs_created} new{labels})"
    ]
    if report.labels_added:
        parts.append(f"{report.labels_added} unlabelled pair(s) labelled")
    if report.pairs_in_other_split:
        parts.append(f"{report.pairs_in_other_split} pair(s) already in another split, left there")
    parts.append(f"{report.irregular_lines} irregular line(s) imported with a note")
    return "; ".join(parts) + "."


def labels_given(*, labels: str, split: str, answers: list[str]) -> bool:
    """Whether the file's correctanswer values (`answers`) are labels. "auto": not for a
    test split, nor when PLACEHOLDER_MIN_PAIRS or more lines all give the same answer."""
    if labels not in LABELS:
        raise ValueError(f"labels must be one of {', '.join(LABELS)}, not {labels!r}.")
    if labels != "auto":
        return labels == "given"
    placeholder = len(answers) >= PLACEHOLDER_MIN_PAIRS and len(set(answers)) == 1
    return split != "test" and not placeholder


@transaction.atomic
def figurative_import(
    *, content: bytes, kind: str, split: str = "", labels: str = "auto", filename: str = ""
) -> FigurativeImportReport:
    """Import a JSONL file of idiom or simile narratives (idempotent); a file with an
    unusable line raises FigurativeFileError and nothing is written.

    `labels` (labels_given): "withheld" keeps correctanswer for the export only; importing
    again with labels given labels the pairs stored unlabelled. Each line and the file's
    layout (ImportedFile) are kept, so that the split's export is the file byte for byte.
    """
    if split not in FigurativeNarrative.Split.values:
        raise ValueError(f"split must be one of train, dev, test, not {split!r}.")
    lines = parse_figurative_file(content, kind=kind)
    answers = [line.answer for line in lines if line.options is not None]
    labelled = labels_given(labels=labels, split=split, answers=answers)
    report = FigurativeImportReport(lines=len(lines), labelled=labelled)
    narratives = _narratives_for(lines, kind=kind, split=split, report=report)
    pairs = {
        (pair.narrative_id, pair.option1, pair.option2): pair
        for pair in rows_in_chunks(
            ContinuationPair.objects, "narrative_id", [n.pk for n in narratives.values()]
        )
    }
    new_pairs, changed_pairs, changed_narratives = [], {}, {}
    brought: dict[tuple, int] = {}  # pair -> the line of this file that brought it
    for line in lines:
        notes = list(line.notes)
        narrative = narratives[content_key(kind=kind, text=line.text, expression=line.expression)]
        if line.meaning != narrative.meaning:
            report.other_glosses += 1
            notes.append(
                f"the narrative of line {line.line} is stored once, with its first gloss "
                f"{narrative.meaning!r}; this line's gloss {line.meaning!r} stays with the line"
            )
        if line.options is None and not narrative.source_line:
            if line.meaning == narrative.meaning:
                narrative.source_line = line.raw
                narrative.source_state = line_state(narrative)
                changed_narratives[narrative.pk] = narrative
        elif line.options is not None:
            option1, option2, correct = line.options
            identity = (narrative.pk, option1, option2)
            pair = pairs.get(identity)
            created = pair is None
            if created:
                pair = pairs[identity] = ContinuationPair(
                    narrative=narrative,
                    option1=option1,
                    option2=option2,
                    correct=correct if labelled else None,
                    split=split,
                    published_answer=line.answer,
                )
                new_pairs.append(pair)
            report.pairs += 1
            report.pairs_created += created
            if identity in brought:
                notes.append(
                    f"the same narrative and options as line {brought[identity]}: stored once "
                    "(the export writes the line once)"
                )
            elif not created and pair.split != split:
                report.pairs_in_other_split += 1
                where = pair.split or "no"
                notes.append(f"this option pair is already in the {where} split: left there")
            elif not created and labelled and pair.correct is None:
                pair.correct = correct
                changed_pairs[identity] = pair
                report.labels_added += 1
            brought.setdefault(identity, line.line)
            if created or (not pair.source_line and pair.published_answer == line.answer):
                # The line describes the pair as stored: keep it as published.
                pair.source_line = line.raw
                pair.source_state = line_state(narrative, pair)
                changed_pairs[identity] = pair
        if notes:
            report.irregular_lines += 1
            report.notes.extend({"line": line.line, "note": note} for note in notes)
    _pairs_write(new_pairs, [pair for pair in changed_pairs.values() if pair.pk])
    FigurativeNarrative.objects.bulk_update(
        changed_narratives.values(), ["source_line", "source_state"], batch_size=_CHUNK
    )
    report.narratives = len(narratives)
    imported_file_record(
        kind=ImportedFile.Kind.FIGURATIVE,
        key=figurative_file_key(kind=kind, split=split),
        filename=filename,
        fields=list(dict.fromkeys(name for line in lines for name in line.fields)),
        records=len(lines),
        layout=jsonl_layout(content),
    )
    # The dataset check of what this file brought, once the import commits.
    queue_on_commit("annotation.figurative_similarity_check", [n.pk for n in narratives.values()])
    return report


def _narratives_for(
    lines: list, *, kind: str, split: str, report: FigurativeImportReport
) -> dict[str, FigurativeNarrative]:
    """The narrative of each content key the lines name: stored ones, and new ones created
    (in the order of the lines that first bring them) from their first line."""
    first_lines = {}
    for line in lines:
        key = content_key(kind=kind, text=line.text, expression=line.expression)
        first_lines.setdefault(key, line)
    found = {
        narrative.content_key: narrative
        for narrative in rows_in_chunks(FigurativeNarrative.objects, "content_key", first_lines)
    }
    new = [
        FigurativeNarrative(
            content_key=key,
            kind=kind,
            text=line.text,
            expression=line.expression,
            expression_start=line.span[0] if line.span else None,
            expression_end=line.span[1] if line.span else None,
            meaning=line.meaning,
            split=split,
            source_values=line.source_values,
        )
        for key, line in first_lines.items()
        if key not in found
    ]
    FigurativeNarrative.objects.bulk_create(new, batch_size=_CHUNK)
    report.narratives_created = len(new)
    return {**found, **{narrative.content_key: narrative for narrative in new}}


def _pairs_write(new: list[ContinuationPair], changed: list[ContinuationPair]) -> None:
    """Insert the new pairs (in the file's order) with their stored display order
    (shown_first_for their ids, as one pair at a time gets it), and save the changed."""
    ContinuationPair.objects.bulk_create(new, batch_size=_CHUNK)
    second = [pair.pk for pair in new if shown_first_for(pair.pk) == 2]
    for start in range(0, len(second), _CHUNK):
        ContinuationPair.objects.filter(pk__in=second[start : start + _CHUNK]).update(shown_first=2)
    ContinuationPair.objects.bulk_update(
        changed, ["correct", "source_line", "source_state"], batch_size=_CHUNK
    )


def figurative_export_lines(*, kind: str, split: str | None = None) -> list[str]:
    """Lines in the release layout: one per option pair (in the order stored, an imported
    file's own), then one per narrative without any (by id); with a split, that split's.
    A narrative confirmed as literal use keeps only its imported pairs (and is left out
    without any); a crowd continuation's pair exists once it is approved."""
    narratives = FigurativeNarrative.objects.filter(kind=kind)
    if split is not None:
        narratives = narratives.filter(Q(split=split) | Q(option_pairs__split=split)).distinct()
    paired, alone = [], []
    for narrative in narratives.prefetch_related("option_pairs").order_by("id"):
        kept = [
            pair
            for pair in narrative.option_pairs.all()
            if not pair.withdrawn
            and not (
                narrative.literal_use_confirmed and pair.source == ContinuationPair.Source.CROWD
            )
        ]
        if (
            not kept
            and not narrative.literal_use_confirmed
            and (split is None or narrative.split == split)
        ):
            alone.append(_export_line(narrative))
        paired.extend(
            (pair.pk, _export_line(narrative, pair))
            for pair in kept
            if split is None or pair.split == split
        )
    return [line for _, line in sorted(paired)] + alone


def _export_line(narrative: FigurativeNarrative, pair: ContinuationPair | None = None) -> str:
    """The line as published while nothing it says has changed since import (line_state),
    else rebuilt from what is stored."""
    kept = pair or narrative
    if kept.source_line and kept.source_state == line_state(narrative, pair):
        return kept.source_line
    start, end = narrative.expression_start, narrative.expression_end
    return figurative_line(
        kind=narrative.kind,
        text=narrative.text,
        expression=narrative.expression,
        span=None if start is None else (start, end),
        meaning=narrative.meaning,
        options=(pair.option1, pair.option2, pair.correct) if pair else None,
        answer=pair.published_answer if pair else "",
        source_values=narrative.source_values,
    )


def figurative_export_text(*, kind: str, split: str | None = None) -> str:
    """The export as a file, in the line endings, final newline and byte-order mark of the
    file imported as that split (else each line ends with a newline)."""
    layout = None
    if split is not None:
        layout = imported_file_layout(figurative_file_key(kind=kind, split=split))
    return jsonl_text(figurative_export_lines(kind=kind, split=split), layout)


@dataclass
class CopyGroup:
    """Figurative narratives of one text up to case, punctuation and spacing (one story
    published several times); `splits` are those of the narratives and their option pairs:
    a group in more than one split may leak a test story into training."""

    number: int
    kind: str
    text: str  # the first narrative's
    narrative_ids: list[int]
    expressions: list[str]
    splits: list[str]

    @property
    def across_splits(self) -> bool:
        return len(self.splits) > 1


def figurative_copy_groups(*, kind: str | None = None) -> list[CopyGroup]:
    """The near-copy groups (two or more narratives of one text, or one narrative in more
    than one split), the largest first."""
    narratives = FigurativeNarrative.objects.order_by("id")
    if kind is not None:
        narratives = narratives.filter(kind=kind)
    by_text: dict[tuple[str, str], list[tuple]] = {}
    for row in narratives.values_list("id", "kind", "text", "expression", "split"):
        by_text.setdefault((row[1], normalize_text(row[2])), []).append(row)
    pair_splits: dict[int, set[str]] = {}
    for narrative_id, split in (
        ContinuationPair.objects.filter(narrative__in=narratives)
        .exclude(split="")
        .values_list("narrative_id", "split")
        .distinct()
    ):
        pair_splits.setdefault(narrative_id, set()).add(split)
    groups = []
    for rows in sorted(by_text.values(), key=lambda rows: (-len(rows), rows[0][0])):
        splits = {row[4] for row in rows if row[4]}
        for row in rows:
            splits |= pair_splits.get(row[0], set())
        if len(rows) == 1 and len(splits) < 2:
            continue
        groups.append(
            CopyGroup(
                number=len(groups) + 1,
                kind=rows[0][1],
                text=rows[0][2],
                narrative_ids=[row[0] for row in rows],
                expressions=list(dict.fromkeys(row[3] for row in rows)),
                splits=[split for split in FigurativeNarrative.Split.values if split in splits],
            )
        )
    return groups
