"""The figurative narratives benchmark's JSONL release layout, read and written (no database).

One JSON object a line: ``narrative`` and either ``idiom`` + ``meaning`` or ``simile`` +
``property``, and optionally ``option1``, ``option2``, ``correctanswer`` ("option1" or
"option2"). An idiom is wrapped in ``<b>...</b>`` in its narrative: that is its highlight
span; a simile's is its first case-folded occurrence. Irregular lines (an idiom marked twice
or not at all, a stray tag, a ``property`` of ``false``) are imported with a note and written
back byte for byte. A file with an unusable line is refused, every such line by number.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from common.checked_input import InputError, json_loads_checked

KINDS = {"idiom": ("idiom", "meaning"), "simile": ("simile", "property")}
OPTION_FIELDS = ("option1", "option2", "correctanswer")
# The key order of the released files, which the export writes.
KEY_ORDER = {
    "idiom": ("narrative", "meaning", "idiom", *OPTION_FIELDS),
    "simile": ("narrative", *OPTION_FIELDS, "simile", "property"),
}
EXPRESSION_MAX_LENGTH = 300  # FigurativeNarrative.expression
_TAG = re.compile(r"</?b>")


class FigurativeFileError(ValueError):
    """The file cannot be imported; nothing from it was written. `errors`: (line, message)."""

    def __init__(self, errors: list[tuple[int, str]]) -> None:
        self.errors = errors
        first = f"Line {errors[0][0]}: {errors[0][1]}" if errors else "The file is empty."
        more = f" (and {len(errors) - 1} more bad line(s))" if len(errors) > 1 else ""
        super().__init__(first + more)


@dataclass(frozen=True)
class FigurativeLine:
    """One line: the narrative without markup, its expression's span, maybe an option pair
    (`answer`: the raw correctanswer), and the narrative's fields as published where
    `figurative_line` would not rebuild them (`source_values`)."""

    line: int
    kind: str
    text: str
    expression: str
    span: tuple[int, int] | None
    meaning: str
    options: tuple[str, str, int] | None  # option1, option2, correct (1 or 2)
    answer: str = ""
    source_values: dict | None = None
    notes: tuple[str, ...] = ()
    raw: str = ""  # the line as published, without its line ending
    fields: tuple[str, ...] = ()  # the line's keys, in its order


def _markup(narrative: str) -> tuple[str, list[tuple[int, int]], int]:
    """The text without <b>/</b>, the [start, end) of each <b>...</b> in it, stray tags."""
    parts, marks, stray = [], [], 0
    position = length = 0
    opened = None
    for tag in _TAG.finditer(narrative):
        piece = narrative[position : tag.start()]
        parts.append(piece)
        length += len(piece)
        position = tag.end()
        if tag.group() == "<b>":
            stray += opened is not None
            opened = length
        elif opened is None:
            stray += 1
        else:
            marks.append((opened, length))
            opened = None
    stray += opened is not None
    parts.append(narrative[position:])
    return "".join(parts), marks, stray


def _first_occurrence(text: str, expression: str) -> tuple[int, int] | None:
    found = text.casefold().find(expression.casefold()) if expression else -1
    if found < 0 or len(text.casefold()) != len(text):
        return None
    return found, found + len(expression)


def narrative_span(
    narrative: str, *, kind: str, expression: str, notes: list[str] | None = None
) -> tuple[str, tuple | None]:
    """The text without <b> markup and the expression's [start, end) in it, or None: of two
    or more <b>...</b> the one holding the idiom (case-folded), else the first; with none, its
    first occurrence. What was irregular is appended to `notes`."""
    notes = [] if notes is None else notes
    if kind != "idiom":
        span = _first_occurrence(narrative, expression)
        if span is None:
            notes.append(f"the {kind} does not occur in the narrative as written: no highlight")
        return narrative, span
    text, marks, stray = _markup(narrative)
    if stray:
        notes.append(f"{stray} unmatched <b> or </b> left out of the text")
    empty = [(start, end) for start, end in marks if not text[start:end].strip()]
    marks = [mark for mark in marks if mark not in empty]
    if empty:
        notes.append(f"{len(empty)} <b></b> around no word left out")
    if len(marks) == 1:
        return text, marks[0]
    if not marks:
        span = _first_occurrence(text, expression)
        if span is None:
            notes.append("no <b>...</b> and the idiom does not occur as written: no highlight")
        else:
            notes.append(
                "no <b>...</b>: the expression is the idiom's first occurrence in the text "
                f"(characters {span[0]}-{span[1]})"
            )
        return text, span
    matching = [
        number
        for number, (start, end) in enumerate(marks)
        if text[start:end].casefold() == expression.casefold()
    ]
    chosen = matching[0] if matching else 0
    how = "the one that reads as the idiom" if matching else "the first"
    notes.append(
        f"the idiom is marked {len(marks)} times; occurrence {chosen + 1} ({how}, characters "
        f"{marks[chosen][0]}-{marks[chosen][1]}) is the expression"
    )
    return text, marks[chosen]


def _text_field(record: dict, name: str) -> str:
    value = record.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f'"{name}" is missing or not text')
    return value


def _meaning(record: dict, name: str, notes: list[str]) -> str:
    value = record.get(name)
    if isinstance(value, str):
        return value.strip()
    if value is None or value is False:
        shown = "missing" if name not in record else json.dumps(value)
        notes.append(f'"{name}" is {shown}: stored with no {name}')
        return ""
    raise ValueError(f'"{name}" is not text')


def _published(
    *, kind: str, text: str, expression: str, span: tuple[int, int] | None, meaning: str
) -> dict:
    """The narrative-side fields `figurative_line` writes when nothing was kept as published."""
    expression_field, meaning_field = KINDS[kind]
    narrative = text
    if kind == "idiom" and span is not None:
        start, end = span
        narrative = f"{text[:start]}<b>{text[start:end]}</b>{text[end:]}"
    return {"narrative": narrative, expression_field: expression, meaning_field: meaning}


def _parse_line(number: int, raw: str, kind: str) -> FigurativeLine:
    try:
        # The same checks as every other import: no NUL, lone surrogates, deep nesting.
        record = json_loads_checked(raw, what="The line")
    except InputError as error:
        raise ValueError(str(error).replace("The line is not JSON", "not valid JSON", 1)) from None
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    expression_field, meaning_field = KINDS[kind]
    known = {"narrative", expression_field, meaning_field, *OPTION_FIELDS}
    unknown = sorted(set(record) - known)
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(unknown)} for a {kind} file")
    notes: list[str] = []
    narrative = _text_field(record, "narrative")
    expression = _text_field(record, expression_field).strip()
    meaning = _meaning(record, meaning_field, notes)
    if len(expression) > EXPRESSION_MAX_LENGTH:
        raise ValueError(f'"{expression_field}" is longer than {EXPRESSION_MAX_LENGTH} characters')
    text, span = narrative_span(narrative, kind=kind, expression=expression, notes=notes)
    if not text.strip():
        raise ValueError("the narrative is empty without its markup")
    options, answer = None, ""
    present = [name for name in OPTION_FIELDS if name in record]
    if present:
        if len(present) != len(OPTION_FIELDS):
            raise ValueError("option1, option2 and correctanswer go together")
        option1 = _text_field(record, "option1")
        option2 = _text_field(record, "option2")
        if option1 == option2:
            raise ValueError("option1 and option2 are the same")
        answer = record["correctanswer"]
        if answer not in ("option1", "option2"):
            raise ValueError('"correctanswer" must be "option1" or "option2"')
        options = (option1, option2, 1 if answer == "option1" else 2)
    as_published = {
        name: record[name]
        for name in ("narrative", expression_field, meaning_field)
        if name in record
    }
    rebuilt = _published(kind=kind, text=text, expression=expression, span=span, meaning=meaning)
    return FigurativeLine(
        line=number,
        kind=kind,
        text=text,
        expression=expression,
        span=span,
        meaning=meaning,
        options=options,
        answer=answer,
        source_values=None if as_published == rebuilt else as_published,
        notes=tuple(notes),
        raw=raw,
        fields=tuple(record),
    )


def jsonl_layout(content: bytes) -> dict:
    """How a JSONL file ends its lines: {"newline", "final_newline", "bom"} (the lines
    themselves are kept as published, one by one)."""
    text = content.decode("utf-8", errors="replace")
    return {
        "newline": "\r\n" if "\r\n" in text else "\n",
        "final_newline": text.endswith("\n"),
        "bom": text.startswith("\ufeff"),
    }


def jsonl_text(lines: list[str], layout: dict | None) -> str:
    """Lines joined as the file `layout` describes (jsonl_layout); without one, each line
    ends with a newline."""
    if layout is None:
        return "".join(f"{line}\n" for line in lines)
    text = layout["newline"].join(lines)
    if lines and layout["final_newline"]:
        text += layout["newline"]
    return ("\ufeff" if layout["bom"] else "") + text


def parse_figurative_file(content: bytes, *, kind: str) -> list[FigurativeLine]:
    """Every line of the file; raises FigurativeFileError listing each bad line by number."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}.")
    try:
        decoded = content.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise FigurativeFileError([(1, f"the file is not UTF-8 ({error.reason})")]) from None
    lines, errors = [], []
    # Lines end at a newline only: JSON text may hold U+2028 and other characters that
    # str.splitlines would end a line at.
    for number, raw in enumerate(decoded.split("\n"), start=1):
        raw = raw.removesuffix("\r")
        if not raw.strip():
            continue
        try:
            lines.append(_parse_line(number, raw, kind))
        except ValueError as error:
            errors.append((number, str(error)))
    if errors:
        raise FigurativeFileError(errors)
    if not lines:
        raise FigurativeFileError([(1, "the file has no lines")])
    return lines


def figurative_line(
    *,
    kind: str,
    text: str,
    expression: str,
    span: tuple[int, int] | None,
    meaning: str,
    options: tuple[str, str, int | None] | None = None,
    answer: str = "",
    source_values: dict | None = None,
) -> str:
    """One line of the release layout, keys in the release's order: the narrative's fields
    as published (`source_values`) or rebuilt, correctanswer the option's label or, for an
    unlabelled pair, `answer` as published."""
    values = (
        source_values
        if source_values is not None
        else _published(kind=kind, text=text, expression=expression, span=span, meaning=meaning)
    )
    record = dict(values)
    if options is not None:
        option1, option2, correct = options
        record.update(
            option1=option1,
            option2=option2,
            correctanswer=answer if correct is None else f"option{correct}",
        )
    ordered = {name: record[name] for name in KEY_ORDER[kind] if name in record}
    return json.dumps(ordered, ensure_ascii=False)
