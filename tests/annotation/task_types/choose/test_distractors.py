"""Distractor sources: seeded, never the correct proverb, curated proverbs only."""

import pytest

from annotation.task_parts.distractors import (
    Candidate,
    LexicalSimilaritySource,
    RandomSource,
    curated_candidates,
    distractors_for,
    get_source,
)
from tests.factories import narrative_create, proverb_create

CORRECT = Candidate(1, "Time is money")
CANDIDATES = [
    Candidate(2, "A penny saved is a penny earned"),
    Candidate(3, "Birds of a feather flock together"),
    Candidate(4, "Don't put all your eggs in one basket"),
    Candidate(5, "Money doesn't grow on trees"),
    Candidate(6, "The early bird catches the worm"),
    Candidate(7, "Actions speak louder than words"),
    Candidate(1, "Time is money"),  # the correct one offered again: never picked
]
STORY = "Every morning Sam counted the coins in his jar and wondered where his salary went."


@pytest.mark.parametrize("source", [RandomSource(), LexicalSimilaritySource()])
def test_source_never_picks_the_correct_proverb(source):
    for seed in range(20):
        picked = source.pick(
            narrative=STORY, correct=CORRECT, candidates=CANDIDATES, count=6, seed=seed
        )
        assert CORRECT.id not in {c.id for c in picked}
        assert len(picked) == len({c.id for c in picked}) == 6


@pytest.mark.parametrize("source", [RandomSource(), LexicalSimilaritySource()])
def test_same_seed_gives_same_distractors(source):
    def pick(seed):
        return source.pick(
            narrative=STORY, correct=CORRECT, candidates=CANDIDATES, count=4, seed=seed
        )

    assert pick(7) == pick(7)


def test_random_source_varies_with_the_seed():
    source = RandomSource()
    picks = {
        tuple(
            c.id
            for c in source.pick(
                narrative="", correct=CORRECT, candidates=CANDIDATES, count=4, seed=seed
            )
        )
        for seed in range(10)
    }
    assert len(picks) > 1


def test_lexical_source_puts_proverbs_sharing_words_first():
    story = "Mia spent her money on a basket of eggs."
    picked = LexicalSimilaritySource().pick(
        narrative=story, correct=CORRECT, candidates=CANDIDATES, count=2, seed=1
    )
    # Closest to the story: eggs/basket; closest to "Time is money": money.
    assert [c.id for c in picked] == [4, 5]


def test_fewer_candidates_than_wanted_gives_all_of_them():
    picked = RandomSource().pick(
        narrative=STORY, correct=CORRECT, candidates=CANDIDATES[:2], count=4, seed=1
    )
    assert {c.id for c in picked} == {2, 3}


def test_unknown_source_is_a_lookup_error():
    with pytest.raises(LookupError, match="model"):
        get_source("model")


@pytest.mark.django_db
def test_distractors_for_uses_curated_proverbs_only():
    correct = proverb_create("Time is money")
    curated = [proverb_create(f"Curated proverb {n} about patience") for n in range(5)]
    proverb_create("A candidate proverb about money", status="candidate")
    proverb_create("A rejected proverb about money", status="rejected")
    proverb_create("Time is money indeed", status="curated", variant_of=correct)
    narrative = narrative_create(proverb=correct, text="He billed by the hour for money.")
    for source in ("lexical", "random"):
        picked = distractors_for(narrative=narrative, source=source, count=4, seed=3)
        assert len(picked) == 4
        assert {p.pk for p in picked} <= {p.pk for p in curated}


@pytest.mark.django_db
def test_no_source_offers_the_answers_variants_or_a_proverb_too_close_to_it():
    canonical = proverb_create("Fortune favours the brave", status="curated")
    answer = proverb_create("Fortune favour the brave", status="rejected", variant_of=canonical)
    sibling = proverb_create("Fortune helps the brave", status="curated", variant_of=canonical)
    near = proverb_create("Fortune favors the bold", status="curated")
    fair = [
        proverb_create(text, status="curated")
        for text in ("Time is money", "Haste makes waste", "Look before you leap")
    ]
    for correct in (canonical, answer):
        candidates = {c.id for c in curated_candidates(excluding=correct)}
        assert candidates == {p.pk for p in fair}, correct.text
    narrative = narrative_create(proverb=canonical, text="She bet the farm on a bold move.")
    for source in ("lexical", "random"):
        picked = distractors_for(narrative=narrative, source=source, count=4, seed=3)
        assert set(picked) == set(fair)
    assert {near.pk, sibling.pk}.isdisjoint(c.id for c in curated_candidates(excluding=canonical))
