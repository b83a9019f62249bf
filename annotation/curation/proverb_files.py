"""Reading proverb lists: a plain text file (one a line) or a CSV (text, source, meaning).

Pure parsing, no database: every good row comes back with its line number and
every bad line with a message naming it; whole-file problems raise.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass

CSV_COLUMNS = ("text", "source", "meaning")


class ProverbFileError(ValueError):
    """The file as a whole cannot be read; nothing from it should be written."""


@dataclass(frozen=True)
class ProverbRow:
    line: int
    text: str
    source: str = ""
    meaning: str = ""


@dataclass(frozen=True)
class LineError:
    line: int
    message: str

    def as_dict(self) -> dict:
        return {"line": self.line, "message": self.message}


def line_count(content: bytes) -> int:
    """Lines in a file, a last line without its newline counted."""
    return content.count(b"\n") + 1 - content.endswith(b"\n") if content else 0


def _looks_binary(content: bytes) -> bool:
    if b"\x00" in content:
        return True
    sample = content[:4096]
    control = sum(1 for byte in sample if byte < 32 and byte not in (9, 10, 13))
    return control > len(sample) * 0.1


def _decode_lines(content: bytes) -> tuple[list[tuple[int, str]], list[LineError]]:
    if content.startswith(b"\xef\xbb\xbf"):
        content = content[3:]
    lines, errors = [], []
    for number, raw in enumerate(content.splitlines(), start=1):
        try:
            lines.append((number, raw.decode("utf-8")))
        except UnicodeDecodeError as error:
            errors.append(
                LineError(number, f"Line {number} is not valid UTF-8 (byte {error.start + 1}).")
            )
    return lines, errors


def _is_csv(filename: str, lines: list[tuple[int, str]]) -> bool:
    if filename.lower().endswith(".csv"):
        return True
    first = next((text for _, text in lines if text.strip()), "")
    return first.strip().lower().replace(" ", "").startswith("text,")


def parse_proverb_file(
    content: bytes, *, filename: str = "", max_length: int = 300
) -> tuple[list[ProverbRow], list[LineError]]:
    """Split a proverb file into good rows and line errors; ProverbFileError for an empty or
    binary file, or a CSV whose header lacks the `text` column."""
    if not content.strip():
        raise ProverbFileError("The file is empty: there are no proverbs to import.")
    if _looks_binary(content):
        raise ProverbFileError(
            "The file looks binary, not text: upload a UTF-8 text file (one proverb a line) "
            "or a CSV with columns text, source, meaning."
        )
    lines, errors = _decode_lines(content)
    rows = _parse_csv(lines, errors) if _is_csv(filename, lines) else _parse_text(lines)
    good = []
    for row in rows:
        if len(row.text) > max_length:
            errors.append(
                LineError(
                    row.line,
                    f"Line {row.line} is {len(row.text)} characters long; "
                    f"a proverb may have at most {max_length}.",
                )
            )
        else:
            good.append(row)
    errors.sort(key=lambda error: error.line)
    return good, errors


def _parse_text(lines: list[tuple[int, str]]) -> list[ProverbRow]:
    return [ProverbRow(number, text.strip()) for number, text in lines if text.strip()]


def _parse_csv(lines: list[tuple[int, str]], errors: list[LineError]) -> list[ProverbRow]:
    nonblank = [(number, text) for number, text in lines if text.strip()]
    header_line, header_text = nonblank[0]
    header = [name.strip().lower() for name in next(csv.reader([header_text]))]
    if "text" not in header:
        raise ProverbFileError(
            f"Line {header_line}: the CSV header must name a `text` column "
            f"(columns: text, source, meaning); found {', '.join(header) or 'nothing'}."
        )
    unknown = [name for name in header if name not in CSV_COLUMNS]
    if unknown:
        raise ProverbFileError(
            f"Line {header_line}: unknown CSV column(s) {', '.join(unknown)}; "
            f"expected text, source, meaning."
        )
    rows = []
    for number, text in nonblank[1:]:
        try:
            fields = next(csv.reader([text], strict=True))
        except csv.Error as error:
            errors.append(LineError(number, f"Line {number} is not valid CSV: {error}."))
            continue
        if len(fields) != len(header):
            errors.append(
                LineError(
                    number,
                    f"Line {number} has {len(fields)} field(s); the header has {len(header)} "
                    f"({', '.join(header)}).",
                )
            )
            continue
        record = dict(zip(header, (field.strip() for field in fields), strict=True))
        if not record["text"]:
            errors.append(LineError(number, f"Line {number} has an empty `text` field."))
            continue
        rows.append(
            ProverbRow(number, record["text"], record.get("source", ""), record.get("meaning", ""))
        )
    return rows
