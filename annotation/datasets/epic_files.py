"""The ePiC release format, read and written as plain Python (no database).

A file is a JSON array of records ``{"pk": "Q<proverb>N<narrative>", "fields": {"quote",
"narrative", "span_quote_1".."span_quote_5", "span_narrative_1".."span_narrative_5"}}``;
an unused span slot holds "". Spans are strings, found by `resolve_record_spans`; a file
`parse_epic_file` cannot read is refused with every problem, by record number and pk.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import TextIO

from annotation.datasets.layouts import json_array_layout, json_item, ordered, write_json_array
from annotation.task_parts.spans import resolve_span
from annotation.text import normalize_text
from common.checked_input import InputError, json_loads_checked, text_problem

SLOTS = (1, 2, 3, 4, 5)
SPAN_FIELDS = tuple(f"span_quote_{slot}" for slot in SLOTS) + tuple(
    f"span_narrative_{slot}" for slot in SLOTS
)
EPIC_FIELDS = ("quote", "narrative", *SPAN_FIELDS)
PK_MAX_LENGTH = 100  # Narrative.external_id
QUOTE_MAX_LENGTH = 300  # Proverb.text
NARRATIVE_MAX_LENGTH = 20_000  # the write task's cap on a crowd narrative


class EpicFileError(ValueError):
    """The file as a whole cannot be imported; nothing from it was written."""

    def __init__(self, errors: list[RecordProblem]) -> None:
        self.errors = errors
        first = errors[0].message if errors else "The file cannot be imported."
        more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
        super().__init__(first + more)


@dataclass(frozen=True)
class RecordProblem:
    """A problem with one record (1-based number in the file), optionally one span slot."""

    record: int
    pk: str | None
    message: str
    slot: int | None = None

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class EpicSpan:
    slot: int
    quote_span: str
    narrative_span: str


@dataclass(frozen=True)
class EpicRecord:
    number: int
    pk: str
    quote: str
    narrative: str
    spans: tuple[EpicSpan, ...]


@dataclass(frozen=True)
class ResolvedSpanPair:
    """A span pair located by its strings: [start, end) offsets, the strings as given."""

    position: int
    proverb_start: int
    proverb_end: int
    proverb_span: str
    narrative_start: int
    narrative_end: int
    narrative_span: str
    ambiguous: bool


def parse_epic_file(content: bytes, *, max_records: int | None = None) -> list[EpicRecord]:
    """Read an ePiC file into records; raises EpicFileError listing every problem, or for
    a file of more than `max_records` records."""
    try:
        data = json_loads_checked(content, check_strings=False, what="The file")
    except InputError as error:
        message = str(error)
        if isinstance(error.__cause__, json.JSONDecodeError):
            message += " " + _last_complete_record(error.__cause__.doc)
        raise EpicFileError([RecordProblem(0, None, message)]) from error
    if not isinstance(data, list):
        raise EpicFileError(
            [RecordProblem(0, None, "An ePiC file is a JSON array of records; this is not one.")]
        )
    if not data:
        raise EpicFileError([RecordProblem(0, None, "The file holds no records.")])
    if max_records is not None and len(data) > max_records:
        message = (
            f"The file holds {len(data):,} records, more than the import limit of "
            f"{max_records:,} (PARABLE_IMPORT_MAX_RECORDS); split it into smaller files."
        )
        raise EpicFileError([RecordProblem(0, None, message)])
    records, problems, seen = [], [], {}
    for number, item in enumerate(data, start=1):
        try:
            record = _parse_record(number, item)
        except EpicFileError as error:
            problems.extend(error.errors)
            continue
        if record.pk in seen:
            message = f"Record {number}: pk {record.pk} is also record {seen[record.pk]}."
            problems.append(RecordProblem(number, record.pk, message))
            continue
        seen[record.pk] = number
        records.append(record)
    if problems:
        raise EpicFileError(problems)
    return records


_SPACE = re.compile(r"\s*")


def _last_complete_record(text: str) -> str:
    """Which record of a broken file is the last one read whole (a truncated file's last
    good record), said in a sentence."""
    decoder = json.JSONDecoder()
    position = _SPACE.match(text).end()
    if not text.startswith("[", position):
        return "It does not begin with [ (an array of records)."
    position = _SPACE.match(text, position + 1).end()
    number, line, last = 0, 1, None
    previous = 0
    while True:
        try:
            item, end = decoder.raw_decode(text, position)
        except (json.JSONDecodeError, RecursionError):
            break
        number += 1
        line += text.count("\n", previous, end)
        previous = end
        pk = item.get("pk") if isinstance(item, dict) else None
        last = (number, pk if isinstance(pk, str) else "no pk", line)
        position = _SPACE.match(text, end).end()
        if not text.startswith(",", position):
            break
        position = _SPACE.match(text, position + 1).end()
    if last is None:
        return "No record before it is complete."
    number, pk, line = last
    return (
        f"The last complete record is record {number} ({pk}), ending on line {line}; "
        "if the file was cut short, the records after it are missing."
    )


def _parse_record(number: int, item) -> EpicRecord:
    def refused(message: str, pk: str | None = None) -> EpicFileError:
        return EpicFileError([RecordProblem(number, pk, f"Record {number}: {message}")])

    if not isinstance(item, dict):
        raise refused("a record is an object with pk and fields.")
    pk = item.get("pk")
    if not isinstance(pk, str) or not pk.strip() or len(pk) > PK_MAX_LENGTH:
        raise refused(f"pk must be a non-empty string of at most {PK_MAX_LENGTH} characters.")
    fields = item.get("fields")
    if not isinstance(fields, dict):
        raise refused(f"({pk}) has no fields object.", pk)
    missing = [name for name in EPIC_FIELDS if name not in fields]
    unknown = sorted(set(fields) - set(EPIC_FIELDS))
    not_text = [
        name for name in EPIC_FIELDS if name in fields and not isinstance(fields[name], str)
    ]
    wrong = [
        f"lacks field(s) {', '.join(missing)}" if missing else "",
        f"has unknown field(s) {', '.join(unknown)}" if unknown else "",
        f"field(s) {', '.join(not_text)} must be strings" if not_text else "",
    ]
    if any(wrong):
        raise refused(f"({pk}) " + "; ".join(filter(None, wrong)) + ".", pk)
    unstorable = [
        f"{name} {text_problem(text)}"
        for name, text in [("pk", pk), *((name, fields[name]) for name in EPIC_FIELDS)]
        if text_problem(text)
    ]
    if unstorable:
        raise refused(f"({pk!r}) " + "; ".join(unstorable) + ".", None if text_problem(pk) else pk)
    if not normalize_text(fields["quote"]):
        raise refused(f"({pk}) quote has no words.", pk)
    if len(fields["quote"]) > QUOTE_MAX_LENGTH:
        raise refused(f"({pk}) quote is longer than {QUOTE_MAX_LENGTH} characters.", pk)
    if not fields["narrative"].strip():
        raise refused(f"({pk}) narrative is empty.", pk)
    if len(fields["narrative"]) > NARRATIVE_MAX_LENGTH:
        raise refused(f"({pk}) narrative is longer than {NARRATIVE_MAX_LENGTH:,} characters.", pk)
    spans = tuple(
        EpicSpan(slot, fields[f"span_quote_{slot}"], fields[f"span_narrative_{slot}"])
        for slot in SLOTS
        if fields[f"span_quote_{slot}"] or fields[f"span_narrative_{slot}"]
    )
    return EpicRecord(number, pk, fields["quote"], fields["narrative"], spans)


def resolve_record_spans(record: EpicRecord) -> tuple[list[ResolvedSpanPair], list[RecordProblem]]:
    """Unsaved span pairs for the record's resolvable spans, and a problem per other slot;
    spans are found in the record's own quote, never a matched proverb's (case may differ)."""
    pairs, problems = [], []
    for span in record.spans:
        where = f"{record.pk} slot {span.slot}"
        if not span.quote_span.strip() or not span.narrative_span.strip():
            side = "span_narrative" if span.quote_span.strip() else "span_quote"
            message = f"{where}: {side}_{span.slot} is empty."
            problems.append(RecordProblem(record.number, record.pk, message, span.slot))
            continue
        in_quote = resolve_span(record.quote, span.quote_span)
        in_narrative = resolve_span(record.narrative, span.narrative_span)
        missing = [
            f"{name}_{span.slot} {text!r} not found in the {place}"
            for name, text, place, found in (
                ("span_quote", span.quote_span, "quote", in_quote),
                ("span_narrative", span.narrative_span, "narrative", in_narrative),
            )
            if found is None
        ]
        if missing or len(span.quote_span) > QUOTE_MAX_LENGTH:
            reason = "; ".join(missing) or f"span_quote_{span.slot} is too long"
            problems.append(
                RecordProblem(record.number, record.pk, f"{where}: {reason}.", span.slot)
            )
            continue
        pairs.append(
            ResolvedSpanPair(
                position=span.slot,
                proverb_start=in_quote[0],
                proverb_end=in_quote[1],
                proverb_span=span.quote_span,
                narrative_start=in_narrative[0],
                narrative_end=in_narrative[1],
                narrative_span=span.narrative_span,
                ambiguous=in_quote[2] or in_narrative[2],
            )
        )
    return pairs, problems


def epic_record(row: Mapping, keys: list | None = None) -> dict:
    """The ePiC record of an export row (annotation.datasets.records.export_rows), its keys
    and its fields' keys in the order `keys` gives ([record keys, field keys], from the
    imported file's layout), else pk, fields; quote, narrative, the span slots."""
    fields = {"quote": row["proverb_quote"] or row["proverb"], "narrative": row["narrative"]}
    fields.update(dict.fromkeys(SPAN_FIELDS, ""))
    for pair in row.get("span_pairs", ()):
        if pair["alignment"] == 1:
            fields[f"span_quote_{pair['position']}"] = pair["proverb_span"]
            fields[f"span_narrative_{pair['position']}"] = pair["narrative_span"]
    record_keys, field_keys = keys or (None, None)
    return ordered({"pk": row["pk"], "fields": ordered(fields, field_keys)}, record_keys)


def epic_layout(content: bytes) -> dict | None:
    """The layout of an ePiC file `parse_epic_file` read (annotation.datasets.layouts), or
    None when json.dumps cannot write it back or its records hold more than pk and fields."""
    text = content.decode("utf-8")
    records = json.loads(text)
    if any(set(record) != {"pk", "fields"} for record in records):
        return None
    return json_array_layout(
        text, records, item_keys=lambda record: [list(record), list(record["fields"])]
    )


def write_epic(chunks: Iterable[list[dict]], stream: TextIO, layout: dict | None = None) -> int:
    """Write export rows as an ePiC JSON array (in an imported file's `layout`, that file byte
    for byte; without one, a record a line); returns the count."""
    keys = layout["keys"] if layout else None
    records = (json_item(epic_record(row, keys), layout) for chunk in chunks for row in chunk)
    return write_json_array(records, stream, layout)
