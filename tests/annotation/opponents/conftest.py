"""A finished retrieval run on a tiny model as the opponent, and the proverbs it ranks."""

import pytest

from tests.factories import STORIES, opponent_run_create, proverb_create
from tests.modeling.conftest import tiny_model_folder


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> str:
    return tiny_model_folder(tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture
def proverbs():
    """The curated proverbs of tests.factories.STORIES, by text."""
    return {text: proverb_create(text) for text in STORIES}


@pytest.fixture
def opponent(tiny_model, proverbs):
    """A finished retrieval run on the tiny model (created after the proverbs)."""
    return opponent_run_create(model_name=tiny_model)


CHICKENS = "Don't count your chickens before they hatch"


@pytest.fixture
def verdicts(opponent, proverbs) -> tuple[list[str], list[str]]:
    """The stories of CHICKENS (tests.factories.STORIES) that the opponent finds (ranks
    their proverb first) and those it does not, as its model ranks them."""
    from annotation.opponents.backend import opponent_rank

    proverb = proverbs[CHICKENS]
    ranked = sorted((p.pk, p.text) for p in proverbs.values())
    orders = opponent_rank(run_id=opponent.pk, proverbs=ranked, texts=STORIES[CHICKENS])
    hits = [order[0][0] == proverb.pk for order in orders]
    found = [story for story, hit in zip(STORIES[CHICKENS], hits, strict=True) if hit]
    fooled = [story for story, hit in zip(STORIES[CHICKENS], hits, strict=True) if not hit]
    assert len(found) >= 1 and len(fooled) >= 2, "the tiny model finds some stories, not all"
    return found, fooled
