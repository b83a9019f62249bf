"""What the text media types of the API's file parts mean, for schemathesis.

The proverb import's schema gives its `file` part the media types text/plain and text/csv
(UTF-8 text: one proverb a line, or a CSV with a `text` column). schemathesis knows no
content for a media type by itself and fills a file part with any bytes (a PNG, say),
which the import refuses as binary. Registering these strategies makes the cases it
calls valid carry files of those types: UTF-8 lines, at least one not blank, and CSV
files with a header naming `text`. Lines the import may still report (too long, a
duplicate, a broken CSV row) are reported per line in a 201, as in real files.

The fuzzing test imports this module; bench/api_fuzz/run.py hands it to `st run` as its
hooks module (SCHEMATHESIS_HOOKS).
"""

from __future__ import annotations

import csv
import io
import string

import schemathesis
from hypothesis import strategies as st

# Text of a line: any printable character but the line breaks bytes.splitlines() cuts at
# and the other controls (a file with many of them is binary by the import's rule).
_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), max_size=60)
# A line that is not blank: it starts with a letter.
_LINE = st.builds(lambda first, rest: first + rest, st.sampled_from(string.ascii_letters), _TEXT)


@st.composite
def _text_file(draw) -> bytes:
    """One proverb a line, some lines blank; the first that is not does not read as a
    CSV header."""
    first = draw(_LINE.filter(_not_csv_header))
    rest = draw(st.lists(st.one_of(_LINE, st.just("")), max_size=12))
    lines = [""] * draw(st.integers(0, 2)) + [first, *rest]
    return "\n".join(lines).encode("utf-8")


def _not_csv_header(line: str) -> bool:
    return not line.strip().lower().replace(" ", "").startswith("text,")


@st.composite
def _csv_file(draw) -> bytes:
    """A CSV with a header naming `text` (source and meaning optional) and rows under it."""
    columns = draw(st.permutations(["text", "source", "meaning"]))
    columns = [name for name in columns if name == "text" or draw(st.booleans())]
    rows = draw(st.lists(st.lists(_TEXT, min_size=len(columns), max_size=len(columns))))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


schemathesis.openapi.media_type("text/plain", _text_file())
schemathesis.openapi.media_type("text/csv", _csv_file())
