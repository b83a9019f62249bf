"""Figures of the dataset analysis, as SVG text to inline in an HTML page.

Each figure function takes the analysis dict and returns a complete ``<svg>`` (text kept as
``<text>``, no external resources), or one that says "No data". Matplotlib's Figure and SVG
canvas, no pyplot: safe from requests and threads. No worker-written text is drawn (proverbs
are shown by rank); labels from data (sources, criteria) are plain text, mathtext off.
"""

from __future__ import annotations

import functools
import io
import threading
from collections.abc import Callable, Mapping
from typing import Any

import matplotlib
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from annotation.analysis.cards import statistic_value
from annotation.quality.integrity import FLAG_TITLES

FIGSIZE = (6.4, 3.8)
POSITIVE = "#2a9d55"
NEGATIVE = "#d1495b"
LINE = "#1f5fbf"
NEUTRAL = "#6c757d"
_LOCK = threading.Lock()
_COLOURS = matplotlib.colormaps["tab10"]  # series beyond the named colours
_RC = {
    "svg.fonttype": "none",  # keep text as <text>, no embedded glyph paths
    "svg.hashsalt": "parable",  # stable element ids, so the same input gives the same SVG
    "font.family": "sans-serif",
    "font.size": 9,
    "axes.titlesize": 11,
    # Labels come from data (sources, criteria): never read "$...$" as mathtext, which
    # fails on unbalanced input and would turn typed-in text into markup.
    "text.parse_math": False,
    "text.usetex": False,
}


def _figure(figsize: tuple[float, float]) -> Figure:
    figure = Figure(figsize=figsize, layout="constrained")
    FigureCanvasSVG(figure)
    return figure


def svg_drawing(
    title: str, draw: Callable[[Figure], bool], *, empty: str = "No data", figsize=FIGSIZE
) -> str:
    """Run ``draw`` on a fresh figure and return its SVG; one saying `empty` under the
    title when it draws nothing. The SVG writer reads its settings from the global rcParams
    only: they are set for one drawing under a lock, so concurrent requests do not interleave.
    """
    with _LOCK, matplotlib.rc_context(_RC):
        figure = _figure(figsize)
        if not draw(figure):
            figure = _figure(figsize)
            figure.suptitle(title)
            figure.text(0.5, 0.5, empty, ha="center", va="center", fontsize=14, color=NEUTRAL)
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def _drawing(title: str):
    """A figure function (its data in, SVG text out) from `draw(figure, data, title)`,
    which says whether it drew anything (svg_drawing says "No data" when not)."""

    def figure_function(draw: Callable[[Figure, Any, str], bool]) -> Callable[[Any], str]:
        @functools.wraps(draw)
        def svg(data) -> str:
            return svg_drawing(title, lambda figure: draw(figure, data, title))

        return svg

    return figure_function


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value


@_drawing("Proverb vs. narrative sentiment (VADER)")
def sentiment_scatter(figure: Figure, result: Mapping[str, Any], title: str) -> bool:
    """Proverb compound (x) against its narratives' mean compound (y), with the fit line."""
    rows = [
        row
        for row in statistic_value(result, "sentiment.per_proverb") or []
        if _number(row.get("proverb_compound")) and _number(row.get("narrative_compound_mean"))
    ]
    if not rows:
        return False
    x = [row["proverb_compound"] for row in rows]
    y = [row["narrative_compound_mean"] for row in rows]
    ax = figure.add_subplot()
    ax.scatter(x, y, s=14, color=NEUTRAL, alpha=0.75, label=f"proverbs ({len(rows)})")
    slope = statistic_value(result, "sentiment.slope")
    intercept = statistic_value(result, "sentiment.intercept")
    r = statistic_value(result, "sentiment.pearson_r")
    r_text = f"Pearson r = {r:.2f}" if _number(r) else "Pearson r undefined"
    if _number(slope) and _number(intercept):
        ends = [min(x), max(x)]
        ax.plot(
            ends,
            [slope * e + intercept for e in ends],
            color=LINE,
            linewidth=1.6,
            label=f"least-squares fit ({r_text})",
        )
    ax.set_xlim(-1.05, 1.05)
    ax.set_ylim(-1.05, 1.05)
    ax.axhline(0, color="#cccccc", linewidth=0.6, zorder=0)
    ax.axvline(0, color="#cccccc", linewidth=0.6, zorder=0)
    ax.set_xlabel("VADER compound of the proverb")
    ax.set_ylabel("mean VADER compound of its narratives")
    ax.set_title(f"{title}, {r_text}")
    ax.legend(loc="upper left", frameon=False)
    return True


@_drawing("Positive and negative narratives per proverb")
def sentiment_counts(figure: Figure, result: Mapping[str, Any], title: str) -> bool:
    """Per proverb (ordered by its own compound): positive narratives up, negative down."""
    rows = statistic_value(result, "sentiment.per_proverb") or []
    if not rows:
        return False
    rows = sorted(rows, key=lambda row: row.get("proverb_compound") or 0.0)
    ranks = list(range(1, len(rows) + 1))
    positive = [int(row.get("positive") or 0) for row in rows]
    negative = [-int(row.get("negative") or 0) for row in rows]
    ax = figure.add_subplot()
    width = 0.8 if len(rows) < 60 else 1.0
    ax.bar(ranks, positive, width=width, color=POSITIVE, label="positive (compound ≥ 0.05)")
    ax.bar(ranks, negative, width=width, color=NEGATIVE, label="negative (compound ≤ −0.05)")
    ax.axhline(0, color="#333333", linewidth=0.6)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{abs(value):g}"))
    ax.set_xlabel("proverbs, in increasing order of their own VADER compound")
    ax.set_ylabel("narratives (negative below the line)")
    ax.set_title(title)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
    return True


@_drawing("Flesch reading ease of narratives")
def readability_histogram(figure: Figure, result: Mapping[str, Any], title: str) -> bool:
    """Histogram of the narratives' Flesch reading ease, with the mean marked."""
    histogram = statistic_value(result, "readability.flesch_histogram") or {}
    bins = histogram.get("bins") or []
    counts = histogram.get("counts") or []
    if not counts or len(bins) != len(counts) + 1 or not any(counts):
        return False
    ax = figure.add_subplot()
    widths = [bins[i + 1] - bins[i] for i in range(len(counts))]
    ax.bar(bins[:-1], counts, width=widths, align="edge", color=LINE, edgecolor="white")
    mean = statistic_value(result, "readability.flesch_mean")
    if _number(mean):
        ax.axvline(mean, color=NEGATIVE, linewidth=1.4, label=f"mean {mean:.1f}")
        ax.legend(loc="upper left", frameon=False)
    ax.set_xlabel("Flesch reading ease (higher is easier)")
    ax.set_ylabel("narratives")
    ax.set_title(title)
    return True


@_drawing("Mean Likert rating by criterion and source")
def rating_means(figure: Figure, result: Mapping[str, Any], title: str) -> bool:
    """Grouped bars: for each criterion, the mean rating of each source."""
    ratings = statistic_value(result, "human_evaluation.ratings") or {}
    criteria = sorted(c for c, by_source in ratings.items() if by_source)
    if not criteria:
        return False
    sources = sorted({s for c in criteria for s in ratings[c]})
    ax = figure.add_subplot()
    width = 0.8 / len(sources)
    for k, source in enumerate(sources):
        xs, means = [], []
        for i, criterion in enumerate(criteria):
            mean = (ratings[criterion].get(source) or {}).get("mean")
            if _number(mean):
                xs.append(i - 0.4 + width * (k + 0.5))
                means.append(mean)
        ax.bar(xs, means, width=width, color=_COLOURS(k % 10), label=source)
    ax.set_xticks(range(len(criteria)), criteria)
    ax.set_ylim(1, 5)
    ax.set_ylabel("mean rating (1 to 5)")
    ax.set_title(title)
    ax.legend(
        loc="upper center",
        bbox_to_anchor=(0.5, -0.08),
        ncol=min(len(sources), 4),
        frameon=False,
        fontsize=8,
    )
    return True


@_drawing("Narrative–proverb n-gram overlap (Jaccard)")
def overlap_bars(figure: Figure, result: Mapping[str, Any], title: str) -> bool:
    """Paired vs. random-baseline Jaccard similarity of n-gram sets, one panel per n."""
    jaccard = statistic_value(result, "jaccard") or {}
    orders = [n for n in ("1", "2", "3") if isinstance(jaccard.get(n), Mapping)]
    values = [(jaccard[n].get("paired"), jaccard[n].get("random")) for n in orders]
    if not orders or not any(_number(v) for pair in values for v in pair):
        return False
    names = {"1": "unigrams", "2": "bigrams", "3": "trigrams"}
    axes = figure.subplots(1, len(orders), squeeze=False)[0]
    for ax, n, (paired, random) in zip(axes, orders, values, strict=True):
        heights = [v if _number(v) else 0.0 for v in (paired, random)]
        ax.bar([0, 1], heights, width=0.7, color=[LINE, NEUTRAL])
        for x, height in enumerate(heights):
            ax.annotate(
                f"{height:.3g}",
                (x, height),
                xytext=(0, 2),
                textcoords="offset points",
                ha="center",
                va="bottom",
                fontsize=8,
            )
        ax.set_xticks([0, 1], ["paired", "random"])
        ax.set_xlabel(names[n])
        ax.set_ylim(0, max(max(heights) * 1.25, 1e-4))
        ax.ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
    axes[0].set_ylabel("mean Jaccard similarity")
    figure.suptitle(title)
    return True


INTEGRITY_BATCHES = 6  # batches drawn beside the overall share (the table lists them all)


@_drawing("Writing-integrity flags: share of narratives")
def integrity_flags(figure: Figure, result: Mapping[str, Any], title: str) -> bool:
    """Share of narratives with each integrity flag: overall, and per batch (up to 6)."""
    shares = statistic_value(result, "integrity.shares") or {}
    codes = [code for code in FLAG_TITLES if _number(shares.get(code))]
    if not codes:
        return False
    groups = [("all narratives", shares)]
    for group in (statistic_value(result, "integrity.by_batch") or [])[:INTEGRITY_BATCHES]:
        label = f"batch {group['batch']}" if group.get("batch") else "imported"
        groups.append((label, group.get("shares") or {}))
    ax = figure.add_subplot()
    height = 0.8 / len(groups)
    for k, (label, values) in enumerate(groups):
        ys = [i - 0.4 + height * (k + 0.5) for i in range(len(codes))]
        widths = [values.get(code) if _number(values.get(code)) else 0.0 for code in codes]
        colour = NEUTRAL if k == 0 else _COLOURS((k - 1) % 10)
        ax.barh(ys, widths, height=height, color=colour, label=label)
    ax.set_yticks(range(len(codes)), [FLAG_TITLES[code] for code in codes])
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:.0%}"))
    ax.set_xlabel("share of narratives with the flag")
    ax.set_title(title)
    ax.legend(loc="lower right", frameon=False, fontsize=8)
    return True


@_drawing("Writing-integrity flags over the batch's submissions")
def integrity_drift(figure: Figure, drift: Mapping[str, Any], title: str) -> bool:
    """One line per flag: its share of the batch's stories in each window, in order."""
    windows = drift.get("windows") or []
    codes = drift.get("codes") or []
    if not windows or not codes:
        return False
    ax = figure.add_subplot()
    xs = range(1, len(windows) + 1)
    for k, code in enumerate(codes):
        ys = [window["shares"].get(code) or 0.0 for window in windows]
        ax.plot(xs, ys, marker="o", color=_COLOURS(k % 10), label=FLAG_TITLES[code])
    ax.set_ylim(0, 1)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:.0%}"))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(f"window of about {windows[0]['stories']} stories, in submission order")
    ax.set_ylabel("share of the window's stories")
    ax.set_title(title)
    ax.legend(loc="upper left", frameon=False, fontsize=8)
    return True


@_drawing("Stories that fooled their opponent, per round")
def rounds_fooled(figure: Figure, result: Mapping[str, Any], title: str) -> bool:
    """Per round, bars of the share of answered stories that fooled their opponent and of
    the validated share (fooling stories that count, over the stories that count)."""
    rounds = [
        figures
        for figures in statistic_value(result, "rounds.by_round") or []
        if _number(figures.get("fooled_share"))
    ]
    if not rounds:
        return False
    ax = figure.add_subplot()
    xs = range(len(rounds))
    for offset, key, colour, label in (
        (-0.2, "fooled_share", NEGATIVE, "fooled the model"),
        (0.2, "validated_fooled_share", LINE, "fooled it, and counts once validated"),
    ):
        heights = [f[key] if _number(f.get(key)) else 0.0 for f in rounds]
        ax.bar([x + offset for x in xs], heights, width=0.4, color=colour, label=label)
    ax.set_xticks(list(xs), [f"round {f['round']}\n({f['answered']} answered)" for f in rounds])
    ax.set_ylim(0, 1)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:.0%}"))
    ax.set_ylabel("share of the round's stories")
    ax.set_title(title)
    figure.legend(loc="outside lower center", ncols=2, frameon=False, fontsize=8)
    return True


@_drawing("Each round's model on every round's test stories (accuracy)")
def rounds_evaluation(figure: Figure, result: Mapping[str, Any], title: str) -> bool:
    """Each round's model (rows) on every round's test stories (columns): accuracy as a
    shade, written in each cell with its n; blank where there is no test story."""
    evaluation = statistic_value(result, "rounds.evaluation") or {}
    cells = evaluation.get("cells") or []
    rounds = evaluation.get("rounds") or []
    models = evaluation.get("models") or []
    if not any(cell for row in cells for cell in row):
        return False
    ax = figure.add_subplot()
    shades = [[cell["accuracy"] if cell else float("nan") for cell in row] for row in cells]
    ax.imshow(shades, cmap="Blues", vmin=0, vmax=1, aspect="auto")
    for i, row in enumerate(cells):
        for j, cell in enumerate(row):
            text = f"{cell['accuracy']:.0%}\nn={cell['n']}" if cell else "—"
            # White on the darker half of the shades, black on the lighter: readable on both.
            colour = "white" if cell and cell["accuracy"] > 0.5 else "black"
            ax.text(j, i, text, ha="center", va="center", fontsize=8, color=colour)
    ax.set_xticks(range(len(rounds)), [f"round {number}" for number in rounds])
    ax.set_yticks(
        range(len(models)),
        [
            f"run {model['run']} (vs round {', '.join(map(str, model['rounds_opposed']))})"
            for model in models
        ],
    )
    ax.set_xlabel("test stories of")
    ax.set_title(title)
    return True
