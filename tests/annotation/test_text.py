"""Tests of annotation/text.py: the shared overlap cases and hand-computed checks."""

import itertools
import json
import random
from pathlib import Path

import pytest

from annotation.text import (
    OverlapRules,
    Token,
    check_overlap,
    copy_shingles,
    load_stopwords,
    ngrams,
    normalize_text,
    overlap_tokens,
    simple_token_spans,
    simple_tokens,
    word_count,
)

CASES_PATH = Path(__file__).resolve().parents[1] / "cases" / "overlap.json"
CASES = json.loads(CASES_PATH.read_text(encoding="utf-8"))
BIRDS = "Birds of a feather flock together"


def case_narrative(case: dict) -> str:
    """The narrative a case checks: `repeat: n` joins n copies with single spaces."""
    return " ".join([case["narrative"]] * case.get("repeat", 1))


def case_rules(case: dict) -> OverlapRules:
    return OverlapRules.from_dict({**CASES["rules"], **case.get("rules", {})})


@pytest.mark.parametrize("case", CASES["cases"], ids=[case["name"] for case in CASES["cases"]])
def test_shared_case(case):
    result = check_overlap(case["proverb"], case_narrative(case), case_rules(case))
    assert result == case["expected"]


@pytest.mark.parametrize("case", CASES["cases"], ids=[case["name"] for case in CASES["cases"]])
def test_highlights_mark_what_the_rules_count(case):
    """Every shared content word is marked; a marked small word is in a run of proverb
    words (what the phrase rule measures); nothing else is marked."""
    tokens = overlap_tokens(case_narrative(case))
    expected = case["expected"]
    marked = [index for index, t in enumerate(tokens) if [t.start, t.end] in expected["highlights"]]
    assert len(marked) == len(expected["highlights"])
    proverb = [token.norm for token in overlap_tokens(case["proverb"])]
    pairs = set(itertools.pairwise(proverb))
    shared = set(expected["shared_words"])
    content = set(expected["shared_content_words"])
    for index, token in enumerate(tokens):
        in_run = (index > 0 and (tokens[index - 1].norm, token.norm) in pairs) or (
            index + 1 < len(tokens) and (token.norm, tokens[index + 1].norm) in pairs
        )
        counted = token.norm in shared and (token.norm in content or in_run)
        assert (index in marked) == counted, (index, token)
    assert expected["highlights"] == sorted(expected["highlights"])


def test_a_lone_small_word_of_the_proverb_is_not_highlighted():
    text = "The flock slept, and the birds of a feather sang."
    result = check_overlap("The birds of a feather flock together", text, OverlapRules(min_words=1))
    marked = [text[start:end] for start, end in result["highlights"]]
    # The first "The" begins no run of proverb words ("the flock" is not the proverb's);
    # "the birds" is one, so that "the" counts toward the phrase rule.
    assert marked == ["flock", "the", "birds", "of", "a", "feather"]
    assert result["shared_content_words"] == ["flock", "birds", "feather"]


def test_cases_file_has_enough_cases_and_default_rules():
    assert len(CASES["cases"]) >= 45
    assert len({case["name"] for case in CASES["cases"]}) == len(CASES["cases"])
    assert CASES["rules"] == OverlapRules().to_dict()


def test_birds_of_a_feather_by_hand():
    # They(0-4) were(5-9) birds(10-15) of(16-18) a(19-20) feather(21-28) .
    result = check_overlap(BIRDS, "They were birds of a feather.")
    assert result == {
        "word_count": 6,
        "shared_words": ["birds", "of", "a", "feather"],
        "shared_content_words": ["birds", "feather"],
        "highlights": [[10, 15], [16, 18], [19, 20], [21, 28]],
        "overlap": {
            # proverb: 6 words, 5 bigrams, 4 trigrams, all distinct
            "1": {"shared": 4, "proverb": 6, "ratio": 0.6667},
            "2": {"shared": 3, "proverb": 5, "ratio": 0.6},
            "3": {"shared": 2, "proverb": 4, "ratio": 0.5},
        },
        "longest_shared_ngram": ["birds", "of", "a", "feather"],
        "violations": [
            {
                "rule": "ngram",
                "message": 'Your story repeats the phrase "birds of a feather" from the proverb. '
                "Rephrase it.",
                "words": ["birds", "of", "a", "feather"],
            },
            {
                "rule": "too_short",
                "message": "Your story has 6 words; write at least 20.",
                "words": [],
            },
        ],
        "ok": False,
    }


def test_shared_bigram_passes_and_shared_trigram_fails():
    rules = OverlapRules(min_words=1)
    assert check_overlap(BIRDS, "Two of a kind.", rules)["ok"] is True
    result = check_overlap(BIRDS, "Birds of a kind.", rules)
    assert result["longest_shared_ngram"] == ["birds", "of", "a"]
    assert [violation["rule"] for violation in result["violations"]] == ["ngram"]


def test_content_word_limit_counts_distinct_words_without_stopwords():
    rules = OverlapRules(min_words=1)
    two = check_overlap(BIRDS, "A flock, a flock, together at last.", rules)
    assert two["shared_content_words"] == ["flock", "together"]
    assert two["ok"] is True
    three = check_overlap(BIRDS, "Together, a flock of birds.", rules)
    assert three["violations"][0] == {
        "rule": "content_words",
        "message": "Your story shares 3 words with the proverb (together, flock, birds); "
        "at most 2 are allowed.",
        "words": ["together", "flock", "birds"],
    }


def test_word_limits_are_inclusive():
    rules = OverlapRules(min_words=3, max_words=4)
    assert check_overlap(BIRDS, "one two three", rules)["ok"] is True
    assert check_overlap(BIRDS, "one two three four", rules)["ok"] is True
    assert check_overlap(BIRDS, "one two", rules)["violations"][0]["message"] == (
        "Your story has 2 words; write at least 3."
    )
    assert check_overlap(BIRDS, "one two three four five", rules)["violations"][0]["message"] == (
        "Your story has 5 words; write at most 4."
    )


def test_empty_text_is_too_short_only():
    result = check_overlap(BIRDS, "")
    assert result["word_count"] == 0
    assert [violation["rule"] for violation in result["violations"]] == ["too_short"]
    assert result["highlights"] == []
    assert result["longest_shared_ngram"] == []


def test_ratio_rounds_half_up():
    # 1/32 = 0.03125 exactly; Python's round() would give 0.0312 (half to even).
    proverb = " ".join(f"w{i:02d}" for i in range(1, 33))
    result = check_overlap(proverb, "w07", OverlapRules(min_words=1))
    assert result["overlap"]["1"] == {"shared": 1, "proverb": 32, "ratio": 0.0313}


def test_ratio_is_zero_when_the_proverb_has_no_ngrams_of_that_length():
    result = check_overlap("Time flies", "Time flies.", OverlapRules(min_words=1))
    assert result["overlap"]["3"] == {"shared": 0, "proverb": 0, "ratio": 0.0}


def test_longest_shared_ngram_prefers_the_earliest_of_equal_length():
    result = check_overlap(
        "A bird in the hand is worth two in the bush",
        "in the end, worth two",
        OverlapRules(min_words=1),
    )
    assert result["longest_shared_ngram"] == ["in", "the"]


def test_custom_stopwords_decide_the_content_words():
    result = check_overlap(BIRDS, "birds of a kind", OverlapRules(min_words=1), ["birds"])
    assert result["shared_content_words"] == ["of", "a"]


def test_rules_may_be_a_dict_or_none():
    assert check_overlap(BIRDS, "flock", {"min_words": 1})["ok"] is True
    assert check_overlap(BIRDS, "flock", None)["ok"] is False


def test_result_is_json_serialisable():
    result = check_overlap(BIRDS, "Birds of a feather, \U0001f426 flock!")
    assert json.loads(json.dumps(result)) == result


def test_overlap_tokens_by_hand():
    text = "Don\u2019t stop-gap 'tis o'clock, CAF\u00c9 1,000 2nd \U0001f426 bird's"
    assert overlap_tokens(text) == [
        Token("Don\u2019t", "don't", 0, 5),
        Token("stop", "stop", 6, 10),
        Token("gap", "gap", 11, 14),
        Token("tis", "tis", 16, 19),
        Token("o'clock", "o'clock", 20, 27),
        Token("CAF\u00c9", "caf\u00e9", 29, 33),
        Token("1", "1", 34, 35),
        Token("000", "000", 36, 39),
        Token("2nd", "2nd", 40, 43),
        Token("bird's", "bird's", 46, 52),
    ]


def test_decomposed_and_compatibility_forms_share_a_norm():
    assert [token.norm for token in overlap_tokens("cafe\u0301 \ufb02ock")] == [
        "caf\u00e9",
        "flock",
    ]


def test_word_count_matches_overlap_tokens():
    assert word_count("well-known o'clock 1,000") == 5
    assert word_count("  \n ") == 0
    text = "Don\u2019t stop-gap \U0001f426 na\u00efve"
    assert word_count(text) == len(overlap_tokens(text)) == 4


def test_rules_round_trip_and_defaults():
    assert OverlapRules.from_dict(None) == OverlapRules()
    assert OverlapRules.from_dict({}) == OverlapRules()
    rules = OverlapRules.from_dict({"max_shared_ngram": 3})
    assert rules == OverlapRules(max_shared_ngram=3)
    assert OverlapRules.from_dict(rules.to_dict()) == rules
    assert OverlapRules().to_dict() == {
        "max_shared_ngram": 2,
        "max_shared_content_words": 2,
        "min_words": 20,
        "max_words": 150,
    }


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ({"min_words": "20"}, "Overlap rule min_words must be an integer, got '20'."),
        ({"max_words": 1.5}, "Overlap rule max_words must be an integer, got 1.5."),
        ({"max_shared_ngram": True}, "Overlap rule max_shared_ngram must be an integer, got True."),
        (
            {"max_shared_content_words": -1},
            "Overlap rule max_shared_content_words must not be negative, got -1.",
        ),
        ({"min_words": 30, "max_words": 20}, "min_words (30) must not exceed max_words (20)"),
        ({"max_ngram": 3}, "Unknown overlap rule(s): max_ngram"),
        (["min_words"], "Overlap rules must be a mapping, got list."),
    ],
)
def test_invalid_rules_are_refused_with_a_clear_message(rules, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        OverlapRules.from_dict(rules)


def test_stopwords_file_is_a_clean_lowercase_list():
    path = Path(__file__).resolve().parents[2] / "annotation" / "data" / "stopwords.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert 150 <= len(lines) <= 180
    assert len(set(lines)) == len(lines)
    for word in lines:
        assert [token.norm for token in overlap_tokens(word)] == [word], word
    assert load_stopwords() == frozenset(lines)
    assert {"the", "of", "a", "don't", "not"} <= load_stopwords()
    assert "feather" not in load_stopwords()


def test_existing_helpers_keep_their_semantics():
    assert normalize_text("  Don\u2019t   count, your CHICKENS! ") == "dont count your chickens"
    assert ngrams(["a", "b", "c"], 2) == [("a", "b"), ("b", "c")]


def _naive_overlap(proverb_norms: list[str], narrative_norms: list[str]) -> tuple[dict, list]:
    """Counts and longest shared n-gram by brute force, to check the fast version."""
    counts = {}
    for n in (1, 2, 3):
        proverb_grams = set(ngrams(proverb_norms, n))
        shared = proverb_grams & set(ngrams(narrative_norms, n))
        counts[str(n)] = (len(shared), len(proverb_grams))
    longest: list[str] = []
    for start in range(len(narrative_norms)):
        for end in range(start + 1, len(narrative_norms) + 1):
            piece = narrative_norms[start:end]
            if len(piece) > len(longest) and tuple(piece) in set(ngrams(proverb_norms, len(piece))):
                longest = piece
    return counts, longest


def test_overlap_counts_and_longest_ngram_match_brute_force():
    rng = random.Random(20220522)
    vocabulary = ["birds", "of", "a", "feather", "flock", "together", "stone"]
    for _ in range(300):
        proverb = [rng.choice(vocabulary) for _ in range(rng.randint(0, 7))]
        narrative = [rng.choice(vocabulary) for _ in range(rng.randint(0, 25))]
        result = check_overlap(" ".join(proverb), ", ".join(narrative), OverlapRules(min_words=0))
        counts, longest = _naive_overlap(proverb, narrative)
        assert {n: (v["shared"], v["proverb"]) for n, v in result["overlap"].items()} == counts
        assert result["longest_shared_ngram"] == longest


def test_simple_token_spans_are_offsets_of_simple_tokens():
    text = "Don't count your chickens—before they hatch!"
    spans = simple_token_spans(text)
    assert [text[start:end].lower() for start, end in spans] == simple_tokens(text)
    assert spans[:3] == [(0, 3), (4, 5), (6, 11)]


def test_copy_shingles_set_names_and_pronouns_aside_but_not_the_words():
    story = "Maya lent Leo her boat. Leo thanked Maya, and years later he repaid her."
    renamed = "Omar lent Chen his boat. Chen thanked Omar, and years later she repaid him."
    assert copy_shingles(story) == copy_shingles(renamed)
    assert ("<name>", "lent", "<name>") in copy_shingles(story)
    assert ("years", "later", "<pronoun>") in copy_shingles(story)
    changed = "Maya sold Leo her boat. Leo thanked Maya, and years later he repaid her."
    assert copy_shingles(changed) != copy_shingles(story)
    # A capitalised word that only starts a sentence is a word, not a name.
    assert ("yesterday", "the", "rain") in copy_shingles("Yesterday the rain fell.")


def test_first_words_names_a_text_by_its_start():
    from annotation.text import first_words

    assert first_words("One two  three", count=3) == "One two three"
    assert first_words("One two three four", count=3) == "One two three…"
    assert first_words("") == ""
