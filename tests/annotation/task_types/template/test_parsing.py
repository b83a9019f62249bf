"""Reading a HIT template and its CSV: both of MTurk's shapes, the fields collected, values
escaped for where they stand, and the refusals, each with its reason."""

import html
import json
import re

import pytest

from annotation.task_types.template.parsing import (
    MAX_ROWS,
    TemplateError,
    coverage_check,
    csv_read,
    render,
    template_read,
    visible_text,
)
from tests.annotation.task_types.template.helpers import LAYOUT, PAGE, PAIRS, REVIEWS

HOSTILE = "</script><img src=x onerror=alert(1)>\"'`${x}"


def rendered(source: str, values: dict) -> str:
    return render(template_read(source).segments, values, runtime="<!--runtime-->")


def test_the_requester_layout_is_placed_in_mturks_form_with_a_submit_button():
    document = rendered('<p>${text}</p><input name="answer">', {"text": "Hello"})
    assert '<form name="mturk_form" method="post" id="mturk_form">' in document
    assert 'name="assignmentId"' in document
    assert document.count('type="submit"') == 1
    assert document.index("<!--runtime-->") < document.index("<p>Hello</p>")


def test_a_layout_with_its_own_submit_button_gets_no_second_one():
    document = rendered('<input name="a"><button class="btn">Send</button>', {})
    assert 'id="submitButton"' not in document


def test_a_whole_page_keeps_its_form_and_loses_mturks_helper_for_the_runtime():
    info = template_read(PAGE)
    document = render(info.segments, {"meta": "{}"}, runtime="<!--runtime-->")
    assert info.shape == "page"
    assert "externalHIT_v1.js" not in document
    assert document.count("<form") == 1
    assert document.index("<!--runtime-->") < document.index("bootstrap.min.css")


def test_fields_are_read_by_kind_and_prechecked_radio_groups_named():
    info = template_read(LAYOUT)
    kinds = {name: found.kind for name, found in info.fields.items()}
    assert kinds == {
        "sentiment": "radio",
        "on_topic": "radio",
        "topic": "select",
        "aspects": "checkbox",
        "explanation": "textarea",
        "read_seconds": "hidden",
    }
    assert info.fields["aspects"].options == ["price", "quality", "delivery"]
    assert info.prechecked() == {"sentiment": "neutral"}
    assert info.names(("text", "textarea")) == ["explanation"]
    assert "assignmentId" not in template_read(PAGE).fields  # MTurk's, not an answer


def test_values_are_escaped_as_html_in_text_and_attributes():
    document = rendered('<p title="${v}">${v}</p><input name="a">', {"v": HOSTILE})
    assert "<img" not in document
    assert 'title="&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;&quot;&#x27;`${x}"' in document


def test_values_in_a_script_stay_inside_their_string_or_json_value():
    source = (
        '<input name="a"><script>var s = "${v}"; var t = \'${v}\'; var u = `${v}`;'
        " var data = ${json}; var raw = ${v};</script>"
    )
    document = rendered(source, {"v": HOSTILE, "json": '[1, "</script>"]'})
    script = re.search(r"<script>(.*)</script>", document, re.S).group(1)
    assert "</script" not in script and "<img" not in script
    assert 'var data = [1, "\\u003c/script\\u003e"];' in script
    strings = re.findall(r"var [stu] = (.)(.*?)\1;", script)
    for quote, body in strings:
        assert quote not in body.replace("\\" + quote, "")  # no quote ends the string early
    assert json.loads(re.search(r"var raw = (.*);", script).group(1)) == HOSTILE


def test_values_in_an_event_handler_are_javascript_inside_the_attribute():
    source = """<input name="a"><button onclick="f('${v}', ${v})">Go</button>"""
    handler = re.search(r'onclick="([^"]*)"', rendered(source, {"v": HOSTILE})).group(1)
    code = html.unescape(handler)  # what the browser hands to JavaScript
    quoted, bare = re.fullmatch(r"f\('((?:[^'\\]|\\.)*)', (\"(?:[^\"\\]|\\.)*\")\)", code).groups()
    assert json.loads(f'"{quoted}"') == HOSTILE and json.loads(bare) == HOSTILE


def test_a_markup_script_type_is_markup():
    document = rendered('<input name="a"><script type="text/template">${v}</script>', {"v": "<b>"})
    assert '<script type="text/template">&lt;b&gt;</script>' in document


def test_a_template_without_a_form_field_is_refused():
    with pytest.raises(TemplateError, match="no form field"):
        template_read("<p>Just text ${x}</p><button>Submit</button>")


def test_crowd_html_elements_are_refused_by_name_with_the_guide():
    source = '<crowd-form><crowd-classifier name="s" categories="[1,2]"></crowd-classifier>'
    with pytest.raises(TemplateError) as refusal:
        template_read(source + "</crowd-form>")
    assert "<crowd-classifier>, <crowd-form>" in str(refusal.value)
    assert "docs/templates.md" in str(refusal.value)


@pytest.mark.parametrize(
    "action",
    [
        "https://www.mturk.com/mturk/externalSubmit",
        "https://workersandbox.mturk.com/mturk/externalSubmit",
        "",
    ],
)
def test_a_form_posting_to_mturk_is_taken(action):
    assert (
        template_read(f'<html><form action="{action}"><input name="a"></form></html>').shape
        == "page"
    )


def test_a_form_posting_elsewhere_is_refused():
    with pytest.raises(TemplateError, match=r"posts to https://survey\.example\.org/collect"):
        template_read('<form action="https://survey.example.org/collect"><input name="a"></form>')


def test_csv_encodings_are_detected_and_said():
    assert csv_read("a,b\nx,é\n".encode()).encoding == "UTF-8"
    with_bom = csv_read(PAIRS)
    assert with_bom.encoding == "UTF-8 with BOM" and with_bom.header[0] == "pair_id"
    windows = csv_read(REVIEWS)
    assert windows.encoding == "Windows-1252"
    assert windows.rows[2]["review_text"] == "It’s a book. It has pages."


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("a,b\nx,y\n".encode("utf-16"), "UTF-16"),
        (b"a,b\nx,\x81\x8d\n", "neither UTF-8 nor Windows-1252"),
        (b"a,b,a\n1,2,3\n", "names a more than once"),
        (b"a,,c\n1,2,3\n", "column 2 has no name"),
        (b"a,b\n1,2,3\n", "Line 2 of the CSV has 3 cells"),
        (b"a,b\n\n", "no rows"),
        (b"", "empty"),
    ],
)
def test_a_csv_parable_cannot_read_is_refused_with_the_reason(content, reason):
    with pytest.raises(TemplateError, match=reason):
        csv_read(content)


def test_irregular_lines_are_read_as_spreadsheets_write_them():
    table = csv_read(REVIEWS)
    assert len(table.rows) == 5  # the blank line is no row; the repeated review is its own
    assert table.rows[2]["annotator_note"] == ""  # a short line: the missing cell is empty
    assert table.rows[0] == table.rows[4] | {"annotator_note": ""}
    assert csv_read(b"a,b\n1,2,,\n").rows == [{"a": "1", "b": "2"}]  # empty trailing cells


def test_a_csv_over_the_limits_is_refused():
    with pytest.raises(TemplateError, match="more than 50,000 rows"):
        csv_read(b"a\n" + b"x\n" * (MAX_ROWS + 1))
    with pytest.raises(TemplateError, match="larger than 20 MB"):
        csv_read(b"a\n" + b"x" * (20 * 1024 * 1024))


def test_a_variable_the_csv_lacks_is_refused_naming_it():
    with pytest.raises(TemplateError, match=r"uses \$\{premise\}, which the CSV has no column"):
        coverage_check(template_read(PAGE), csv_read(b"pair_id,hypothesis,meta\np,h,{}\n"))


def test_the_visible_text_leaves_out_scripts_and_styles():
    assert visible_text("<title>T</title><p>One</p><script>var x</script><b>two</b>") == "One two"
