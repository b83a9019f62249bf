"""annotation.analysis.plots: each figure is a parseable SVG with its title, or "No data"."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from annotation.analysis import plots
from annotation.analysis.core import analyze
from annotation.task_parts.records import NarrativeRecord, RatingRecord

SVG = "{http://www.w3.org/2000/svg}"

FIGURES = [
    (plots.sentiment_scatter, "Proverb vs. narrative sentiment (VADER)"),
    (plots.sentiment_counts, "Positive and negative narratives per proverb"),
    (plots.readability_histogram, "Flesch reading ease of narratives"),
    (plots.rating_means, "Mean Likert rating by criterion and source"),
    (plots.overlap_bars, "Narrative–proverb n-gram overlap (Jaccard)"),
]


@pytest.fixture(scope="module")
def result():
    data = {
        (1, "Love is wonderful"): [
            "She loved the wonderful gift and smiled.",
            "The happy children laughed.",
        ],
        (2, "War is terrible"): [
            "The war destroyed everything and people cried.",
            "He lost his job and felt terrible.",
        ],
        (3, "The sky is blue"): ["The box is on the table.", "The sky was blue and calm."],
    }
    records = [
        NarrativeRecord(10 * pid + k, pid, proverb, text, "approved", f"w{k}")
        for (pid, proverb), texts in data.items()
        for k, text in enumerate(texts)
    ]
    ratings = [
        RatingRecord(10, "dataset", "overall", "r1", 4),
        RatingRecord(10, "dataset", "overall", "r2", 5),
        RatingRecord(11, "dataset", "fluency", "r1", 3),
        RatingRecord(7, "model:bart", "overall", "r1", 2),
        RatingRecord(7, "model:bart", "fluency", "r1", 3),
    ]
    return analyze(records, ratings=ratings)


def texts_of(svg: str) -> str:
    root = ET.fromstring(svg)
    return " ".join("".join(node.itertext()) for node in root.iter(f"{SVG}text"))


@pytest.mark.parametrize(("figure", "title"), FIGURES)
def test_figure_is_a_complete_svg_with_its_title(result, figure, title):
    svg = figure(result)
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    root = ET.fromstring(svg)  # parseable XML
    assert root.tag == f"{SVG}svg"
    assert title in texts_of(svg)
    assert "No data" not in texts_of(svg)
    # Self-contained: no external references (images, fonts, stylesheets, scripts).
    assert 'href="http' not in svg and "@import" not in svg and "<script" not in svg
    assert not list(root.iter(f"{SVG}image"))


@pytest.mark.parametrize(("figure", "title"), FIGURES)
def test_no_data(figure, title):
    for empty in ({}, analyze([]), None):
        svg = figure(empty)
        assert "No data" in texts_of(svg)
        assert title in texts_of(svg)


def test_scatter_reports_pearson_r(result):
    r = result["sentiment"]["pearson_r"]
    text = texts_of(plots.sentiment_scatter(result))
    assert f"Pearson r = {r:.2f}" in text
    assert "least-squares fit" in text


def test_scatter_without_a_fit_still_draws_points():
    result = {
        "sentiment": {
            "per_proverb": [{"proverb_compound": 0.0, "narrative_compound_mean": 0.3}],
            "pearson_r": None,
            "slope": None,
            "intercept": None,
        }
    }
    text = texts_of(plots.sentiment_scatter(result))
    assert "Pearson r undefined" in text and "No data" not in text


def test_rating_means_names_every_source(result):
    text = texts_of(plots.rating_means(result))
    for name in ("dataset", "model:bart", "overall", "fluency"):
        assert name in text


def test_labels_from_data_are_plain_text_not_mathtext():
    source, criterion = r"imported:Bad $\frac{1}{$ label", "$x^2$ fluency"
    result = analyze(
        [NarrativeRecord(1, 1, "Time is money", "Raj lost customers.", "approved", "w")],
        ratings=[RatingRecord(1, source, criterion, "r1", 4)],
    )
    text = texts_of(plots.rating_means(result))
    assert source in text and criterion in text


def test_same_input_same_svg(result):
    assert plots.overlap_bars(result) == plots.overlap_bars(result)


def test_integrity_flags_draws_each_flag_overall_and_per_batch():
    shares = {"pasted": 0.5, "near_duplicate": 0.25, "synthetic": 0.0}
    result = {
        "integrity": {
            "shares": shares,
            "by_batch": [
                {"batch": 4, "shares": {"pasted": 1.0, "near_duplicate": 0.0, "synthetic": 0.0}},
                {"batch": None, "shares": {"pasted": 0.0, "near_duplicate": 0.5}},
            ],
        }
    }
    text = texts_of(plots.integrity_flags(result))
    assert "Writing-integrity flags: share of narratives" in text
    for label in ("Pasted from outside", "Near-duplicate of another story", "Synthetic input"):
        assert label in text
    for group in ("all narratives", "batch 4", "imported"):
        assert group in text
    assert "No data" in texts_of(plots.integrity_flags({}))


ROUNDS = {
    "rounds": {
        "by_round": [
            {"round": 1, "answered": 0, "fooled_share": None, "validated_fooled_share": None},
            {"round": 2, "answered": 40, "fooled_share": 0.35, "validated_fooled_share": 0.3},
            {"round": 3, "answered": 25, "fooled_share": 0.6, "validated_fooled_share": None},
        ],
        "evaluation": {
            "rounds": [1, 2, 3],
            "models": [
                {"run": 4, "rounds_opposed": [2]},
                {"run": 9, "rounds_opposed": [3]},
            ],
            "cells": [
                [{"accuracy": 0.8, "n": 12}, {"accuracy": 0.25, "n": 8}, None],
                [{"accuracy": 0.9, "n": 12}, {"accuracy": 0.75, "n": 8}, None],
            ],
        },
    }
}


def test_rounds_fooled_draws_the_rounds_the_model_answered():
    text = texts_of(plots.rounds_fooled(ROUNDS))
    assert "Stories that fooled their opponent, per round" in text
    assert "round 2" in text and "(40 answered)" in text and "round 3" in text
    assert "round 1" not in text  # no opponent: nothing answered, nothing drawn as 0


def test_rounds_evaluation_writes_each_models_accuracy_on_each_rounds_test_stories():
    text = texts_of(plots.rounds_evaluation(ROUNDS))
    for shown in ("80%", "n=12", "25%", "75%", "run 4 (vs round 2)", "run 9 (vs round 3)"):
        assert shown in text
    assert text.count("—") == 2  # no test story: a dash, never 0%
    # Each cell's words in white on the dark shades (above 50%), black on the light ones.
    root = ET.fromstring(plots.rounds_evaluation(ROUNDS))
    fills = {
        "".join(node.itertext()): re.search(r"fill: (#\w+)", node.get("style", ""))
        for node in root.iter(f"{SVG}text")
        if "".join(node.itertext()).endswith("%")
    }
    assert {shown: fill and fill[1] for shown, fill in fills.items()} == {
        "80%": "#ffffff",
        "90%": "#ffffff",
        "75%": "#ffffff",
        "25%": None,  # black, matplotlib's default: no fill written
    }


@pytest.mark.parametrize("figure", [plots.rounds_fooled, plots.rounds_evaluation])
def test_rounds_figures_say_no_data_without_rounds(figure):
    for empty in ({}, {"rounds": {"by_round": [], "evaluation": None}}):
        assert "No data" in texts_of(figure(empty))
