"""How an imported JSON file was written, so that its export gives back the same bytes (no
database): `json_array_layout` finds the `json.dumps` layout that writes an array's text
exactly (ePiC's: a 4-space indent, ASCII escapes, no final newline), and `write_json_array`
writes items in it as they stream past."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TextIO

BOM = "\ufeff"
# Item and key separators json.dumps writes: its defaults without and with an indent, and
# the compact form.
SEPARATORS = ((", ", ": "), (",", ": "), (",", ":"))
# Without a file's layout: one item a line, not indented.
A_RECORD_A_LINE = {"indent": "", "separators": [",", ": "], "final_newline": "\n", "bom": False}


def _indent_of(text: str) -> int | str | None:
    """The indent the array's first item has (None: the array is on one line)."""
    opening = text.index("[")
    rest = text[opening + 1 :]
    if not rest.startswith("\n"):
        return None
    line = rest[1:]
    width = len(line) - len(line.lstrip(" \t"))
    spaces = line[:width]
    if spaces == " " * width:
        return width
    return spaces


def _ending_of(text: str) -> str:
    closing = text.rstrip("\r\n")
    return text[len(closing) :]


def json_array_layout(text: str, items: list, *, item_keys=None) -> dict | None:
    """The layout that writes `items` (`text`'s array, parsed) back as `text`: {"indent",
    "ensure_ascii", "separators", "final_newline", "bom"} and, with `item_keys(item)` (an
    item's key order in the file), "keys", every item's one key order. None when none does.
    """
    bom = text.startswith(BOM)
    body = text[1:] if bom else text
    if not body.lstrip().startswith("["):
        return None
    keys = None
    if item_keys is not None:
        orders = {json.dumps(item_keys(item)) for item in items}
        if len(orders) > 1:
            return None
        keys = json.loads(orders.pop()) if orders else None
    indent = _indent_of(body)
    ending = _ending_of(body)
    escaped = body.isascii()
    for separators in SEPARATORS:
        layout = {
            "indent": indent,
            "ensure_ascii": escaped,
            "separators": list(separators),
            "final_newline": ending,
            "bom": bom,
            "keys": keys,
        }
        if json_array_text(items, layout) == text:
            return layout
    return None


def json_array_text(items: Iterable, layout: dict | None) -> str:
    """The array as one string, in `layout` (see write_json_array)."""
    from io import StringIO

    stream = StringIO()
    write_json_array((json_item(item, layout) for item in items), stream, layout)
    return stream.getvalue()


def json_item(item, layout: dict | None) -> str:
    """One item as the layout writes it at the array's top level (without its indent)."""
    if layout is None:
        return json.dumps(item, ensure_ascii=False)
    return json.dumps(
        item,
        indent=layout["indent"],
        ensure_ascii=layout["ensure_ascii"],
        separators=tuple(layout["separators"]),
    )


def write_json_array(texts: Iterable[str], stream: TextIO, layout: dict | None) -> int:
    """Write items already made by `json_item` as a JSON array in `layout`, as they come;
    returns how many. Without a layout: one item a line and a final newline."""
    layout = layout or A_RECORD_A_LINE
    if layout["bom"]:
        stream.write(BOM)
    indent = layout["indent"]
    step = " " * indent if isinstance(indent, int) else indent
    item_separator = layout["separators"][0]
    count = 0
    stream.write("[")
    for text in texts:
        if step is None:
            stream.write(item_separator if count else "")
            stream.write(text)
        else:
            # json.dumps of the whole array puts each item on its own lines, one step in.
            stream.write((item_separator if count else "") + "\n" + step)
            stream.write(text.replace("\n", "\n" + step))
        count += 1
    if step is not None and count:
        stream.write("\n")
    stream.write("]" + layout["final_newline"])
    return count


def ordered(item: dict, keys: list | None) -> dict:
    """`item` with its keys in the order `keys` names (the rest after, as they are)."""
    if not keys:
        return item
    return {**{key: item[key] for key in keys if key in item}, **item}
