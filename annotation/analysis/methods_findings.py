"""What the methods statement says of what the data shows: integrity controls and flags,
agreement and human evaluation, and ePiC's Tables 1-3, sentiment and readability;
`dataset_parts_register` registers annotation's parts of annotation.analysis.methods."""

from __future__ import annotations

from annotation.analysis.cards import (
    COLLECTION_KEYS,
    OVERLAP_COLUMNS,
    TABLE_2_KEYS,
    Table,
    overlap_rows,
    statistic_label,
    statistic_value,
)
from annotation.analysis.methods import Methods, MethodsScope, methods_part_register
from annotation.analysis.methods_collection import (
    design_part,
    imported_part,
    items_part,
    scope_part,
    workers_part,
)
from annotation.analysis.methods_rounds import rounds_part
from annotation.models import WritingCalibration
from annotation.quality.calibration import accuracy_text
from annotation.quality.integrity import FLAG_TITLES, IntegritySettings
from annotation.quality.writing_score import Calibration
from common.prose import noun_for, p_value_text, paper_number, plural, share_text
from crowd.models import BatchPledge


def _integrity_part(doc: Methods, scope: MethodsScope) -> None:
    integrity = scope.analysis.get("integrity") or {}
    doc.heading("Integrity controls")
    said = []
    if scope.collected:
        recorded = doc.figure(
            integrity.get("with_record"),
            "narratives with a writing record",
            "Dashboard → Writing integrity (integrity.with_record)",
        )
        said.append(
            f"the task page kept a content-blind writing record (characters typed, pasted, "
            "inserted without keystrokes or by script, deleted; key rhythm, pauses and time "
            f"away from the page; never the keys or the text) for {recorded} of the "
            f"{plural(scope.collected, 'narrative')} collected here"
        )
    checked = integrity.get("checked")
    if checked:
        compared = doc.figure(
            checked,
            "narratives compared by the similarity check",
            "Dashboard → Writing integrity (integrity.checked)",
        )
        said.append(
            f"{compared} {noun_for(checked, 'narrative')} were compared with the other narratives "
            "of their proverb (all-MiniLM-L6-v2 cosine similarity and name-blind word "
            "trigrams)"
            + (
                ", and each collected here with its worker's earlier narratives"
                if scope.collected
                else ""
            )
        )
    for batch in scope.batches:
        settings = IntegritySettings.stored(batch.settings)
        used = []
        if settings.refuse_paste:
            used.append("pasting was refused")
        if batch.pledge:
            pledges = BatchPledge.objects.filter(batch=batch).count()
            agreed = doc.figure(
                pledges,
                f"pledges agreed, batch #{batch.pk}",
                "Review queue; the export's pledged_at",
            )
            used.append(
                f"workers agreed to a pledge before their first task ({agreed} "
                f"{noun_for(pledges, 'worker')}): “{batch.pledge}”"
            )
        if settings.canary_word:
            used.append(
                "the task text carried a hidden canary instruction, invisible to sighted "
                "readers and screen readers but carried by a copy of the text: "
                f"“{settings.canary_text}”"
            )
        if used:
            said.append(f"in batch #{batch.pk}, " + "; ".join(used))
    if not said:
        doc.paragraph("No integrity control applies to the narratives in scope.")
        return
    text = "; ".join(said)
    doc.paragraph(text[0].upper() + text[1:] + ".")
    shares = integrity.get("shares") or {}
    rows = [
        [
            FLAG_TITLES[code],
            doc.figure(
                shares[code],
                f"share flagged: {FLAG_TITLES[code]}",
                f"Dashboard → Writing integrity (integrity.shares.{code})",
                text=share_text(shares[code]),
            ),
            scope.meaning.get(f"integrity.shares.{code}", ""),
        ]
        for code in FLAG_TITLES
        if shares.get(code)
    ]
    if rows:
        doc.table(
            Table(
                ["Flag", "Share of narratives", "Definition"],
                rows,
                caption="Share of the narratives in scope each flag marked (flags informed "
                "review; none rejected a narrative by itself)",
            )
        )
    for calibration in WritingCalibration.objects.filter(batch__in=scope.batches).order_by(
        "batch_id"
    ):
        fitted = Calibration.from_dict(calibration.fitted)
        doc.figure(
            fitted.cv_accuracy,
            f"calibration accuracy, batch #{calibration.batch_id}",
            "Narrative page → writing-process score",
            text=f"{fitted.cv_accuracy:.0%}",
        )
        doc.paragraph(
            f"The writing-process score of batch #{calibration.batch_id} was calibrated on a "
            f"pilot of {plural(fitted.composed, 'narrative')} known to be composed and "
            f"{paper_number(fitted.transcribed)} known to be transcribed (logistic "
            f"regression; {accuracy_text(fitted)})."
        )


def _agreement_part(doc: Methods, scope: MethodsScope) -> None:
    human = scope.analysis.get("human_evaluation") or {}
    agreement = human.get("pairwise_agreement") or {}
    choice = human.get("choice_accuracy") or {}
    if not agreement and choice.get("human") is None:
        return
    doc.heading("Agreement and human evaluation")
    rows = [
        [
            criterion,
            doc.figure(
                value,
                f"pairwise agreement, {criterion}",
                "Dashboard → Human evaluation (human_evaluation.pairwise_agreement)",
            ),
            paper_number((human.get("pairwise_agreement_items") or {}).get(criterion)),
        ]
        for criterion, value in agreement.items()
    ]
    if rows:
        doc.table(
            Table(["Criterion", "Pairwise agreement", "Narratives rated twice or more"], rows)
        )
        doc.paragraph(scope.meaning["human_evaluation.pairwise_agreement"])
    if choice.get("human") is not None:
        accuracy = doc.figure(
            choice["human"],
            "choice accuracy, workers",
            "Dashboard → Human evaluation (human_evaluation.choice_accuracy.human)",
            text=share_text(choice["human"]),
        )
        doc.paragraph(
            f"Workers chose the right proverb in {accuracy} of their answers to "
            f"{plural(choice.get('questions') or 0, 'multiple-choice question')}. "
            + scope.meaning["human_evaluation.choice_accuracy"]
        )


def _dataset_part(doc: Methods, scope: MethodsScope) -> None:
    """ePiC's Tables 1-3 as the dashboard's tables, and its sentiment and readability."""
    analysis = scope.analysis
    doc.heading("Dataset")
    for section, keys, caption in (
        ("Collection", COLLECTION_KEYS, "Statistics of narrative collection"),
        ("Dataset statistics", TABLE_2_KEYS, "Dataset statistics (approved narratives)"),
    ):
        rows = []
        for key in keys:
            label, where = statistic_label(key), f"Dashboard → {section} ({key})"
            rows.append([label, doc.figure(statistic_value(analysis, key), label, where)])
        doc.table(Table(["Statistic", "Value"], rows, caption=caption))
    unknown = (analysis.get("collection") or {}).get("unknown_writer")
    if unknown and scope.collected:
        doc.paragraph(
            f"The worker figures cover the narratives collected here: the writers of the "
            f"other {plural(unknown, 'narrative')} (imported) are unknown."
        )
    elif unknown:
        doc.paragraph(
            f"The writers of the {plural(unknown, 'narrative')} are unknown (imported), and so "
            "are the worker figures."
        )
    doc.table(
        Table(
            OVERLAP_COLUMNS,
            [[n, *map(paper_number, figures)] for n, *figures in overlap_rows(analysis)],
            caption="Jaccard similarity and common n-grams between proverbs and narratives, "
            "beside proverbs assigned at random",
        )
    )
    doc.sources.append(("Lexical overlap (table)", "table", "Dashboard → Lexical overlap"))
    _sentiment(doc, analysis)
    _readability(doc, analysis)


def _sentiment(doc: Methods, analysis: dict) -> None:
    sentiment = analysis.get("sentiment") or {}
    if not analysis.get("narratives"):
        return
    where = "Dashboard → Sentiment (sentiment.{})"
    mean = doc.figure(
        sentiment.get("narrative_compound_mean"),
        "mean VADER compound of narratives",
        where.format("narrative_compound_mean"),
    )
    counts = [
        doc.figure(sentiment.get(kind), f"{kind} narratives", where.format(kind))
        for kind in ("positive", "negative", "neutral")
    ]
    verb = "is" if sentiment.get("positive") == 1 else "are"
    text = (
        f"Sentiment (VADER compound score of the whole text, positive from 0.05, negative up "
        f"to -0.05): the narratives' mean compound is {mean}; by that score {counts[0]} "
        f"{verb} positive, {counts[1]} negative and {counts[2]} neutral."
    )
    r = sentiment.get("pearson_r")
    proverbs = len(sentiment.get("per_proverb") or [])
    if r is None:
        text += (
            f" Across {plural(proverbs, 'proverb')}, the correlation between a proverb's "
            "compound and its narratives' mean compound is undefined (fewer than two proverbs, "
            "or a constant score)."
        )
    else:
        shown = doc.figure(
            r, "Pearson r, proverb against narratives' sentiment", where.format("pearson_r")
        )
        p = doc.figure(
            sentiment.get("p_value"),
            "p-value of that correlation",
            where.format("p_value"),
            text=p_value_text(sentiment.get("p_value")),
        )
        p_clause = f"p {p}" if p.startswith("<") else f"p = {p}"
        text += (
            f" Across {plural(proverbs, 'proverb')}, a proverb's compound and its narratives' "
            f"mean compound correlate with Pearson r = {shown} ({p_clause}; "
            f"least-squares slope {paper_number(sentiment.get('slope'))})."
        )
    doc.paragraph(text)


def _readability(doc: Methods, analysis: dict) -> None:
    readability = analysis.get("readability") or {}
    if readability.get("flesch_mean") is None:
        return
    where = "Dashboard → Readability (readability.{})"
    figures = {
        name: doc.figure(
            readability.get(f"flesch_{name}"),
            f"Flesch reading ease, {name}",
            where.format(f"flesch_{name}"),
        )
        for name in ("mean", "median", "min", "max", "std")
    }
    doc.paragraph(
        f"Readability: the Flesch reading ease of the narratives (textstat 0.7.2's rules, as "
        f"the ePiC paper measured it) has mean {figures['mean']}, median {figures['median']} "
        f"and standard deviation {figures['std']}, from {figures['min']} to {figures['max']}."
    )


def dataset_parts_register() -> None:
    """annotation's own parts of the statement (AnnotationConfig.ready)."""
    for order, key, write in (
        (100, "scope", scope_part),
        (200, "items", items_part),
        (300, "design", design_part),
        (400, "workers", workers_part),
        (500, "imported", imported_part),
        (600, "integrity", _integrity_part),
        (700, "agreement", _agreement_part),
        (800, "dataset", _dataset_part),
        (820, "rounds", rounds_part),
    ):
        methods_part_register(key=key, order=order, write=write)
