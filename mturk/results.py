"""Reading the requester site's batch results CSV (no Django): HITId, AssignmentId,
WorkerId, AssignmentStatus, SubmitTime, WorkTimeInSeconds, Input.* (the HIT's variables),
Answer.* (the form's fields). A mapping names a Parable field's column, e.g.
`proverb=Input.proverb,narrative=Answer.story`."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from typing import TYPE_CHECKING

from common.csv_cells import formula_unsafe

if TYPE_CHECKING:
    from crowd.task_types import TaskType

REQUIRED_COLUMNS = ("HITId", "AssignmentId", "WorkerId", "AssignmentStatus")
STATUSES = {"Submitted": "submitted", "Approved": "approved", "Rejected": "rejected"}


# Time zones in MTurk's SubmitTime column, as hours from UTC.
_ZONES = {"PST": -8, "PDT": -7, "UTC": 0, "GMT": 0, "EST": -5, "EDT": -4}


class ResultsFileError(ValueError):
    """The file or the mapping cannot be used at all: nothing is imported."""


@dataclass(frozen=True)
class ResultRow:
    line: int
    hit_id: str
    assignment_id: str
    worker_id: str
    status: str
    submitted_at: datetime | None
    work_seconds: int | None
    fields: dict[str, str]


@dataclass
class ParsedResults:
    rows: list[ResultRow] = field(default_factory=list)
    errors: list[dict] = field(default_factory=list)


def _family(name: str) -> str | None:
    """ "rating." for the family "rating.<criterion>"; None for a plain field."""
    return name.split("<", 1)[0] if "<" in name else None


def parse_mapping(spec: str, *, task_type: TaskType) -> dict[str, str]:
    """`field=Column,...` into {field: column}; ResultsFileError if it cannot serve the
    task type (its `import_fields` and `import_optional_fields`)."""
    plain = {
        f for f in (*task_type.import_fields, *task_type.import_optional_fields) if not _family(f)
    }
    families = [f for f in map(_family, task_type.import_fields) if f]
    mapping = {}
    for part in (piece.strip() for piece in spec.split(",")):
        if not part:
            continue
        name, sep, column = (text.strip() for text in part.partition("="))
        if not sep or not name or not column:
            raise ResultsFileError(f"Mapping entry {part!r} is not field=Column.")
        if not column.startswith(("Input.", "Answer.")):
            raise ResultsFileError(f"Mapping column {column!r} is not an Input.* or Answer.* one.")
        if name not in plain and not any(name.startswith(family) for family in families):
            raise ResultsFileError(f"A {task_type.key} import has no field {name!r}.")
        mapping[name] = column
    missing = [
        name
        for name in task_type.import_fields
        if (
            not any(field.startswith(_family(name)) for field in mapping)
            if _family(name)
            else name not in mapping
        )
    ]
    if missing:
        raise ResultsFileError(f"The mapping needs {', '.join(missing)}.")
    return mapping


def parse_results(content: bytes, *, mapping: dict[str, str]) -> ParsedResults:
    """Rows of the file with their line numbers; a row that cannot be read is an error."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ResultsFileError("The file is not UTF-8 text (a CSV from MTurk is).") from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = reader.fieldnames or []
    missing = [c for c in (*REQUIRED_COLUMNS, *mapping.values()) if c not in header]
    if missing:
        raise ResultsFileError(f"The file has no column {', '.join(missing)}.")
    parsed = ParsedResults()
    seen: dict[str, int] = {}
    line = reader.line_num + 1
    records = iter(reader)
    while True:
        try:
            record = next(records)
        except StopIteration:
            return parsed
        except csv.Error as error:
            # The reader cannot go on past this row (a field over the csv module's limit of
            # 131,072 characters, a stray quote at the end): the file is refused whole.
            raise ResultsFileError(_unreadable_row(text, line, header, error)) from None
        error = _row_error(record, seen)
        if error:
            parsed.errors.append({"line": line, "message": error})
        else:
            seen[record["AssignmentId"].strip()] = line
            parsed.rows.append(_row(line, record, mapping))
        line = reader.line_num + 1


def _unreadable_row(text: str, line: int, header: list[str], error: csv.Error) -> str:
    """The refusal for the row starting at `line`, naming the field over the reader's limit."""
    limit = csv.field_size_limit()
    rest = "".join(io.StringIO(text, newline="").readlines()[line - 1 :])
    column, length, quoted, position = 0, 0, False, 0
    while position < len(rest):
        char = rest[position]
        position += 1
        if quoted and char == '"' and rest[position : position + 1] == '"':
            position += 1  # an escaped quote inside a quoted field
        elif char == '"':
            quoted = not quoted
            continue
        elif not quoted and char == ",":
            column, length = column + 1, 0
            continue
        elif not quoted and char in "\r\n":
            break
        length += 1
        if length > limit:
            name = header[column] if column < len(header) else f"column {column + 1}"
            return f"Line {line}: field {name} is longer than {limit:,} characters."
    return f"Line {line} cannot be read as CSV: {error}."


def _row_error(record: dict, seen: dict[str, int]) -> str:
    if None in record:
        return "The row has more cells than the header."
    values = {column: (record.get(column) or "").strip() for column in REQUIRED_COLUMNS}
    empty = [column for column, value in values.items() if not value]
    if empty:
        return f"Empty {', '.join(empty)}."
    if values["AssignmentStatus"] not in STATUSES:
        return (
            f"AssignmentStatus {values['AssignmentStatus']!r} is not Submitted, Approved or "
            "Rejected."
        )
    if values["AssignmentId"] in seen:
        return f"AssignmentId {values['AssignmentId']} repeats line {seen[values['AssignmentId']]}."
    work = (record.get("WorkTimeInSeconds") or "").strip()
    if work and not work.isdigit():
        return f"WorkTimeInSeconds {work!r} is not a whole number."
    if (record.get("SubmitTime") or "").strip() and _time(record["SubmitTime"]) is None:
        return f"SubmitTime {record['SubmitTime']!r} is not a time MTurk writes."
    return ""


def _row(line: int, record: dict, mapping: dict[str, str]) -> ResultRow:
    work = (record.get("WorkTimeInSeconds") or "").strip()
    return ResultRow(
        line=line,
        hit_id=record["HITId"].strip(),
        assignment_id=record["AssignmentId"].strip(),
        worker_id=record["WorkerId"].strip(),
        status=STATUSES[record["AssignmentStatus"].strip()],
        submitted_at=_time(record.get("SubmitTime") or ""),
        work_seconds=int(work) if work else None,
        fields={
            name: formula_unsafe((record.get(column) or "").strip())
            for name, column in mapping.items()
        },
    )


def _time(value: str) -> datetime | None:
    """MTurk writes "Tue Jul 21 10:31:12 PDT 2020"; ISO 8601 is taken too."""
    value = value.strip()
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    except ValueError:
        pass
    parts = value.split()
    if len(parts) == 6 and parts[4] in _ZONES:
        try:
            naive = datetime.strptime(" ".join(parts[:4] + parts[5:]), "%a %b %d %H:%M:%S %Y")
        except ValueError:
            return None
        return naive.replace(tzinfo=timezone(timedelta(hours=_ZONES[parts[4]])))
    return None
