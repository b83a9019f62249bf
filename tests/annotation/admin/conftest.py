"""The rounds' fixtures (an opponent run on a tiny model and its proverbs), for the
dashboard's rounds section."""

from tests.annotation.opponents.conftest import opponent, proverbs, tiny_model  # noqa: F401
