"""The rounds' fixtures (an opponent run on a tiny model, its proverbs and its verdicts),
for the analysis' rounds part."""

from tests.annotation.opponents.conftest import (  # noqa: F401 (fixtures)
    opponent,
    proverbs,
    tiny_model,
    verdicts,
)
