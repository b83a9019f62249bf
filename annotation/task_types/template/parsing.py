"""A researcher's MTurk HIT template and its input CSV: read, checked, and split for rendering.

Pure Python (no Django). A template comes in either shape MTurk took:

* the requester UI's layout, an HTML fragment that MTurk (and Turkle, docs/TEMPLATE-GUIDE
  in hltcoe/turkle) places inside `<form name="mturk_form">`, adding a Submit button when
  the fragment has none;
* a whole HTMLQuestion/ExternalQuestion page with its own `<form name="mturk_form">` posting
  to MTurk's externalSubmit, a hidden `assignmentId` and MTurk's helper
  `externalHIT_v1.js` ("Defining an HTML form", docs.aws.amazon.com/AWSMechTurk/latest/
  AWSMechanicalTurkRequester/mturk-hits-defining-questions-html-define.html). The helper's
  script tag is taken out: Parable's frame runtime supplies what it did.

`${name}` variables are replaced with the row's CSV values, escaped for where they stand
(`render`): as HTML in text and attributes; inside a script, as a JavaScript string's
content within quotes, and as a JSON value where the variable stands bare (Turkle's
"Serialized Data": `var a = ${json_array};`), with `<`, `>` and `&` written as \\u escapes
so that a value can never close the script.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
from dataclasses import dataclass, field

import lxml.etree
import lxml.html

MAX_ROWS = 50_000
MAX_BYTES = 20 * 1024 * 1024
VARIABLE = re.compile(r"\$\{([^{}]*)\}")
# Where MTurk's worker and sandbox sites take a HIT's answers.
MTURK_SUBMIT = re.compile(r"^https://(www|workersandbox)\.mturk\.com/mturk/externalSubmit/?$", re.I)
HELPER_SCRIPT = re.compile(
    r"<script\b[^>]*\bsrc\s*=\s*[\"']?[^\"'>\s]*externalHIT_v1\.js[^>]*>\s*</script\s*>", re.I
)
RUNTIME_NAME = "\u2063parable runtime"  # the runtime's place: a variable no CSV names
RUNTIME = "${" + RUNTIME_NAME + "}"
ATTRIBUTE = r"""\s+[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?"""
TAG = re.compile(rf"<[a-zA-Z][^\s/>]*(?:{ATTRIBUTE})*\s*/?>")
HANDLER = re.compile(r"\son[a-z]+\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))", re.I)
SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.I | re.S)
SCRIPT_TYPE = re.compile(r"\btype\s*=\s*[\"']?([^\"'\s>]*)", re.I)
# Script types whose text is JavaScript or JSON; any other (text/template...) is markup.
CODE_TYPES = {"", "module", "importmap", "text/javascript", "application/javascript"}
CODE_TYPES |= {
    "text/ecmascript",
    "application/ecmascript",
    "application/json",
    "application/ld+json",
}
FREE_TEXT = ("text", "search", "textarea")  # the fields whose writing is recorded
CATEGORICAL = ("radio", "checkbox", "select")
NOT_FIELDS = {"submit", "image", "button", "reset", "file"}

FRAGMENT_PAGE = (
    '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title></title>' + RUNTIME + "</head>"
    '<body><form name="mturk_form" method="post" id="mturk_form">'
    '<input type="hidden" value="" name="assignmentId" id="assignmentId">\n'
)
SUBMIT_BUTTON = '\n<p><input type="submit" id="submitButton" value="Submit"></p>'


class TemplateError(ValueError):
    """The template or the CSV cannot be run; the message says why and what to do."""


@dataclass
class Field:
    """A form field the template collects, by name: its kind, options and pre-checked ones."""

    kind: str
    options: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)


@dataclass
class TemplateInfo:
    shape: str  # "fragment" (the requester UI's layout) or "page" (a whole HTMLQuestion)
    variables: list[str]
    fields: dict[str, Field]
    segments: list  # the frame document: text, and [variable, context] slots

    def names(self, kinds) -> list[str]:
        return [name for name, found in self.fields.items() if found.kind in kinds]

    def prechecked(self) -> dict[str, str]:
        """Radio groups that come checked: a worker can submit them untouched."""
        return {
            name: found.checked[0]
            for name, found in self.fields.items()
            if found.kind == "radio" and found.checked
        }


@dataclass
class CsvTable:
    encoding: str
    header: list[str]
    rows: list[dict[str, str]]


def _scan(source: str) -> tuple[dict[str, Field], list[str], set[str], bool]:
    """The template's fields by name, its forms' actions, its crowd-html-elements, and
    whether it has a submit button of its own."""
    try:  # (lxml takes no XML declaration in a text)
        tree = lxml.html.document_fromstring(re.sub(r"^\s*<\?xml[^>]*>", "", source))
    except lxml.etree.ParserError:  # no element at all
        return {}, [], set(), False
    fields: dict[str, Field] = {}
    submit = False
    for element in tree.iter("input", "button", "select", "textarea"):
        default = "submit" if element.tag == "button" else "text"
        kind = (element.get("type") or default).lower()
        name = element.get("name") or ""
        submit = submit or (element.tag in ("input", "button") and kind in ("submit", "image"))
        if element.tag in ("select", "textarea"):
            kind = element.tag
        elif element.tag == "button" or kind in NOT_FIELDS:
            continue
        if name in ("", "assignmentId"):
            continue
        found = fields.setdefault(name, Field(kind))
        if kind in ("radio", "checkbox"):
            found.options.append(element.get("value", "on"))
            if element.get("checked") is not None:
                found.checked.append(element.get("value", "on"))
        elif kind == "select":
            found.options += [option.get("value", option.text_content()) for option in element]
    actions = [form.get("action", "").strip() for form in tree.iter("form")]
    crowd = {e.tag for e in tree.iter() if isinstance(e.tag, str) and e.tag.startswith("crowd-")}
    return fields, actions, crowd, submit


def _open_quote(code: str) -> str:
    """The quote of the JavaScript string literal that `code` ends inside ("" for none):
    strings, template literals and comments are followed; `${` is text, as MTurk saw it."""
    quote, position, end = "", 0, len(code)
    while position < end:
        char = code[position]
        if quote:
            if char == "\\":
                position += 1
            elif char == quote:
                quote = ""
        elif char in "'\"`":
            quote = char
        elif code.startswith("//", position):
            found = code.find("\n", position)
            position = end if found < 0 else found
        elif code.startswith("/*", position):
            found = code.find("*/", position + 2)
            position = end if found < 0 else found + 1
        position += 1
    return quote


_JS_ESCAPES = str.maketrans(
    {c: f"\\u{ord(c):04x}" for c in "<>&'`$\u2028\u2029"}  # never a script's end, quote or ${
)


def js_string(value: str) -> str:
    """The value as a JavaScript (and JSON) string's content, safe in any quotes."""
    return json.dumps(value, ensure_ascii=False)[1:-1].translate(_JS_ESCAPES)


def script_json(value) -> str:
    """JSON that can stand in a script: no character of it ends the script."""
    return json.dumps(value, ensure_ascii=False).translate(_JS_ESCAPES)


def js_value(value: str) -> str:
    """The value as a bare JavaScript value: the JSON it holds, or else a string."""
    try:
        return script_json(json.loads(value))
    except ValueError:
        return script_json(value)


ESCAPERS = {
    "raw": str,
    "html": lambda value: html.escape(value, quote=True),
    "js_string": js_string,
    "js_value": js_value,
    "attr_js_string": lambda value: html.escape(js_string(value), quote=True),
    "attr_js_value": lambda value: html.escape(js_value(value), quote=True),
}


def _contexts(document: str) -> dict[int, str]:
    """The escaping context of each variable at its offset: in a script's code, in an
    event handler attribute's code, or (the rest) in markup."""
    contexts = {}
    for script in SCRIPT.finditer(document):
        kind = SCRIPT_TYPE.search(script.group(1))
        if (kind.group(1).lower() if kind else "") not in CODE_TYPES:
            continue
        body = script.group(2)
        for variable in VARIABLE.finditer(body):
            quoted = _open_quote(body[: variable.start()])
            contexts[script.start(2) + variable.start()] = "js_string" if quoted else "js_value"
    for tag in TAG.finditer(document):
        for handler in HANDLER.finditer(tag.group(0)):
            index = next(i for i in (1, 2, 3) if handler.group(i) is not None)
            code = handler.group(index)
            for variable in VARIABLE.finditer(code):
                quoted = _open_quote(html.unescape(code[: variable.start()]))
                offset = tag.start() + handler.start(index) + variable.start()
                contexts[offset] = "attr_js_string" if quoted else "attr_js_value"
    return contexts


def _page(source: str) -> str:
    """A whole page with MTurk's helper taken out and the runtime's place marked first
    in its head (before any of its own scripts)."""
    source = HELPER_SCRIPT.sub("", source)
    head = re.search(r"<head\b[^>]*>", source, re.I) or re.search(r"<html\b[^>]*>", source, re.I)
    if head:
        return source[: head.end()] + RUNTIME + source[head.end() :]
    doctype = re.match(r"\s*<!doctype[^>]*>", source, re.I)
    at = doctype.end() if doctype else 0
    return source[:at] + RUNTIME + source[at:]


def template_read(source: str) -> TemplateInfo:
    """What the template collects and shows; TemplateError when Parable cannot run it."""
    fields, actions, crowd, submit = _scan(source)
    page = bool(actions) or re.search(r"<html\b", source, re.I) is not None
    if crowd:
        names = ", ".join(f"<{tag}>" for tag in sorted(crowd))
        raise TemplateError(
            f"This template is built on crowd-html-elements ({names}), which only MTurk's "
            "own pages run. Parable runs plain HTML forms: docs/templates.md shows how to "
            "convert each element to an input, select or textarea by hand."
        )
    elsewhere = [action for action in actions if action not in ("", "#")]
    elsewhere = [action for action in elsewhere if not MTURK_SUBMIT.match(action)]
    if elsewhere:
        raise TemplateError(
            f"The template's form posts to {elsewhere[0]}. Parable runs forms that post to "
            "MTurk's externalSubmit (or name no action), and takes the answers itself."
        )
    if not fields:
        raise TemplateError(
            "The template has no form field (an input, select or textarea with a name): a "
            "worker would have nothing to submit. MTurk requires one too; a template that "
            "builds its answer in JavaScript keeps it in a hidden input."
        )
    if page:
        document = _page(source)
    else:
        document = FRAGMENT_PAGE + source + ("" if submit else SUBMIT_BUTTON)
        document += "\n</form></body></html>\n"
    contexts = _contexts(document)
    segments, position = [], 0
    for variable in VARIABLE.finditer(document):
        segments.append(document[position : variable.start()])
        name = variable.group(1).strip()
        context = "raw" if name == RUNTIME_NAME else contexts.get(variable.start(), "html")
        segments.append([name, context])
        position = variable.end()
    segments.append(document[position:])
    variables = list(dict.fromkeys(part[0] for part in segments if isinstance(part, list)))
    return TemplateInfo(
        shape="page" if page else "fragment",
        variables=[name for name in variables if name != RUNTIME_NAME],
        fields=fields,
        segments=segments,
    )


def render(segments: list, values: dict[str, str], *, runtime: str) -> str:
    """The frame document of one row: its values escaped for where they stand."""
    values = {**values, RUNTIME_NAME: runtime}
    return "".join(
        part if isinstance(part, str) else ESCAPERS[part[1]](values.get(part[0], ""))
        for part in segments
    )


def _decoded(content: bytes) -> tuple[str, str]:
    if content.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in content[:4096]:
        raise TemplateError(
            "The CSV is UTF-16 text: save it as CSV UTF-8 (Excel: Save As, "
            "“CSV UTF-8 (Comma delimited)”)."
        )
    if content.startswith(b"\xef\xbb\xbf"):
        encodings = [("utf-8-sig", "UTF-8 with BOM")]
    else:
        encodings = [("utf-8", "UTF-8"), ("cp1252", "Windows-1252")]
    for codec, label in encodings:
        try:
            return content.decode(codec), label
        except UnicodeDecodeError as error:
            failure = error
    line = content[: failure.start].count(b"\n") + 1
    raise TemplateError(
        f"The CSV is neither UTF-8 nor Windows-1252 text (byte 0x{content[failure.start]:02x} "
        f"on line {line}): save it as CSV UTF-8."
    )


def csv_read(content: bytes) -> CsvTable:
    """The CSV's rows by its header's names; TemplateError for a file Parable refuses."""
    if len(content) > MAX_BYTES:
        raise TemplateError(f"The CSV is larger than {MAX_BYTES // 1024 // 1024} MB: split it.")
    text, encoding = _decoded(content)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [name.strip() for name in next(reader, [])]
        if not header or not any(header):
            raise TemplateError("The CSV is empty: its first line names the variables.")
        blank = [str(index) for index, name in enumerate(header, 1) if not name]
        if blank:
            raise TemplateError(f"The CSV's column {', '.join(blank)} has no name.")
        repeated = sorted({name for name in header if header.count(name) > 1})
        if repeated:
            raise TemplateError(f"The CSV's header names {', '.join(repeated)} more than once.")
        rows = []
        for cells in reader:
            if not any(cell.strip() for cell in cells):
                continue  # a blank line
            if len(rows) == MAX_ROWS:
                raise TemplateError(f"The CSV has more than {MAX_ROWS:,} rows: split it.")
            extra = cells[len(header) :]
            if any(cell.strip() for cell in extra):
                raise TemplateError(
                    f"Line {reader.line_num} of the CSV has {len(cells)} cells; its header "
                    f"names {len(header)}."
                )
            cells = cells[: len(header)] + [""] * (len(header) - len(cells))
            rows.append(dict(zip(header, cells, strict=True)))
    except csv.Error as error:
        raise TemplateError(f"Line {reader.line_num} of the CSV cannot be read: {error}.") from None
    if not rows:
        raise TemplateError("The CSV has a header and no rows: each row is one item.")
    return CsvTable(encoding=encoding, header=header, rows=rows)


def coverage_check(info: TemplateInfo, table: CsvTable) -> None:
    """TemplateError naming a variable the CSV has no column for."""
    missing = [name for name in info.variables if name not in table.header]
    if missing:
        names = ", ".join(f"${{{name}}}" for name in missing)
        raise TemplateError(
            f"The template uses {names}, which the CSV has no column for (its columns: "
            f"{', '.join(table.header)}). A JavaScript template literal's ${{...}} reads as a "
            "variable too, as it did on MTurk: write it with + instead."
        )


def visible_text(document: str) -> str:
    """The words a worker reads on the page (scripts, styles and the title left out)."""
    tree = lxml.html.document_fromstring(document)
    for hidden in tree.xpath("//script | //style | //title"):
        hidden.drop_tree()
    return " ".join(" ".join(tree.itertext()).split())
