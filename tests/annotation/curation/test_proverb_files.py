"""Reading proverb files: good rows keep their line numbers, bad lines are named."""

import pytest

from annotation.curation.proverb_files import ProverbFileError, parse_proverb_file


def test_text_file_one_proverb_a_line_blank_lines_ignored():
    rows, errors = parse_proverb_file(b"Time is money\n\n  Haste makes waste  \n")
    assert [(row.line, row.text) for row in rows] == [
        (1, "Time is money"),
        (3, "Haste makes waste"),
    ]
    assert errors == []


def test_empty_file_is_refused():
    with pytest.raises(ProverbFileError, match="empty"):
        parse_proverb_file(b"  \n\n")


def test_binary_file_is_refused():
    with pytest.raises(ProverbFileError, match="binary"):
        parse_proverb_file(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")


def test_invalid_utf8_line_reported_with_its_number_and_rest_kept():
    rows, errors = parse_proverb_file(b"Time is money\nCaf\xe9 society\nHaste makes waste\n")
    assert [row.text for row in rows] == ["Time is money", "Haste makes waste"]
    assert [(error.line, "not valid UTF-8" in error.message) for error in errors] == [(2, True)]


def test_line_over_limit_reported():
    long_line = "word " * 70
    rows, errors = parse_proverb_file(f"Short one\n{long_line}\n".encode(), max_length=300)
    assert [row.text for row in rows] == ["Short one"]
    assert errors[0].line == 2
    assert "at most 300" in errors[0].message


def test_csv_with_all_columns():
    content = b'text,source,meaning\n"When in Rome, do as the Romans do",wiki,Follow local custom\n'
    rows, errors = parse_proverb_file(content, filename="list.csv")
    assert errors == []
    assert rows[0].text == "When in Rome, do as the Romans do"
    assert (rows[0].source, rows[0].meaning, rows[0].line) == ("wiki", "Follow local custom", 2)


def test_csv_header_without_text_column_is_refused_naming_line_1():
    with pytest.raises(ProverbFileError, match=r"Line 1: .*`text` column"):
        parse_proverb_file(b"proverb,source\nTime is money,wiki\n", filename="list.csv")


def test_csv_row_with_missing_column_reported():
    content = b"text,source,meaning\nTime is money,wiki,Time has value\nHaste makes waste,wiki\n"
    rows, errors = parse_proverb_file(content, filename="list.csv")
    assert [row.text for row in rows] == ["Time is money"]
    assert errors[0].line == 3
    assert "2 field(s)" in errors[0].message


def test_csv_detected_by_header_without_extension():
    rows, _ = parse_proverb_file(b"text,meaning\nTime is money,Time has value\n")
    assert rows[0].meaning == "Time has value"


def test_utf8_bom_is_ignored():
    rows, _ = parse_proverb_file("\ufeffTime is money\n".encode())
    assert rows[0].text == "Time is money"
