"""The analysis as titled tables with their definitions, for the dashboard and the dataset card.

`analysis_sections` turns the output of `dataset_records.dataset_analysis` into
sections of plain tables (shared by the admin dashboard and the card), and
`dataset_card` writes the README.md that an export puts beside its data. Cell
values are plain text; the card escapes them for Markdown, the dashboard's
templates for HTML.
"""

from __future__ import annotations

import re
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


def _statistics(analysis: dict, keys: list[str], meaning: dict[str, str]) -> Table:
    """Statistic rows: its label, value and definition (with the key that `analyze --json`
    gives it), and the keys kept on the table."""
    rows = [
        [
            statistic_label(key),
            (format_share if key == "integrity.flagged" or ".shares." in key else format_value)(
                statistic_value(analysis, key)
            ),
            f"{meaning.get(key, '')} (key: {key})".lstrip(),
        ]
        for key in keys
    ]
    return Table(["Statistic", "Value", "Definition"], rows, keys=list(keys))


def _notes(meaning: dict[str, str], keys: list[str]) -> list[tuple[str, str]]:
    """(key, definition) for the keys that have one."""
    return [(key, meaning[key]) for key in keys if key in meaning]


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


def analysis_sections(analysis: dict) -> list[Section]:
    """The dashboard's and the card's sections, in the order of the ePiC paper."""
    meaning = definitions()

    collection, table_2 = COLLECTION_KEYS, TABLE_2_KEYS
    diversity = _keys(
        "diversity.",
        "same_proverb different_proverbs same_proverb_pairs different_proverb_pairs "
        "same_proverb_sampled different_proverbs_sampled",
    )
    sentiment = _keys(
        "sentiment.",
        "pearson_r p_value slope intercept narrative_compound_mean positive negative neutral",
    )
    readability = _keys(
        "readability.",
        "flesch_mean flesch_median flesch_min flesch_max flesch_std flesch_rules syllable_source",
    )
    if "newer_flesch_rules" in analysis.get("readability", {}):  # asked for (--newer-flesch)
        readability += _keys(
            "readability.",
            "newer_flesch_mean newer_flesch_median newer_flesch_min newer_flesch_max "
            "newer_flesch_std newer_flesch_rules newer_syllable_source",
        )
    parameters = _keys("scope.", "batches approved_only sources narratives_loaded")
    parameters += _keys("parameters.", " ".join(analysis.get("parameters", {})))
    sections = [
        Section(
            "collection",
            "Collection",
            _help(meaning, "collection"),
            [_statistics(analysis, collection, meaning)],
        ),
        Section(
            "dataset",
            "Dataset statistics",
            _help(meaning, "narratives"),
            [_statistics(analysis, table_2, meaning), _splits_table(analysis, meaning)],
        ),
        Section(
            "overlap",
            "Lexical overlap",
            _help(meaning, "jaccard", "common_ngrams"),
            [_overlap_table(analysis, meaning)],
            ["overlap_bars"],
        ),
        Section(
            "diversity",
            "Diversity",
            _help(meaning, "diversity"),
            [_statistics(analysis, diversity, meaning)],
        ),
        Section(
            "sentiment",
            "Sentiment",
            _help(meaning, "sentiment"),
            [_statistics(analysis, sentiment, meaning), _per_proverb_table(analysis, meaning)],
            ["sentiment_scatter", "sentiment_counts"],
        ),
        Section(
            "readability",
            "Readability",
            _help(meaning, "readability"),
            [_statistics(analysis, readability, meaning), _histogram_table(analysis, meaning)],
            ["readability_histogram"],
        ),
        Section(
            "human_evaluation",
            "Human evaluation",
            _help(meaning, "human_evaluation"),
            _human_tables(analysis.get("human_evaluation", {}), meaning),
            ["rating_means"],
        ),
        _integrity_section(analysis.get("integrity") or {}, meaning),
        *_rounds_sections(analysis.get("rounds") or {}, meaning),
        Section(
            "parameters",
            "Scope and parameters",
            _help(meaning, "scope", "parameters"),
            [_statistics(analysis, parameters, meaning)],
        ),
    ]
    return [*sections, _other_definitions(sections, meaning)]


_SECTION_KEYS = _keys(
    "",
    "collection narratives jaccard common_ngrams diversity sentiment readability "
    "human_evaluation scope parameters integrity",
)


def _integrity_section(integrity: dict, meaning: dict[str, str]) -> Section:
    """Flag shares overall, per batch and per worker (the 50 most flagged workers)."""
    codes = list(integrity.get("shares", {}))
    overall = _statistics(
        {"integrity": integrity},
        [f"integrity.{key}" for key in ("narratives", "with_record", "checked", "flagged")]
        + [f"integrity.shares.{code}" for code in codes],
        meaning,
    )
    columns = ["Narratives", "Flagged", *(FLAG_TITLES[code] for code in codes)]

    def row(group: dict) -> list:
        shares = [group["shares"][code] for code in codes]
        return [group["narratives"], *map(format_share, [group["flagged"], *shares])]

    by_batch = Table(
        ["Batch", *columns],
        [
            [f"{group['batch']}: {group['name']}" if group["batch"] else "imported", *row(group)]
            for group in integrity.get("by_batch", [])
        ],
        _notes(meaning, ["integrity.by_batch"]),
        "Per batch",
    )
    by_worker = Table(
        ["Worker", *columns],
        [[group["worker"], *row(group)] for group in integrity.get("by_worker", [])[:50]],
        _notes(meaning, ["integrity.by_worker"]),
        "Per worker (most flagged first)",
    )
    return Section(
        "integrity",
        "Writing integrity",
        _help(meaning, "integrity"),
        [overall, by_batch, by_worker],
        ["integrity_flags"],
    )


# The per-round table: each column, and what it shows of a round's figures.
ROUND_COLUMNS = (
    ("Round", lambda figures: figures["round"]),
    ("Stories", lambda figures: figures["stories"]),
    ("Opponent", lambda figures: "; ".join(figures["opponents"]) or "none"),
    ("Mode", lambda figures: ", ".join(figures["modes"]) or "—"),
    ("Answered", lambda figures: figures["answered"]),
    ("Fooled", lambda figures: figures["fooled"]),
    ("Fooled share", lambda figures: format_share(figures["fooled_share"])),
    ("Unmatched", lambda figures: figures["unmatched"]),
    ("Validated fooled share", lambda figures: format_share(figures["validated_fooled_share"])),
    ("Checks per story", lambda figures: format_value(figures["checks_mean"])),
    ("Bonuses paid", lambda figures: figures["bonuses_paid"]),
)


def _rounds_sections(rounds: dict, meaning: dict[str, str]) -> list[Section]:
    """Model-in-the-loop rounds: per round, the stories that fooled their opponent; and each
    round's model on every round's test stories. None when no story was written in a round."""
    if not rounds.get("by_round"):
        return []
    by_round = Table(
        [column for column, _ in ROUND_COLUMNS],
        [[cell(figures) for _, cell in ROUND_COLUMNS] for figures in rounds["by_round"]],
        _notes(meaning, ["rounds.by_round"]),
        "Per round",
    )
    evaluation = rounds.get("evaluation") or {}
    numbers = evaluation.get("rounds") or []

    def cell(figures: dict | None) -> str:
        if figures is None:
            return "—"
        return (
            f"accuracy {format_share(figures['accuracy'])}, MRR {format_value(figures['mrr'])} "
            f"(n {figures['n']})"
        )

    table = Table(
        ["Model", *(f"Round {number} test" for number in numbers)],
        [
            [
                f"{model['label']} (opponent of round "
                f"{', '.join(map(str, model['rounds_opposed']))})",
                *map(cell, row),
            ]
            for model, row in zip(
                evaluation.get("models") or [], evaluation.get("cells") or [], strict=True
            )
        ],
        _notes(meaning, ["rounds.evaluation"])
        + [
            (f"run {run}", f"could not be evaluated: {error}")
            for run, error in (evaluation.get("errors") or {}).items()
        ],
        "Each round's model on every round's test stories",
    )
    return [
        Section(
            "rounds",
            "Model-in-the-loop rounds",
            _help(meaning, "rounds"),
            [by_round, table],
            ["rounds_fooled", "rounds_evaluation"],
        )
    ]


def _help(meaning: dict[str, str], *keys: str) -> str:
    return " ".join(meaning.get(key, "") for key in keys).strip()


def _other_definitions(sections: list[Section], meaning: dict[str, str]) -> Section:
    """The definitions no table above shows, so that every key of the output is defined."""
    # A section's key is defined in its help text (the rounds' section, only with rounds).
    shown = set(_SECTION_KEYS) | {section.key for section in sections}
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


def _splits_table(analysis: dict, meaning: dict[str, str]) -> Table:
    splits = analysis.get("splits", {})
    rows = [
        [setting, *(format_value(splits.get(setting, {}).get(part)) for part in PARTS)]
        for setting in ("seen", "unseen")
    ]
    return Table(
        ["Setting", *PARTS], rows, _notes(meaning, ["splits.seen", "splits.unseen"]), "Splits"
    )


def _overlap_table(analysis: dict, meaning: dict[str, str]) -> Table:
    jaccard = analysis.get("jaccard", {})
    common = analysis.get("common_ngrams", {})
    rows = [
        [
            n,
            format_value(jaccard.get(n, {}).get("paired")),
            format_value(jaccard.get(n, {}).get("random")),
            format_value(common.get(n, {}).get("paired")),
            format_value(common.get(n, {}).get("random")),
        ]
        for n in ("1", "2", "3")
    ]
    keys = ["jaccard.paired", "jaccard.random", "common_ngrams.paired", "common_ngrams.random"]
    return Table(
        ["n", "Jaccard, paired", "Jaccard, random", "Common n-grams, paired", "Common, random"],
        rows,
        _notes(meaning, keys),
    )


def _per_proverb_table(analysis: dict, meaning: dict[str, str]) -> Table:
    rows = [
        [
            row["proverb"],
            format_value(row["proverb_compound"]),
            format_value(row["narrative_compound_mean"]),
            row["narratives"],
            row["positive"],
            row["negative"],
            row["neutral"],
        ]
        for row in analysis.get("sentiment", {}).get("per_proverb", [])
    ]
    return Table(
        [
            "Proverb",
            "Proverb compound",
            "Narratives' mean",
            "Narratives",
            "Positive",
            "Negative",
            "Neutral",
        ],
        rows,
        _notes(meaning, ["sentiment.per_proverb"]),
        "Per proverb",
    )


def _histogram_table(analysis: dict, meaning: dict[str, str]) -> Table:
    histogram = analysis.get("readability", {}).get("flesch_histogram", {})
    bins, counts = histogram.get("bins", []), histogram.get("counts", [])
    rows = [
        [f"{format_value(bins[i])} to {format_value(bins[i + 1])}", count]
        for i, count in enumerate(counts)
    ]
    return Table(
        ["Flesch reading ease", "Narratives"],
        rows,
        _notes(meaning, ["readability.flesch_histogram"]),
        "Distribution",
    )


CHOICE_LABELS = {
    "human": "Accuracy of workers",
    "model": "Accuracy of the model",
    "questions": "Questions answered by workers",
    "responses": "Worker answers",
    "model_questions": "Model answers",
}


def _human_tables(human: dict, meaning: dict[str, str]) -> list[Table]:
    ratings = [
        [criterion, source, format_value(v["mean"]), v["n"], format_value(v["std"])]
        for criterion, by_source in human.get("ratings", {}).items()
        for source, v in by_source.items()
    ]
    tests = [
        [t["criterion"], t["source_a"], t["source_b"], t["n_a"], t["n_b"]]
        + [format_value(t[key]) for key in ("mean_a", "mean_b", "t", "p_value")]
        for t in human.get("welch_t_tests", [])
    ]
    agreement = [
        [criterion, format_value(value), human.get("pairwise_agreement_items", {}).get(criterion)]
        for criterion, value in human.get("pairwise_agreement", {}).items()
    ]
    choice = human.get("choice_accuracy", {})
    accuracy = [
        [
            CHOICE_LABELS.get(key, key),
            (format_share if key in ("human", "model") else format_value)(value),
        ]
        for key, value in choice.items()
    ]
    return [
        Table(
            ["Criterion", "Source", "Mean", "n", "Std"],
            ratings,
            _notes(meaning, ["human_evaluation.ratings"]),
            "Mean rating per criterion and source",
        ),
        Table(
            ["Criterion", "Source A", "Source B", "n A", "n B", "Mean A", "Mean B", "t", "p"],
            tests,
            _notes(meaning, ["human_evaluation.welch_t_tests"]),
            "Welch's t-tests",
        ),
        Table(
            ["Criterion", "Pairwise agreement", "Items"],
            agreement,
            _notes(
                meaning,
                [
                    "human_evaluation.pairwise_agreement",
                    "human_evaluation.pairwise_agreement_items",
                ],
            ),
            "Agreement",
        ),
        Table(
            ["Multiple choice", "Value"],
            accuracy,
            _notes(meaning, ["human_evaluation.choice_accuracy"]),
            "Multiple-choice accuracy: humans beside the model",
        ),
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
    and the methods and data statement (Markdown, from annotation/analysis/methods.py)
    when given."""
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


def _section_markdown(section: Section) -> str:
    parts = [f"### {section.title}\n\n{markdown_cell(section.help)}"]
    for table in section.tables:
        if table.caption:
            parts.append(f"**{markdown_cell(table.caption)}**")
        parts.append(markdown_table(table.columns, table.rows) if table.rows else "(none)")
        parts += [f"- `{key}`: {markdown_cell(text)}" for key, text in table.notes]
    return "\n\n".join(parts)
