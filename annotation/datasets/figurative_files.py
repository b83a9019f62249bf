"""The figurative narratives benchmark's JSONL release layout, read and written (no database).

One JSON object a line: ``narrative`` and either ``idiom`` + ``meaning`` or ``simile`` +
``property``, and optionally ``option1``, ``option2``, ``correctanswer`` ("option1" or
"option2"). In idiom narratives the idiom is wrapped in ``<b>...</b>``; it becomes a
highlight span (offsets into the text without the markup). A simile's span is where the
simile first occurs in the narrative (case-folded), if it does.

`parse_figurative_file` lists every bad line with its number and refuses the file when
there is one; `figurative_line` writes a record back in the same layout, so a file read
and written again gives the same lines.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from common.checked_input import InputError, json_loads_checked

KINDS = {"idiom": ("idiom", "meaning"), "simile": ("simile", "property")}
OPTION_FIELDS = ("option1", "option2", "correctanswer")
EXPRESSION_MAX_LENGTH = 300  # FigurativeNarrative.expression
_BOLD = re.compile(r"<b>(.*?)</b>", re.DOTALL)


class FigurativeFileError(ValueError):
    """The file cannot be imported; nothing from it was written. `errors`: (line, message)."""

    def __init__(self, errors: list[tuple[int, str]]) -> None:
        self.errors = errors
        first = f"Line {errors[0][0]}: {errors[0][1]}" if errors else "The file is empty."
        more = f" (and {len(errors) - 1} more bad line(s))" if len(errors) > 1 else ""
        super().__init__(first + more)


@dataclass(frozen=True)
class FigurativeLine:
    """One line: the narrative without markup, its expression's span, and maybe an option pair."""

    line: int
    kind: str
    text: str
    expression: str
    span: tuple[int, int] | None
    meaning: str
    options: tuple[str, str, int] | None  # option1, option2, correct (1 or 2)


def narrative_span(narrative: str, *, kind: str, expression: str) -> tuple[str, tuple | None]:
    """The text without <b> markup and the expression's [start, end) offsets in it.

    Idioms must carry exactly one <b>...</b>; raises ValueError otherwise. A simile's
    span is its first case-folded occurrence, or None when it does not occur.
    """
    if kind == "idiom":
        marks = list(_BOLD.finditer(narrative))
        if len(marks) != 1:
            raise ValueError(
                f"an idiom narrative needs its idiom in one <b>...</b>, found {len(marks)}"
            )
        mark = marks[0]
        if not mark.group(1).strip():
            raise ValueError("the <b>...</b> around the idiom is empty")
        text = narrative[: mark.start()] + mark.group(1) + narrative[mark.end() :]
        if "<b>" in text or "</b>" in text:
            raise ValueError("the narrative has an unmatched <b> or </b>")
        start = mark.start()
        return text, (start, start + len(mark.group(1)))
    found = narrative.casefold().find(expression.casefold()) if expression else -1
    if found < 0 or len(narrative.casefold()) != len(narrative):
        return narrative, None
    return narrative, (found, found + len(expression))


def _text_field(record: dict, name: str) -> str:
    value = record.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f'"{name}" is missing or not text')
    return value


def _parse_line(number: int, raw: str, kind: str) -> FigurativeLine:
    try:
        # The same checks as every other import: no NUL, lone surrogates, deep nesting.
        record = json_loads_checked(raw, what="The line")
    except InputError as error:
        raise ValueError(str(error).replace("The line is not JSON", "not valid JSON", 1)) from None
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    expression_field, meaning_field = KINDS[kind]
    narrative = _text_field(record, "narrative")
    expression = _text_field(record, expression_field).strip()
    meaning = _text_field(record, meaning_field).strip()
    if len(expression) > EXPRESSION_MAX_LENGTH:
        raise ValueError(f'"{expression_field}" is longer than {EXPRESSION_MAX_LENGTH} characters')
    known = {"narrative", expression_field, meaning_field, *OPTION_FIELDS}
    unknown = sorted(set(record) - known)
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(unknown)} for a {kind} file")
    text, span = narrative_span(narrative, kind=kind, expression=expression)
    options = None
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
    return FigurativeLine(
        line=number,
        kind=kind,
        text=text,
        expression=expression,
        span=span,
        meaning=meaning,
        options=options,
    )


def parse_figurative_file(content: bytes, *, kind: str) -> list[FigurativeLine]:
    """Every line of the file; raises FigurativeFileError listing each bad line by number."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}.")
    try:
        decoded = content.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise FigurativeFileError([(1, f"the file is not UTF-8 ({error.reason})")]) from None
    lines, errors = [], []
    for number, raw in enumerate(decoded.splitlines(), start=1):
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
    options: tuple[str, str, int] | None = None,
) -> str:
    """One line of the release layout (idioms get their <b>...</b> back from the span)."""
    expression_field, meaning_field = KINDS[kind]
    narrative = text
    if kind == "idiom" and span is not None:
        start, end = span
        narrative = f"{text[:start]}<b>{text[start:end]}</b>{text[end:]}"
    record = {"narrative": narrative, expression_field: expression, meaning_field: meaning}
    if options is not None:
        option1, option2, correct = options
        record.update(
            option1=option1, option2=option2, correctanswer="option1" if correct == 1 else "option2"
        )
    return json.dumps(record, ensure_ascii=False)
