"""The analysis as titled tables with their definitions, for the dashboard and the dataset card.

`analysis_sections` turns `dataset_analysis`'s output into sections of plain-text tables
(the dashboard's templates escape them for HTML), and `dataset_card` writes the README.md an
export puts beside its data, escaped for Markdown.
Over 400 lines: it declares every table of the analysis output and every field of an export.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from annotation.analysis.definitions import LABELS
from annotation.analysis.selectors import definitions
from annotation.quality.integrity import FLAG_TITLES
from common.prose import significant
from crowd import task_types

PARTS = ("train", "test", "none")


@dataclass
class Table:
    columns: list[str]
    rows: list[list]
    notes: list[tuple[str, str]] = field(default_factory=list)  # (key, definition)
    caption: str = ""
    keys: list[str] = field(default_factory=list)  # a statistics table's key of each row


@dataclass
class Section:
    key: str
    title: str
    help: str
    tables: list[Table]
    plots: list[str] = field(default_factory=list)  # names of annotation.analysis.plots functions


def format_value(value) -> str:
    """A statistic as text: '—' for none, integers whole, floats to 4 significant digits
    written out (two decimals from 100 up)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.2f}" if abs(value) >= 100 else significant(value)
    if isinstance(value, list):
        return ", ".join(format_value(item) for item in value) or "—"
    return str(value)


def format_share(value) -> str:
    """A fraction as a percentage to three significant digits ("12.5%"); '—' for none."""
    return "—" if value is None else f"{significant(100 * value, 3)}%"


def statistic_label(key: str) -> str:
    """What a statistic is called where people read it (definitions.LABELS; a flag's share
    by the flag's title)."""
    if key in LABELS:
        return LABELS[key]
    if key.startswith("integrity.shares."):
        return f"Share flagged: {FLAG_TITLES.get(key.rsplit('.', 1)[1], key)}"
    return key.rsplit(".", 1)[-1].replace("_", " ").capitalize()


def statistic_value(analysis: dict, key: str):
    """The value at a dotted key of the analysis (None where there is none)."""
    value = analysis
    for part in key.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _keys(prefix: str, names: str) -> list[str]:
    return [prefix + name for name in names.split()]


# ePiC's Table 1 (collection) and Table 2 (dataset statistics), as the analysis keys them.
COLLECTION_KEYS = _keys(
    "collection.",
    "submitted approved distinct_workers approved_per_worker_mean approved_per_worker_max "
    "unknown_writer",
)
TABLE_2_KEYS = _keys(
    "",
    "proverbs narratives vocabulary_size tokens_per_narrative sentences_per_narrative "
    "span_pairs_per_narrative words_per_proverb_span words_per_narrative_span "
    "unique_bigrams unique_trigrams",
)
FLESCH = "flesch_mean flesch_median flesch_min flesch_max flesch_std flesch_rules syllable_source"

Columns = dict[str, str | Callable[[dict], str]]  # a column's key, or how it writes a record


class _Tables:
    """The tables of one analysis, with the definitions they show."""

    def __init__(self, analysis: dict):
        self.analysis = analysis
        self.meaning = definitions()

    def table(self, columns: list[str] | Columns, rows: list, notes: str, caption="") -> Table:
        """Cells written by format_value, with the definitions of the `notes` keys. With
        `columns` a Columns mapping, `rows` are records, a row each."""
        if isinstance(columns, dict):
            rows = [
                [cell(row) if callable(cell) else row[cell] for cell in columns.values()]
                for row in rows
            ]
        cells = [[format_value(cell) for cell in row] for row in rows]
        found = [(key, self.meaning[key]) for key in notes.split() if key in self.meaning]
        return Table(list(columns), cells, found, caption)

    def statistics(self, keys: list[str]) -> Table:
        """Statistic rows: its label, value and definition (with the key that `analyze
        --json` gives it), and the keys kept on the table."""
        rows = [
            [
                statistic_label(key),
                (format_share if key == "integrity.flagged" or ".shares." in key else format_value)(
                    statistic_value(self.analysis, key)
                ),
                f"{self.meaning.get(key, '')} (key: {key})".lstrip(),
            ]
            for key in keys
        ]
        return Table(["Statistic", "Value", "Definition"], rows, keys=list(keys))


# The sections in the order of the ePiC paper: key, title, the keys whose definitions make
# its help text, how its tables are built (None: no section) and its plots.
SECTIONS: list[tuple[str, str, str, Callable[[_Tables], list[Table] | None], list[str]]] = []


def _section(key: str, title: str, help_keys: str, *plots: str):
    def register(tables: Callable[[_Tables], list[Table] | None]):
        SECTIONS.append((key, title, help_keys, tables, list(plots)))
        return tables

    return register


def _statistics_section(key: str, title: str, help_keys: str, keys: list[str]) -> None:
    _section(key, title, help_keys)(lambda tables: [tables.statistics(keys)])


def analysis_sections(analysis: dict) -> list[Section]:
    """The dashboard's and the card's sections, in the order of the ePiC paper."""
    tables = _Tables(analysis)
    meaning = tables.meaning
    sections, shown = [], set()
    for key, title, help_keys, build, plots in SECTIONS:
        built = build(tables)
        if built is not None:
            help_text = " ".join(meaning.get(name, "") for name in help_keys.split()).strip()
            sections.append(Section(key, title, help_text, built, plots))
            shown.update(help_keys.split())  # a section's keys are defined in its help text
    return [*sections, _other_definitions(sections, shown, meaning)]


def _other_definitions(sections: list[Section], shown: set[str], meaning: dict) -> Section:
    """The definitions no table above shows, so that every key of the output is defined."""
    for section in sections:
        for table in section.tables:
            shown.update(key for key, _ in table.notes)
            shown.update(table.keys)
    rows = [[key, text] for key, text in meaning.items() if key not in shown]
    return Section(
        "definitions",
        "Other definitions",
        "The remaining keys of the analysis output (manage.py analyze --json).",
        [Table(["Key", "Definition"], rows)],
    )


_statistics_section("collection", "Collection", "collection", COLLECTION_KEYS)


@_section("dataset", "Dataset statistics", "narratives")
def _dataset(tables: _Tables) -> list[Table]:
    splits = tables.analysis.get("splits", {})
    rows = [
        [setting, *(splits.get(setting, {}).get(part) for part in PARTS)]
        for setting in ("seen", "unseen")
    ]
    return [
        tables.statistics(TABLE_2_KEYS),
        tables.table(["Setting", *PARTS], rows, "splits.seen splits.unseen", "Splits"),
    ]


OVERLAP_COLUMNS = [
    "n",
    "Jaccard, paired",
    "Jaccard, random",
    "Common n-grams, paired",
    "Common, random",
]


def overlap_rows(analysis: dict) -> list[list]:
    """ePiC's Table 3: per n, the Jaccard similarity and common n-grams, paired and random."""
    measures = [analysis.get(name) or {} for name in ("jaccard", "common_ngrams")]
    cells = [(figures, side) for figures in measures for side in ("paired", "random")]
    return [
        [n, *((figures.get(n) or {}).get(side) for figures, side in cells)] for n in ("1", "2", "3")
    ]


@_section("overlap", "Lexical overlap", "jaccard common_ngrams", "overlap_bars")
def _overlap(tables: _Tables) -> list[Table]:
    notes = "jaccard.paired jaccard.random common_ngrams.paired common_ngrams.random"
    return [tables.table(OVERLAP_COLUMNS, overlap_rows(tables.analysis), notes)]


_statistics_section(
    "diversity",
    "Diversity",
    "diversity",
    _keys(
        "diversity.",
        "same_proverb different_proverbs same_proverb_pairs different_proverb_pairs "
        "same_proverb_sampled different_proverbs_sampled",
    ),
)
PER_PROVERB: Columns = {
    "Proverb": "proverb",
    "Proverb compound": "proverb_compound",
    "Narratives' mean": "narrative_compound_mean",
    "Narratives": "narratives",
    "Positive": "positive",
    "Negative": "negative",
    "Neutral": "neutral",
}


@_section("sentiment", "Sentiment", "sentiment", "sentiment_scatter", "sentiment_counts")
def _sentiment(tables: _Tables) -> list[Table]:
    keys = "pearson_r p_value slope intercept narrative_compound_mean positive negative neutral"
    per_proverb = tables.analysis.get("sentiment", {}).get("per_proverb", [])
    return [
        tables.statistics(_keys("sentiment.", keys)),
        tables.table(PER_PROVERB, per_proverb, "sentiment.per_proverb", "Per proverb"),
    ]


@_section("readability", "Readability", "readability", "readability_histogram")
def _readability(tables: _Tables) -> list[Table]:
    readability = tables.analysis.get("readability", {})
    keys = _keys("readability.", FLESCH)
    if "newer_flesch_rules" in readability:  # asked for (--newer-flesch)
        keys += _keys("readability.newer_", FLESCH)
    histogram = readability.get("flesch_histogram", {})
    bins, counts = histogram.get("bins", []), histogram.get("counts", [])
    rows = [
        [f"{format_value(bins[i])} to {format_value(bins[i + 1])}", count]
        for i, count in enumerate(counts)
    ]
    return [
        tables.statistics(keys),
        tables.table(
            ["Flesch reading ease", "Narratives"],
            rows,
            "readability.flesch_histogram",
            "Distribution",
        ),
    ]


CHOICE_LABELS = {
    "human": "Accuracy of workers",
    "model": "Accuracy of the model",
    "questions": "Questions answered by workers",
    "responses": "Worker answers",
    "model_questions": "Model answers",
}
WELCH_COLUMNS: Columns = {
    "Criterion": "criterion",
    "Source A": "source_a",
    "Source B": "source_b",
    "n A": "n_a",
    "n B": "n_b",
    "Mean A": "mean_a",
    "Mean B": "mean_b",
    "t": "t",
    "p": "p_value",
}


@_section("human_evaluation", "Human evaluation", "human_evaluation", "rating_means")
def _human_evaluation(tables: _Tables) -> list[Table]:
    human = tables.analysis.get("human_evaluation", {})
    ratings = [
        [criterion, source, figures["mean"], figures["n"], figures["std"]]
        for criterion, by_source in human.get("ratings", {}).items()
        for source, figures in by_source.items()
    ]
    items = human.get("pairwise_agreement_items", {})
    agreement = [
        [criterion, value, items.get(criterion)]
        for criterion, value in human.get("pairwise_agreement", {}).items()
    ]
    accuracy = [
        [CHOICE_LABELS.get(key, key), format_share(value) if key in ("human", "model") else value]
        for key, value in human.get("choice_accuracy", {}).items()
    ]
    key = "human_evaluation."
    return [
        tables.table(
            ["Criterion", "Source", "Mean", "n", "Std"],
            ratings,
            f"{key}ratings",
            "Mean rating per criterion and source",
        ),
        tables.table(
            WELCH_COLUMNS, human.get("welch_t_tests", []), f"{key}welch_t_tests", "Welch's t-tests"
        ),
        tables.table(
            ["Criterion", "Pairwise agreement", "Items"],
            agreement,
            f"{key}pairwise_agreement {key}pairwise_agreement_items",
            "Agreement",
        ),
        tables.table(
            ["Multiple choice", "Value"],
            accuracy,
            f"{key}choice_accuracy",
            "Multiple-choice accuracy: humans beside the model",
        ),
    ]


@_section("integrity", "Writing integrity", "integrity", "integrity_flags")
def _integrity(tables: _Tables) -> list[Table]:
    """Flag shares overall, per batch and per worker (the 50 most flagged workers)."""
    integrity = tables.analysis.get("integrity") or {}
    codes = list(integrity.get("shares", {}))
    overall = _keys("integrity.", "narratives with_record checked flagged")
    columns = ["Narratives", "Flagged", *(FLAG_TITLES[code] for code in codes)]

    def row(name: str, group: dict) -> list:
        shares = [group["shares"][code] for code in codes]
        return [name, group["narratives"], *map(format_share, [group["flagged"], *shares])]

    by_batch = [
        row(f"{group['batch']}: {group['name']}" if group["batch"] else "imported", group)
        for group in integrity.get("by_batch", [])
    ]
    by_worker = [row(group["worker"], group) for group in integrity.get("by_worker", [])[:50]]
    return [
        tables.statistics(overall + _keys("integrity.shares.", " ".join(codes))),
        tables.table(["Batch", *columns], by_batch, "integrity.by_batch", "Per batch"),
        tables.table(
            ["Worker", *columns],
            by_worker,
            "integrity.by_worker",
            "Per worker (most flagged first)",
        ),
    ]


# The per-round table: each column, and the figure it shows (a key, or how it is written).
ROUND_COLUMNS: Columns = {
    "Round": "round",
    "Stories": "stories",
    "Opponent": lambda figures: "; ".join(figures["opponents"]) or "none",
    "Mode": lambda figures: ", ".join(figures["modes"]) or "—",
    "Answered": "answered",
    "Fooled": "fooled",
    "Fooled share": lambda figures: format_share(figures["fooled_share"]),
    "Unmatched": "unmatched",
    "Validated fooled share": lambda figures: format_share(figures["validated_fooled_share"]),
    "Checks per story": "checks_mean",
    "Bonuses paid": "bonuses_paid",
}


@_section("rounds", "Model-in-the-loop rounds", "rounds", "rounds_fooled", "rounds_evaluation")
def _rounds(tables: _Tables) -> list[Table] | None:
    """Model-in-the-loop rounds: per round, the stories that fooled their opponent; and each
    round's model on every round's test stories. None when no story was written in a round."""
    rounds = tables.analysis.get("rounds") or {}
    if not rounds.get("by_round"):
        return None
    evaluation = rounds.get("evaluation") or {}

    def cell(figures: dict | None) -> str:
        if figures is None:
            return "—"
        return (
            f"accuracy {format_share(figures['accuracy'])}, MRR {format_value(figures['mrr'])} "
            f"(n {figures['n']})"
        )

    models = [
        [
            f"{model['label']} (opponent of round {', '.join(map(str, model['rounds_opposed']))})",
            *map(cell, row),
        ]
        for model, row in zip(
            evaluation.get("models") or [], evaluation.get("cells") or [], strict=True
        )
    ]
    evaluated = tables.table(
        ["Model", *(f"Round {number} test" for number in evaluation.get("rounds") or [])],
        models,
        "rounds.evaluation",
        "Each round's model on every round's test stories",
    )
    evaluated.notes += [
        (f"run {run}", f"could not be evaluated: {error}")
        for run, error in (evaluation.get("errors") or {}).items()
    ]
    by_round = tables.table(ROUND_COLUMNS, rounds["by_round"], "rounds.by_round", "Per round")
    return [by_round, evaluated]


@_section("parameters", "Scope and parameters", "scope parameters")
def _parameters(tables: _Tables) -> list[Table]:
    keys = _keys("scope.", "batches approved_only sources narratives_loaded")
    return [
        tables.statistics(
            keys + _keys("parameters.", " ".join(tables.analysis.get("parameters", {})))
        )
    ]


# --------------------------------------------------------------------------- the card

_FIELDS = {
    "id": "Parable's narrative id.",
    "pk": "Record id: the imported pk (e.g. ePiC's Q12N3), else Q<proverb_id>N<k>, k the "
    "narrative's rank by id among its proverb's narratives created in Parable "
    "(parable-<id> if that pk is taken).",
    "proverb_id": "Parable's proverb id.",
    "proverb": "The proverb's text.",
    "narrative": "The narrative's text, as written.",
    "source": "crowd (written in Parable) or imported.",
    "source_label": "Where it came from (e.g. ePiC).",
    "status": "submitted, approved or rejected.",
    "pledged_at": "When the writer agreed to the batch's pledge (ISO 8601); empty when the "
    "batch asked for none or the writer did not agree.",
    "worker": "The writer: a salted hash (first 16 hex digits of HMAC-SHA256 of "
    "'provider:worker id') unless raw ids were kept; empty for imported narratives.",
    "split_seen": "train or test in the seen-proverbs setting; empty when unassigned.",
    "split_unseen": "train or test in the unseen-proverbs setting; empty when unassigned.",
    "round": "The model-in-the-loop round the story was written in; empty when in none.",
    "opponent_run": "The round's opponent: the id of the finished proverb run (retrieval, "
    "bi-encoder or classifier) the writer could ask whether it finds the proverb; empty "
    "when the round had none.",
    "model_rank": "Where the opponent ranked the story's own proverb, for the story as "
    "submitted, among the curated proverbs and its own (1: the model found it); empty when "
    "there was no opponent or it has not answered.",
    "model_fooled": "true when the opponent did not rank the story's proverb first (the story "
    "fooled the model); empty when unknown.",
    "human_validated": "true when a validation batch's workers mostly chose the story's "
    "proverb, false when they did not (the story is then left out of its round's figures); "
    "empty when not validated.",
    "model_checks": "How often the writer asked the opponent on the task page before "
    "submitting (rate-limited per task); empty when the round had no opponent.",
    "keywords": "Keywords of the narrative (verbs and named entities), as stored.",
    "integrity_flags": (
        "Writing-integrity flags (codes defined under integrity.shares in the statistics): "
        "how the task page saw the text written, and near-duplicates in the dataset. A flag "
        "informs; it did not reject the narrative."
    ),
    "writing": (
        "Summary of the task page's writing record (None when there is none): typed, "
        "pasted and without-keystrokes shares of the text, script events, characters "
        "deleted, pauses of 2 s or more, mean key interval (ms), composition and hidden "
        "time (s). Raw keystrokes are never recorded."
    ),
}


def _fields() -> dict[str, str]:
    """The export's fields and their meanings, the task types' narrative parts included
    (in the columns' order: after keywords)."""
    parts = {part.name: part.definition for part in task_types.narrative_parts()}
    fields = list(_FIELDS.items())
    at = [name for name, _ in fields].index("keywords") + 1
    return dict([*fields[:at], *parts.items(), *fields[at:]])


_EPIC_FIELDS = {
    "pk": _FIELDS["pk"],
    "fields.quote": "The proverb.",
    "fields.narrative": "The narrative.",
    "fields.span_quote_1..5": "Proverb span of aligned pair 1-5 (alignment 1); '' if unused.",
    "fields.span_narrative_1..5": "Narrative span of aligned pair 1-5; '' if unused.",
}


# What Markdown would read as HTML: a tag, comment or autolink (< then a letter, /, ! or ?)
# and a character reference (&amp; &#38;); "< 0.001" and "Q&A" are text as they stand.
_MARKUP = re.compile(r"<(?=[A-Za-z/!?])|&(?=#|[A-Za-z0-9]+;)")


def markdown_cell(value) -> str:
    """A value as one line of a Markdown table cell: what would be HTML, and pipes, escaped."""
    text = format_value(value) if not isinstance(value, str) else value
    text = _MARKUP.sub(lambda found: "&lt;" if found[0] == "<" else "&amp;", text)
    return " ".join(text.replace("|", "\\|").split())


def markdown_table(columns: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(markdown_cell(c) for c in columns) + " |"]
    lines.append("|" + "---|" * len(columns))
    lines += ["| " + " | ".join(markdown_cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines)


def dataset_card(
    *,
    format: str,
    files: list[str],
    summary,
    analysis: dict | None,
    scope: dict,
    raw_worker_ids: bool,
    methods: str | None = None,
) -> str:
    """README.md for an export: files, fields, splits, counts, statistics and definitions,
    and the methods and data statement (Markdown) when given."""
    parts = [_front_matter(format, files), "# Parable dataset export\n"]
    parts.append(
        f"Exported {datetime.now(UTC):%Y-%m-%d %H:%M} UTC in the {format} format: "
        + ", ".join(f"`{name}`" for name in files)
        + f". Batches: {format_value(scope['batches'])}; "
        + f"sources: {', '.join(scope['sources'])}; "
        + (
            "statuses: approved narratives only (the default). "
            if scope["approved_only"]
            else "statuses: every status (submitted, rejected, ... as well as approved; "
            "see the status field). "
        )
        + (
            "**Worker ids are raw**: the providers' own ids (Prolific participant ids, MTurk "
            "worker ids), which identify people; share this export only as your ethics "
            "approval allows."
            if raw_worker_ids
            else "Worker ids are salted hashes (not reversible without the salt)."
        )
        + "\n"
    )
    if format == "csv":
        parts.append(_CSV_FORMULAS)
    fields = _EPIC_FIELDS if format == "epic" else _fields()
    parts.append("## Fields\n\n" + markdown_table(["Field", "Meaning"], list(fields.items())))
    parts.append(_loading(format, files))
    parts.append("## Counts\n\n" + markdown_table(["Count", "Value"], _summary_rows(summary)))
    if analysis is None:
        parts.append("## Statistics\n\nNot computed for this export (run `manage.py analyze`).")
    else:
        parts.append("## Statistics\n\n" + _SPLIT_RULE)
        parts += [_section_markdown(section) for section in analysis_sections(analysis)]
    if methods:
        parts.append(
            methods.strip()
            + "\n\nThe same statement is in `methods.md`, and in LaTeX in `methods.tex`."
        )
    return "\n\n".join(parts) + "\n"


_CSV_FORMULAS = (
    "In the CSV file, a text cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage "
    "return starts with an added single quote (`'`), so that spreadsheets show it as text "
    "instead of running it as a formula. Strip that quote to get the exact text; the JSONL, "
    "Parquet and ePiC exports keep every text exactly as stored."
)

_SPLIT_RULE = (
    "Splits: seen (per proverb, its approved narratives shuffled with "
    '`random.Random(f"{seed}:seen:{proverb_id}")` after ordering by id, the first '
    "(6n+5)//10 train and the rest test) and unseen (proverbs ordered by id and shuffled "
    'with `random.Random(f"{seed}:unseen")`, the first (6P+5)//10 train), unless taken '
    "from split files. Every statistic below is listed with its definition."
)


def _front_matter(format: str, files: list[str]) -> str:
    lines = ["---", "language:", "- en", "pretty_name: Parable dataset export"]
    if format != "epic":
        lines += ["configs:", "- config_name: default", f"  data_files: {files[0]}"]
    return "\n".join([*lines, "---"])


def _loading(format: str, files: list[str]) -> str:
    builder = {"epic": "json", "jsonl": "json", "csv": "csv", "parquet": "parquet"}[format]
    return (
        "## Loading\n\n```python\nimport datasets\n"
        f'dataset = datasets.load_dataset("{builder}", data_files="{files[0]}", split="train")\n'
        "```"
    )


def _summary_rows(summary) -> list[list]:
    rows = [
        ["rows (narratives)", summary.rows],
        ["proverbs", len(summary.proverbs)],
        ["distinct workers", _workers_text(len(summary.workers), summary.without_worker)],
        *([name.replace("_", " "), n] for name, n in summary.parts.items()),
    ]
    rows += [[f"status {status}", n] for status, n in sorted(summary.statuses.items())]
    rows += [[f"source {source}", n] for source, n in sorted(summary.sources.items())]
    rows += [
        [f"split {setting} {part}", n]
        for setting, parts in summary.splits.items()
        for part, n in sorted(parts.items())
    ]
    return rows


def _workers_text(workers: int, without_worker: int) -> int | str:
    """Distinct workers, unknown (never 0) for rows that name none."""
    if not without_worker:
        return workers
    unknown = f"unknown for {without_worker} row(s) that name no worker"
    return f"{workers}, and {unknown}" if workers else unknown


def table_markdown(table: Table) -> str:
    """A table in Markdown: its caption in bold above it; "(none)" for a table of no rows."""
    caption = f"**{markdown_cell(table.caption)}**\n\n" if table.caption else ""
    return caption + (markdown_table(table.columns, table.rows) if table.rows else "(none)")


def _section_markdown(section: Section) -> str:
    parts = [f"### {section.title}\n\n{markdown_cell(section.help)}"]
    for table in section.tables:
        parts.append(table_markdown(table))
        parts += [f"- `{key}`: {markdown_cell(text)}" for key, text in table.notes]
    return "\n\n".join(parts)
