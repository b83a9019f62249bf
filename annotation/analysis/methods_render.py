"""The methods and data statement rendered as Markdown, or as a LaTeX fragment for a paper of
one or two columns: special characters escaped, LaTeX typography, breaks allowed in long
words, and tables of wrapping columns that together fit the line's width."""

from __future__ import annotations

import math
import re

from annotation.analysis.cards import Table, table_markdown
from annotation.analysis.methods import Methods
from common.prose import paper_number


def _render(doc: Methods, title: str, renderers: dict) -> str:
    """The document as text: `renderers` turn each kind of block into text."""
    parts = [title, *(renderers[kind](content) for kind, content in doc.blocks)]
    return "\n\n".join(parts) + "\n"


def methods_markdown(doc: Methods) -> str:
    return _render(
        doc,
        "## Methods and data statement",
        {
            "h": lambda text: f"### {text}",
            "p": str,
            "quote": lambda text: "\n".join(
                f"> {line}" if line else ">" for line in str(text).splitlines()
            ),
            "table": table_markdown,
        },
    )


_LATEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    # Typography pdflatex sets from its own commands.
    "“": "``",
    "”": "''",
    "‘": "`",
    "’": "'",
    "–": "--",
    "—": "---",
    "−": "$-$",
    "…": r"\ldots{}",
    "→": r"$\rightarrow$",
    "←": r"$\leftarrow$",
    "×": r"$\times$",
    "·": r"$\cdot$",
    "≥": r"$\geq$",
    "≤": r"$\leq$",
    "±": r"$\pm$",
    "⚑": "(flag)",
    "\u00a0": "~",
}
# Breaks allowed inside a word this long (a file name, a key), every BREAK_EVERY characters:
# a word wider than its column would run past it.
LONG_WORD = 16
BREAK_EVERY = 8
_SPACE = re.compile(r"(\s+)")
_NEGATIVE = re.compile(r"(?<![\w.])-(?=\.?\d)")


def _latex_character(character: str) -> str:
    if character in _LATEX:
        return _LATEX[character]
    if ord(character) > 0xFF:
        return "?"  # beyond what pdflatex sets with its standard fonts; Markdown keeps it
    return character


def latex_escape(value) -> str:
    """A value as LaTeX text: every special character escaped, typography as LaTeX writes
    it, and break points in very long words."""
    text = value if isinstance(value, str) else paper_number(value)
    text = _NEGATIVE.sub("−", text)  # a number's minus sign, not a hyphen
    pieces = []
    for piece in _SPACE.split(text):
        if piece.isspace() or len(piece) <= LONG_WORD:
            pieces.append("".join(_latex_character(character) for character in piece))
            continue
        pieces.append(
            r"\allowbreak{}".join(
                "".join(_latex_character(character) for character in piece[i : i + BREAK_EVERY])
                for i in range(0, len(piece), BREAK_EVERY)
            )
        )
    return "".join(pieces)


LATEX_PREAMBLE = (
    "% Methods and data statement, written by Parable. \\input it in a paper whose preamble\n"
    "% has \\usepackage{array} (and \\usepackage[utf8]{inputenc} before 2018 LaTeX)."
)


def methods_latex(doc: Methods) -> str:
    return (
        LATEX_PREAMBLE
        + "\n"
        + _render(
            doc,
            r"\section*{Methods and data statement}",
            {
                "h": lambda text: rf"\subsection*{{{latex_escape(text)}}}",
                "p": lambda text: (
                    "\\begin{sloppypar}\n" + latex_escape(text) + "\n\\end{sloppypar}"
                ),
                "quote": lambda text: (
                    "\\begin{quote}\n"
                    + "\n\n".join(latex_escape(line) for line in str(text).splitlines() if line)
                    + "\n\\end{quote}"
                ),
                "table": _latex_table,
            },
        )
    )


def _unbreakable(text: str) -> int:
    """The longest run of a cell that LaTeX cannot break (latex_escape breaks long words)."""
    words = str(text).split() or [""]
    return max(len(word) if len(word) <= LONG_WORD else BREAK_EVERY for word in words)


# The narrowest line a table is set in, a column of a two-column paper (ACL's 7.7 cm) in
# \small, and a column's two \tabcolsep, in characters: shares that fit it fit an article.
LINE_CHARACTERS = 44
COLUMN_PADDING = 3


def column_shares(table: Table) -> list[float]:
    """Each column's share of the line: at least its longest unbreakable run (with room for
    wide letters) and its padding, then as much as its longest cell asks, all within the
    line; rounded down so that together they never exceed it."""
    cells = [[column, *(row[i] for row in table.rows)] for i, column in enumerate(table.columns)]
    needs = [1.2 * max(map(_unbreakable, column)) + COLUMN_PADDING for column in cells]
    wants = [
        max(need, min(max(len(str(cell)) for cell in column), 60) + COLUMN_PADDING)
        for need, column in zip(needs, cells, strict=True)
    ]
    spare = LINE_CHARACTERS - sum(needs)
    flexible = sum(wants) - sum(needs)
    if flexible > spare:
        wants = [
            need + (want - need) * max(spare, 0) / flexible
            for need, want in zip(needs, wants, strict=True)
        ]
    return [math.floor(1000 * want / sum(wants)) / 1000 for want in wants]


def _latex_table(table: Table) -> str:
    """A table of wrapping columns, together the line's width (column_shares): its caption,
    its header and each row a tabular of their own with the same columns, so that the
    table breaks between rows across pages and columns in one- and two-column documents
    alike (a longtable stops a two-column document)."""
    spec = "".join(
        r">{\raggedright\arraybackslash\hspace{0pt}}"
        rf"p{{\dimexpr {share:.3f}\linewidth-2\tabcolsep\relax}}"
        for share in column_shares(table)
    )
    rows = [table.columns, *table.rows]
    lines = [r"\begingroup\small\par\medskip"]
    if table.caption:
        caption = latex_escape(table.caption)
        lines.append(rf"\refstepcounter{{table}}\noindent Table~\thetable: {caption}\par")
    for number, row in enumerate(rows):
        above = r"\hline " if number == 0 else ""
        below = r" \hline" if number in (0, len(rows) - 1) else ""
        cells = " & ".join(map(latex_escape, row))
        lines.append(
            rf"\noindent\begin{{tabular}}{{{spec}}}{above}{cells} \\{below}\end{{tabular}}"
            r"\par\nointerlineskip"
        )
    lines.append(r"\medskip\endgroup")
    return "\n".join(lines)
