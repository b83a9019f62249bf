"""The model side of rounds, as a door: which finished runs can oppose writers, what a run
is, and ranking a study's proverbs for story texts. modeling registers the one backend from
its ready(); annotation asks it and never imports modeling. `rank` loads models (torch):
it is called only where models run, never in a web request.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


class OpponentUnavailable(LookupError):
    """No run of that id can oppose writers (not finished, not a proverb baseline, gone),
    or no modeling app is installed."""


@dataclass(frozen=True)
class OpponentModel:
    """A finished proverb-identification run as rounds use it."""

    run_id: int
    label: str  # "run 12: classifier seen, <model>"
    task: str
    setting: str  # the split it was trained and tested on: seen | unseen
    model_name: str
    snapshot: str  # the content hash of the data it was trained on
    snapshot_narratives: int
    trains: bool  # False: off the shelf (retrieval), trained on nothing
    # Its figures on a round's own task, measured when it finished (modeling.training.ranker
    # round_task, with trained_stories and trained_proverbs); None: not measured.
    round_task: dict | None = None

    def strength(self, *, curated: int) -> str:
        """The run on a round's own task in words (its held-out stories' proverbs ranked
        among the curated proverbs, against chance, and what it trained on), each warning
        after a ⚠: near chance (its mean rank less than a third of the way from chance's
        to 1); more curated proverbs to rank than it trained on."""
        figures = self.round_task or {}
        if figures.get("top1") is None:
            return "not measured on a round's task (relaunch the run to measure it)"
        trained, chance_rank = figures["trained_proverbs"], figures["chance_mean_rank"]
        line = (
            f"on its {figures['stories']} held-out stories among {figures['proverbs']} "
            f"proverbs: first {figures['top1']:.0%} (chance {figures['chance_top1']:.1%}), "
            f"mean rank {figures['mean_rank']:.1f} (chance {chance_rank:.1f}); "
        )
        line += (
            f"trained on {figures['trained_stories']} stories of {trained} proverbs"
            if self.trains
            else "off the shelf, trained on nothing"
        )
        if figures["mean_rank"] > chance_rank - (chance_rank - 1) / 3:
            line += " ⚠ near chance"
        if self.trains and curated > trained:
            line += f" ⚠ ranks among {curated} curated proverbs, trained on {trained}"
        return line


@dataclass(frozen=True)
class OpponentBackend:
    """`choices()`: [(run id, label)] of the runs that can oppose, newest first;
    `describe(run_id)`: an OpponentModel, OpponentUnavailable otherwise;
    `trained_on(run_id)`: the narratives it trained on (its setting's train part), never
    counted among the test stories it is evaluated on;
    `rank(run_id=, proverbs=[(id, text)], texts=[...])`: for each text, every proverb
    with its score, best first (loads the model once per process)."""

    choices: Callable[[], list[tuple[int, str]]]
    describe: Callable[[int], OpponentModel]
    trained_on: Callable[[int], frozenset[int]]
    rank: Callable[..., list[list[tuple[int, float]]]]


_backend: list[OpponentBackend] = []


def opponent_backend_register(backend: OpponentBackend) -> None:
    """Install the backend (modeling's ready()); registering again replaces it."""
    _backend[:] = [backend]


def opponent_backend() -> OpponentBackend:
    if not _backend:
        raise OpponentUnavailable("No modeling app is installed: rounds cannot have opponents.")
    return _backend[0]


def opponent_describe(run_id: int) -> OpponentModel:
    return opponent_backend().describe(run_id)


def opponent_trained_on(run_id: int) -> frozenset[int]:
    return opponent_backend().trained_on(run_id)


def opponent_choices() -> list[tuple[int, str]]:
    return opponent_backend().choices() if _backend else []


def opponent_rank(
    *, run_id: int, proverbs: Sequence[tuple[int, str]], texts: list[str]
) -> list[list[tuple[int, float]]]:
    return opponent_backend().rank(run_id=run_id, proverbs=proverbs, texts=texts)
