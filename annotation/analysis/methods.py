"""A methods and data statement, generated from what Parable holds: for a paper's methods
section, in Markdown or LaTeX.

`methods_document` reads the batches in scope (task design, instructions, providers,
qualification, pay, review outcomes, integrity controls) and takes every dataset figure
from `analysis`, the dashboard's own analysis of the same scope (tables in the shape of
ePiC's Tables 1-3 are the dashboard's tables). Its last table names, for each figure,
where the dashboard or the admin shows it. `methods_markdown` and `methods_latex` render
the same document.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db.models import Count, Q

from annotation.analysis.cards import Table, analysis_sections, format_value, markdown_table
from annotation.analysis.methods_sections import methods_sections
from annotation.analysis.selectors import definitions
from annotation.models import Proverb, QualificationAttempt, VariantGroup, WritingCalibration
from annotation.quality.integrity import FLAG_TITLES, IntegritySettings
from crowd.models import Assignment, Batch, BatchPledge

# How many distinct rejection messages are listed (the rest are counted together).
TOP_REASONS = 5


@dataclass
class Methods:
    """The statement as blocks: ("h", title), ("p", text), ("quote", text), ("table", Table).
    `sources` pairs each figure named in the text with where the dashboard shows it."""

    blocks: list[tuple[str, object]] = field(default_factory=list)
    sources: list[tuple[str, str, str]] = field(default_factory=list)

    def figure(self, value, label: str, source: str) -> str:
        """The value as text, noted with its label and source for the sources table."""
        text = format_value(value)
        self.sources.append((label, text, source))
        return text


def _batches(batch_ids: Sequence[int] | None) -> list[Batch]:
    """The scope's batches: those given, else every batch with stored work."""
    batches = Batch.objects.order_by("id")
    if batch_ids:
        return list(batches.filter(pk__in=batch_ids))
    return list(batches.filter(items__assignments__status__in=Assignment.STORED).distinct())


def _minutes(assignments) -> list[float]:
    return [
        (submitted - started).total_seconds() / 60
        for started, submitted in assignments.values_list("started_at", "submitted_at")
        if submitted is not None
    ]


def methods_document(*, analysis: dict, batches: Sequence[int] | None = None) -> Methods:
    """The methods and data statement of the scope that `analysis` (the dashboard's
    analysis result, `dataset_analysis`) was computed on."""
    doc = Methods()
    meaning = definitions()
    chosen = _batches(batches or analysis.get("scope", {}).get("batches"))
    _items(doc)
    _design(doc, chosen)
    _workers_and_review(doc, chosen)
    _integrity(doc, chosen, analysis, meaning)
    _agreement(doc, analysis, meaning)
    _tables(doc, analysis)
    for write_section in methods_sections():  # apps above annotation (the baselines)
        write_section(doc)
    doc.blocks.append(("h", "Where each figure comes from"))
    doc.blocks.append(("table", Table(["Figure", "Value", "Source"], doc.sources)))
    return doc


def _items(doc: Methods) -> None:
    counts = Proverb.objects.aggregate(
        total=Count("id"), curated=Count("id", filter=Q(status=Proverb.Status.CURATED))
    )
    merged = VariantGroup.objects.filter(status=VariantGroup.Status.MERGED).count()
    total = doc.figure(counts["total"], "proverbs imported", "Admin → Proverbs")
    curated = doc.figure(counts["curated"], "proverbs curated", "Admin → Proverbs (status curated)")
    merged = doc.figure(merged, "variant groups merged", "Admin → Variant groups (merged)")
    doc.blocks.append(("h", "Items and curation"))
    doc.blocks.append(
        (
            "p",
            f"Of {total} proverbs imported, {curated} were curated for the study; {merged} "
            "groups of lexical variants (same normalised text or embedding similarity) were "
            "merged into one proverb each before any task was published.",
        )
    )


def _design(doc: Methods, batches: list[Batch]) -> None:
    doc.blocks.append(("h", "Task design and providers"))
    if not batches:
        doc.blocks.append(("p", "No batch in scope has submitted work yet."))
        return
    rows = []
    for batch in batches:
        gold = batch.items.filter(is_gold=True).count()
        attempts = QualificationAttempt.objects.filter(batch=batch).aggregate(
            total=Count("id"), passed=Count("id", filter=Q(passed=True))
        )
        rows.append(
            [
                f"#{batch.pk} {batch.name}",
                batch.get_task_type_display(),
                batch.get_provider_display(),
                batch.target_per_item,
                batch.per_worker_cap or "none",
                f"{batch.reward_cents / 100:.2f}",
                batch.time_allowed_seconds // 60,
                gold or "none",
                f"{attempts['passed']} of {attempts['total']} passed"
                if attempts["total"]
                else "none",
            ]
        )
    doc.blocks.append(
        (
            "p",
            "Each batch published items to crowd workers through the provider named below; "
            "each item was to be done by distinct workers (wanted per item), no worker could "
            "take more than the per-worker cap; gold items with known answers checked "
            "workers during the work, and a qualification test, where a batch had one, "
            "before it.",
        )
    )
    doc.blocks.append(
        (
            "table",
            Table(
                [
                    "Batch",
                    "Task",
                    "Provider",
                    "Wanted per item",
                    "Per-worker cap",
                    "Reward per task",
                    "Minutes allowed",
                    "Gold items",
                    "Qualification test",
                ],
                rows,
                caption="Batches in scope (Admin → Batches)",
            ),
        )
    )
    for batch in batches:
        doc.blocks.append(("p", f"Instructions of batch #{batch.pk}, as workers read them:"))
        doc.blocks.append(("quote", batch.instructions))


def _workers_and_review(doc: Methods, batches: list[Batch]) -> None:
    stored = Assignment.objects.filter(item__batch__in=batches, status__in=Assignment.STORED)
    per_worker = list(
        stored.values("worker_id").annotate(n=Count("id")).values_list("n", flat=True)
    )
    outcomes = Counter(
        dict(stored.order_by().values("status").annotate(n=Count("id")).values_list("status", "n"))
    )
    reasons = Counter(
        message.strip() or "(no message)"
        for message in stored.filter(status=Assignment.Status.REJECTED).values_list(
            "review_message", flat=True
        )
    )
    doc.blocks.append(("h", "Workers, pay and review"))
    if not per_worker:
        doc.blocks.append(("p", "No work has been submitted in these batches."))
        return
    workers_page, queue = "Admin → Workers → statistics", "Review queue counts"
    figures = {
        "workers": doc.figure(len(per_worker), "workers", workers_page),
        "tasks": doc.figure(sum(per_worker), "tasks submitted", queue),
        "median": doc.figure(
            statistics.median(per_worker), "tasks per worker, median", workers_page
        ),
        "max": doc.figure(max(per_worker), "tasks per worker, max", workers_page),
        "approved": doc.figure(outcomes[Assignment.Status.APPROVED], "tasks approved", queue),
        "rejected": doc.figure(outcomes[Assignment.Status.REJECTED], "tasks rejected", queue),
        "awaiting": doc.figure(
            outcomes[Assignment.Status.SUBMITTED], "tasks awaiting review", queue
        ),
    }
    text = (
        "{workers} workers submitted {tasks} tasks (median {median}, at most {max} per "
        "worker). Reviewers approved {approved}, rejected {rejected} and left {awaiting} "
        "awaiting review."
    ).format(**figures)
    doc.blocks.append(("p", text))
    if reasons:
        rows = [[reason, n] for reason, n in reasons.most_common(TOP_REASONS)]
        others = sum(reasons.values()) - sum(n for _, n in rows)
        if others:
            rows.append([f"{len(reasons) - TOP_REASONS} other messages", others])
        doc.blocks.append(
            ("table", Table(["Rejection message", "Tasks"], rows, caption="Rejections by reason"))
        )
    pay_rows = []
    for batch in batches:
        minutes = _minutes(stored.filter(item__batch=batch))
        if not minutes:
            continue
        median = statistics.median(minutes)
        hourly = batch.reward_cents / 100 / (median / 60) if median > 0 else None
        pay_rows.append(
            [
                f"#{batch.pk}",
                f"{batch.reward_cents / 100:.2f}",
                f"{median:.1f}",
                f"{hourly:.2f}" if hourly is not None else "—",
            ]
        )
    doc.blocks.append(
        (
            "table",
            Table(
                ["Batch", "Reward per task", "Median minutes per task", "Hourly rate"],
                pay_rows,
                caption="Realised pay: the reward over the median time from reservation to "
                "submission (bonuses not included; in the provider's currency)",
            ),
        )
    )


def _integrity(doc: Methods, batches: list[Batch], analysis: dict, meaning: dict) -> None:
    doc.blocks.append(("h", "Integrity controls"))
    controls = [
        "every free-text task page kept a content-blind writing record (characters typed, "
        "pasted, inserted without keystrokes or by script, deleted; key rhythm, pauses and "
        "time away from the page; never the keys or text), and every story was compared "
        "with the other stories of its proverb and its worker's earlier stories "
        "(all-MiniLM-L6-v2 cosine similarity and name-blind word trigrams)"
    ]
    for batch in batches:
        settings = IntegritySettings.stored(batch.settings)
        used = []
        if settings.refuse_paste:
            used.append("pasting was refused")
        if batch.pledge:
            agreed = doc.figure(
                BatchPledge.objects.filter(batch=batch).count(),
                f"pledges agreed, batch #{batch.pk}",
                "Review queue; the export's pledged_at",
            )
            used.append(
                f"workers agreed to a pledge before their first task ({agreed} workers): "
                f"“{batch.pledge}”"
            )
        if settings.canary_word:
            used.append(
                "the task text carried a hidden canary instruction, invisible to sighted "
                "readers and screen readers but carried by a copy of the text: "
                f"“{settings.canary_text}”"
            )
        if used:
            controls.append(f"in batch #{batch.pk}, " + "; ".join(used))
    doc.blocks.append(("p", "Controls: " + "; ".join(controls) + "."))
    shares = (analysis.get("integrity") or {}).get("shares") or {}
    rows = [
        [
            FLAG_TITLES[code],
            doc.figure(
                shares[code],
                f"share flagged: {FLAG_TITLES[code]}",
                f"Dashboard → Writing integrity (integrity.shares.{code})",
            ),
            meaning.get(f"integrity.shares.{code}", ""),
        ]
        for code in FLAG_TITLES
        if shares.get(code)
    ]
    doc.blocks.append(
        (
            "table",
            Table(
                ["Flag", "Share of stories", "Definition"],
                rows,
                caption="Share of the stories in scope each flag marked (flags informed "
                "review; none rejected a story by itself)",
            ),
        )
    )
    calibrations = WritingCalibration.objects.filter(batch__in=batches).order_by("batch_id")
    for calibration in calibrations:
        fitted = calibration.fitted
        accuracy = doc.figure(
            calibration.cv_accuracy,
            f"calibration accuracy, batch #{calibration.batch_id}",
            "Narrative page → writing-process score",
        )
        doc.blocks.append(
            (
                "p",
                f"The writing-process score of batch #{calibration.batch_id} was calibrated "
                f"on a pilot of {fitted['composed']} stories known to be composed and "
                f"{fitted['transcribed']} known to be transcribed (logistic regression; "
                f"cross-validated accuracy {accuracy} over {fitted['folds']} folds).",
            )
        )


def _agreement(doc: Methods, analysis: dict, meaning: dict) -> None:
    human = analysis.get("human_evaluation") or {}
    agreement = human.get("pairwise_agreement") or {}
    choice = human.get("choice_accuracy") or {}
    doc.blocks.append(("h", "Agreement and human evaluation"))
    rows = [
        [
            criterion,
            doc.figure(
                value,
                f"pairwise agreement, {criterion}",
                "Dashboard → Human evaluation (human_evaluation.pairwise_agreement)",
            ),
            (human.get("pairwise_agreement_items") or {}).get(criterion),
        ]
        for criterion, value in agreement.items()
    ]
    if rows:
        doc.blocks.append(("table", Table(["Criterion", "Pairwise agreement", "Items"], rows)))
        doc.blocks.append(("p", meaning["human_evaluation.pairwise_agreement"]))
    if choice.get("human") is not None:
        doc.blocks.append(
            (
                "p",
                "Multiple-choice accuracy: humans "
                + doc.figure(
                    choice["human"],
                    "choice accuracy, humans",
                    "Dashboard → Human evaluation (human_evaluation.choice_accuracy.human)",
                )
                + f" over {choice.get('questions')} questions. "
                + meaning["human_evaluation.choice_accuracy"],
            )
        )
    if not rows and choice.get("human") is None:
        doc.blocks.append(("p", "No ratings or multiple-choice answers in scope yet."))


def _tables(doc: Methods, analysis: dict) -> None:
    """ePiC's Tables 1-3, as the dashboard's Collection, Dataset statistics and Lexical
    overlap tables."""
    sections = {section.key: section for section in analysis_sections(analysis)}
    doc.blocks.append(("h", "Dataset"))
    captions = (
        ("collection", 0, "Table 1: Statistics of narrative collection"),
        ("dataset", 0, "Table 2: Dataset statistics"),
        (
            "overlap",
            0,
            "Table 3: Jaccard similarity and common n-grams between proverbs and "
            "narratives (random assignment beside)",
        ),
    )
    for key, index, caption in captions:
        table = sections[key].tables[index]
        if table.columns[-1] == "Definition":  # statistic, value, definition
            rows = [row[:2] for row in table.rows]
            columns = table.columns[:2]
            for statistic, value in rows:
                doc.sources.append(
                    (statistic, value, f"Dashboard → {sections[key].title} ({statistic})")
                )
        else:
            rows, columns = table.rows, table.columns
            doc.sources.append((caption, "table", f"Dashboard → {sections[key].title}"))
        doc.blocks.append(("table", Table(columns, rows, caption=caption)))


def _render(doc: Methods, title: str, renderers: dict) -> str:
    """The document as text: `renderers` turn each kind of block into text."""
    parts = [title, *(renderers[kind](content) for kind, content in doc.blocks)]
    return "\n\n".join(parts) + "\n"


def _markdown_table(table: Table) -> str:
    caption = f"**{table.caption}**\n\n" if table.caption else ""
    return caption + (markdown_table(table.columns, table.rows) if table.rows else "(none)")


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
            "table": _markdown_table,
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
}


def latex_escape(value) -> str:
    """A value as LaTeX text: every special character escaped."""
    text = value if isinstance(value, str) else format_value(value)
    return "".join(_LATEX.get(character, character) for character in text)


def methods_latex(doc: Methods) -> str:
    return _render(
        doc,
        r"\section*{Methods and data statement}",
        {
            "h": lambda text: rf"\subsection*{{{latex_escape(text)}}}",
            "p": latex_escape,
            "quote": lambda text: (
                "\\begin{quote}\n"
                + "\n\n".join(latex_escape(line) for line in str(text).splitlines() if line)
                + "\n\\end{quote}"
            ),
            "table": _latex_table,
        },
    )


def _latex_table(table: Table) -> str:
    lines = [r"\begin{table}[ht]", r"\centering", r"\small"]
    if table.caption:
        lines.append(rf"\caption{{{latex_escape(table.caption)}}}")
    lines.append(r"\begin{tabular}{" + "l" * len(table.columns) + "}")
    lines.append(r"\hline")
    lines.append(" & ".join(latex_escape(column) for column in table.columns) + r" \\")
    lines.append(r"\hline")
    lines += [" & ".join(latex_escape(value) for value in row) + r" \\" for row in table.rows]
    lines += [r"\hline", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines)
