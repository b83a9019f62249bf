"""What the text media types of the API's file parts mean, and the batch settings' rules
across keys, for schemathesis.

The proverb import's schema gives its `file` part the media types text/plain and text/csv
(UTF-8 text: one proverb a line, or a CSV with a `text` column). schemathesis knows no
content for a media type by itself and fills a file part with any bytes (a PNG, say),
which the import refuses as binary. Registering these strategies makes the cases it
calls valid carry files of those types: UTF-8 lines, at least one not blank, and CSV
files with a header naming `text`. Lines the import may still report (too long, a
duplicate, a broken CSV row) are reported per line in a 201, as in real files.

A gold rating answer gives each criterion once, each range with min <= max, which no
JSON Schema states either: the API refuses either with a 400, and a hook keeps such
answers out of generated gold bodies.

A batch's settings have three rules that compare values, which no JSON Schema states
(annotation/task_parts/overlap_rules.py and the continuation type's settings schema say so):
a write or continue batch's min_words <= max_words, a qualification's
min_correct <= its pairs, and a rate batch's criteria keys are distinct. The API refuses
a body breaking them with a 400 naming the rule; a `filter_body` hook keeps schemathesis
from generating such bodies for the batch create body (/api/batches/,
/api/chained-batches/), so that every check, positive data accepted included, runs on
every operation.

A HIT template upload's parts are text/html (a template whose variable is the CSV's
`text` column, registered here) and text/csv (the same CSVs).

The import's `source` part is text in any case, so its schema names no JSON type, and
a generator would fill it with any JSON value; a `filter_body` hook keeps it to strings, the
only values whose maxLength a schema can state (an object's JSON text may be longer).

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
    """A CSV with a header naming `text` (source and meaning optional) and rows under it
    (at least one, no cell blank: a HIT template's CSV without a row is refused)."""
    columns = draw(st.permutations(["text", "source", "meaning"]))
    columns = [name for name in columns if name == "text" or draw(st.booleans())]
    rows = draw(st.lists(st.lists(_LINE, min_size=len(columns), max_size=len(columns)), min_size=1))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


@st.composite
def _template_file(draw) -> bytes:
    """A HIT template whose one variable is the CSV's `text` column, with a field to answer
    in (plain HTML: a template built on crowd-html-elements is refused)."""
    field = draw(
        st.sampled_from(
            [
                '<textarea name="answer"></textarea>',
                '<input type="text" name="answer">',
                '<label><input type="radio" name="sense" value="yes"> Yes</label>'
                '<label><input type="radio" name="sense" value="no"> No</label>',
            ]
        )
    )
    return f"<p>${{text}}</p>{field}".encode()


schemathesis.openapi.media_type("text/plain", _text_file())
schemathesis.openapi.media_type("text/csv", _csv_file())
schemathesis.openapi.media_type("text/html", _template_file())


# The two URLs that create a batch take the same body.
@schemathesis.hook("filter_body").apply_to(
    path=["/api/batches/", "/api/chained-batches/"], method="POST"
)
def settings_keep_their_rules(context, body) -> bool:
    """False for a body whose settings break a rule across keys (see the docstring):
    min_words and max_words are given together, min_words first; min_correct is at most
    the qualification's pairs; no two criteria share a key."""
    settings = body.get("settings") if isinstance(body, dict) else None
    if not isinstance(settings, dict):
        return True
    rules = settings.get("rules")
    if isinstance(rules, dict) and {"min_words", "max_words"} & set(rules):
        low, high = rules.get("min_words"), rules.get("max_words")
        if not (type(low) is int and type(high) is int and low <= high):
            return False
    criteria = settings.get("criteria")
    if isinstance(criteria, list):
        keys = [c.get("key") for c in criteria if isinstance(c, dict) and "key" in c]
        if len({repr(key) for key in keys}) < len(keys):
            return False
    qualification = settings.get("qualification")
    if isinstance(qualification, dict) and "min_correct" in qualification:
        pairs, needed = qualification.get("pairs") or [], qualification["min_correct"]
        if isinstance(pairs, list) and type(needed) is int and needed > len(pairs):
            return False
    return True


@schemathesis.hook("filter_body").apply_to(path="/api/proverbs/import/", method="POST")
def source_part_is_text(context, body) -> bool:
    """False for an import whose `source` part is generated as something other than a
    string (see the docstring). A multipart body whose file part has a registered media
    type reaches the hook wrapped, with its parts under `.body`."""
    parts = getattr(body, "body", body)
    return not isinstance(parts, dict) or isinstance(parts.get("source", ""), str)


@schemathesis.hook("filter_body").apply_to(path="/api/chained-batches/{id}/gold/", method="POST")
def gold_ranges_are_ordered_and_once_each(context, body) -> bool:
    """False for a gold answer with a range whose min is above its max, or a criterion
    given twice (see the docstring)."""
    answer = body.get("answer") if isinstance(body, dict) else None
    if not isinstance(answer, list):
        return True
    ranges = [entry for entry in answer if isinstance(entry, dict)]
    criteria = [repr(entry.get("criterion")) for entry in ranges]
    if len(set(criteria)) < len(criteria):
        return False
    return all(
        type(entry.get("min", 1)) is not int
        or type(entry.get("max", 5)) is not int
        or entry.get("min", 1) <= entry.get("max", 5)
        for entry in ranges
    )
