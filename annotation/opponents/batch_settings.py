"""A write batch's round and opponent: the settings, their schema and checks, and the admin
form's fields. Batch.settings of a write batch in rounds:
    "round": 2 (a whole number from 1; absent or null: the batch is in no round);
    "opponent": null, or {"run": <finished proverb run id>, "mode": "inform" | "require" |
        "bonus", "show_guesses": bool, "bonus_cents": int, "max_checks": int,
        "validate": bool}.
MODES says what each mode does; a bonus is paid through crowd's once-only bonus.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from django import forms

from annotation.opponents.backend import OpponentUnavailable, opponent_choices, opponent_describe
from annotation.opponents.selectors import round_proverbs
from common.request_input import MAX_INT
from crowd.money import AmountField, money_text
from crowd.task_types import SettingNotFound

MODES = {
    "inform": "Inform: the page says whether the model finds the proverb",
    "require": "Require: Submit waits for a story the model does not find",
    "bonus": "Bonus: an approved story that fooled the model earns the bonus",
}
MAX_ROUND = 1000
MAX_CHECKS = 100
ROUND_KEYS = ("round", "opponent")


@dataclass(frozen=True)
class OpponentSettings:
    """The opponent of a write batch (Batch.settings["opponent"])."""

    run: int
    mode: str = "inform"
    show_guesses: bool = False
    bonus_cents: int = 0
    max_checks: int = 10
    validate: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class RoundSettings:
    """A write batch's round, and its opponent if it has one."""

    round: int
    opponent: OpponentSettings | None = None


def rounds_schema() -> dict:
    """The round and opponent settings, as the properties of a write batch's schema."""
    whole = {"type": "integer", "minimum": 0, "maximum": MAX_INT}
    return {
        "round": {"type": "integer", "minimum": 1, "maximum": MAX_ROUND, "nullable": True},
        "opponent": {
            "type": "object",
            "nullable": True,
            "additionalProperties": False,
            "required": ["run"],
            "properties": {
                "run": {"type": "integer", "minimum": 1, "maximum": MAX_INT},
                "mode": {"enum": list(MODES)},
                "show_guesses": {"type": "boolean"},
                "bonus_cents": whole,
                "max_checks": {"type": "integer", "minimum": 1, "maximum": MAX_CHECKS},
                "validate": {"type": "boolean"},
            },
        },
    }


def _whole(value, *, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be a whole number from {low} to {high}.")
    return value


def _opponent_clean(opponent) -> OpponentSettings:
    if not isinstance(opponent, dict):
        raise ValueError("opponent must be an object like {'run': 12, 'mode': 'inform'}.")
    unknown = sorted(set(opponent) - set(OpponentSettings.__dataclass_fields__))
    if unknown:
        raise ValueError(f"Unknown opponent setting(s): {', '.join(unknown)}.")
    if "run" not in opponent:
        raise ValueError("opponent.run must name the finished run the writers play against.")
    run = _whole(opponent["run"], name="opponent.run", low=1, high=MAX_INT)
    try:
        opponent_describe(run)
    except OpponentUnavailable as error:
        raise SettingNotFound(str(error)) from None
    mode = opponent.get("mode", "inform")
    if mode not in MODES:
        raise ValueError(f"opponent.mode must be one of {', '.join(MODES)}.")
    bonus = _whole(opponent.get("bonus_cents", 0), name="opponent.bonus_cents", low=0, high=MAX_INT)
    if mode == "bonus" and bonus == 0:
        raise ValueError("A bonus round needs opponent.bonus_cents: the bonus, in cents.")
    flags = {}
    for name in ("show_guesses", "validate"):
        flags[name] = opponent.get(name, False)
        if not isinstance(flags[name], bool):
            raise ValueError(f"opponent.{name} must be true or false.")
    return OpponentSettings(
        run=run,
        mode=mode,
        bonus_cents=bonus if mode == "bonus" else 0,
        max_checks=_whole(
            opponent.get("max_checks", 10), name="opponent.max_checks", low=1, high=MAX_CHECKS
        ),
        **flags,
    )


def rounds_settings_clean(settings: dict) -> dict:
    """The round and opponent of a write batch's settings, checked: {} for a batch in no
    round, else {"round": n, "opponent": {...} or None}. ValueError saying what is wrong;
    SettingNotFound for an opponent run that cannot oppose writers."""
    round_number, opponent = settings.get("round"), settings.get("opponent")
    if round_number is None:
        if opponent is not None:
            raise ValueError("A batch with an opponent belongs to a round: set round (1, 2, ...).")
        return {}
    _whole(round_number, name="round", low=1, high=MAX_ROUND)
    return {
        "round": round_number,
        "opponent": None if opponent is None else _opponent_clean(opponent).to_dict(),
    }


def batch_round(settings: dict) -> RoundSettings | None:
    """The round of a write batch's stored (checked) settings; None when in no round."""
    if settings.get("round") is None:
        return None
    opponent = settings.get("opponent")
    return RoundSettings(
        round=settings["round"],
        opponent=OpponentSettings(**opponent) if opponent else None,
    )


class RoundFields(forms.Form):
    """The write batch form's round and opponent (mixed in before the batch form)."""

    round = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_ROUND,
        label="Round",
        help_text="Model-in-the-loop collection: the round these stories belong to (1, 2, "
        "...). Empty: the batch is in no round.",
    )
    opponent = forms.TypedChoiceField(
        required=False,
        coerce=int,
        empty_value=None,
        label="Opponent",
        help_text="A finished proverb run (retrieval, bi-encoder, classifier) that writers "
        "try to fool: the page asks it whether it finds the proverb. Each is shown with how "
        "it does on a round's task (its held-out stories' proverbs ranked among the curated "
        "proverbs, against chance) and what it trained on; ⚠ marks one near chance, or one "
        "that ranks more proverbs than it trained on. Empty: no opponent (a first round).",
    )
    opponent_mode = forms.ChoiceField(
        required=False,
        choices=list(MODES.items()),
        initial="inform",
        widget=forms.RadioSelect,
        label="Mode",
    )
    show_guesses = forms.BooleanField(
        required=False,
        label="Show the model's guesses",
        help_text="The page lists the model's first three proverbs with their scores.",
    )
    bonus = AmountField(
        required=False,
        label="Bonus for fooling the model",
        help_text="Bonus mode: paid once per approved story that fooled the model, through "
        "the provider's bonus, in the same currency as the reward per task.",
    )
    max_checks = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_CHECKS,
        initial=10,
        label="Checks per task",
        help_text="How often a writer may ask the model on one task.",
    )
    validate = forms.BooleanField(
        required=False,
        label="Validate fooling stories",
        help_text="A story that fooled the model counts, and earns its bonus, once the "
        "workers of a choose batch drawing its fooling stories chose its proverb; one they "
        "did not match is left out of the round.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["opponent"].choices = [("", "none"), *opponent_choices()]

    def round_settings(self) -> dict:
        """The round and opponent settings from the cleaned data (unchecked)."""
        data = self.cleaned_data
        if data.get("round") is None:
            return {}
        run = data.get("opponent")
        opponent = None
        if run is not None:
            mode = data.get("opponent_mode") or "inform"
            opponent = {
                "run": run,
                "mode": mode,
                "show_guesses": bool(data.get("show_guesses")),
                "bonus_cents": (data.get("bonus") or 0) if mode == "bonus" else 0,
                "max_checks": data.get("max_checks") or 10,
                "validate": bool(data.get("validate")),
            }
        return {"round": data["round"], "opponent": opponent}

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        if data.get("round") is None and data.get("opponent") is not None:
            self.add_error("round", "A batch with an opponent belongs to a round.")
            return data
        if data.get("opponent_mode") == "bonus" and not data.get("bonus"):
            self.add_error("bonus", "Bonus mode pays a bonus: give its amount.")
            return data
        try:
            rounds_settings_clean(self.round_settings())
        except ValueError as error:
            raise forms.ValidationError(str(error)) from error
        return data


def round_lines(settings: dict, *, currency: str = "") -> list[str]:
    """A write batch's round and opponent in words, with how the opponent does on a round's
    task (its progress page), amounts in `currency`; [] for a batch in no round."""
    rounds = batch_round(settings)
    if rounds is None:
        return []
    opponent = rounds.opponent
    if opponent is None:
        return [f"Round {rounds.round}, no opponent."]
    try:
        model = opponent_describe(opponent.run)
        label, strength = model.label, model.strength(curated=len(round_proverbs()))
    except OpponentUnavailable as error:
        label, strength = f"run {opponent.run}", f"cannot be described: {error}"
    bonus = f" ({money_text(opponent.bonus_cents, currency)})" if opponent.mode == "bonus" else ""
    return [
        f"Round {rounds.round} against {label}. {MODES[opponent.mode]}{bonus}; "
        f"{opponent.max_checks} checks per task; the model's guesses "
        f"{'shown' if opponent.show_guesses else 'not shown'}; fooling stories "
        f"{'validated by a choose batch' if opponent.validate else 'not validated'}.",
        f"The opponent {strength}.",
    ]
