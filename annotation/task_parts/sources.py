"""Where drawn batches (align, rate, choose, cloze) take their items: a source batch's
approved output (fed again as more is approved) and draws from the dataset's narratives, each
with its own sample. Settings: "sample" (from the source batch; null: all), "seed", "draw":
[{"source": "imported", "source_label": "Tan et al. 2015", "sample": 200}]. Candidates come
in a seeded random order; items in the batch stay; gold items never count toward a sample.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from django import forms
from django.db import transaction
from django.db.models import Q, QuerySet

from annotation.models import Narrative
from common.api_parser import CLEAN_TEXT
from common.request_input import MAX_INT
from crowd import task_types
from crowd.batches import batch_items_add
from crowd.forms import BatchForm
from crowd.models import Assignment, Batch

DRAW_SOURCES = ("any", *Narrative.Source.values)
# The keys clean_draw_settings takes, as a settings schema's properties.
SAMPLE_SCHEMA = {"type": "integer", "minimum": 1, "maximum": MAX_INT, "nullable": True}
SEED_SCHEMA = {"type": "integer", "minimum": -MAX_INT - 1, "maximum": MAX_INT}
DRAW_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "source": {"enum": list(DRAW_SOURCES)},
        "source_label": {"type": "string", "pattern": CLEAN_TEXT},
        "sample": SAMPLE_SCHEMA,
    },
}
DRAW_DEFAULTS = {"sample": None, "seed": 1, "draw": []}
DRAW_SETTINGS_SCHEMA = {
    "sample": SAMPLE_SCHEMA,
    "seed": SEED_SCHEMA,
    "draw": {"type": "array", "items": DRAW_SCHEMA, "nullable": True},
}


def settings_object(properties: dict) -> dict:
    """A settings schema: an object with these properties (each optional) and no other."""
    return {"type": "object", "additionalProperties": False, "properties": properties}


def settings_keys_check(settings, allowed, *, batch: str) -> None:
    """ValueError unless `settings` is an object of `allowed` keys (`batch`: its type's name)."""
    if not isinstance(settings, dict):
        raise ValueError(f"Settings of a {batch} batch must be an object.")
    unknown = sorted(set(settings) - set(allowed))
    if unknown:
        raise ValueError(f"Unknown setting(s) of a {batch} batch: {', '.join(unknown)}.")


def seeded_order(ids: Iterable[int], seed: int | str) -> list[int]:
    """Ids in a random order fixed by the seed (independent of the order given)."""
    return sorted(ids, key=lambda pk: hashlib.sha256(f"{seed}:{pk}".encode()).hexdigest())


def _clean_sample(value, *, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{where} must be a whole number of at least 1, or null for all.")
    return value


def clean_sampling(settings: dict) -> dict:
    """The settings with their sample and seed checked; raises ValueError."""
    sample = _clean_sample(settings.get("sample"), where="sample")
    seed = settings.get("seed", 1)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError("seed must be a whole number.")
    return {**settings, "sample": sample, "seed": seed}


def clean_draw_settings(settings: dict) -> dict:
    """Check the shared sampling keys (sample, seed, draw); raises ValueError."""
    cleaned = clean_sampling(settings)
    draws = settings.get("draw") or []
    if not isinstance(draws, list):
        raise ValueError("draw must be a list of selections like {'source': 'imported'}.")
    cleaned_draws = []
    for number, draw in enumerate(draws, start=1):
        if not isinstance(draw, dict):
            raise ValueError(f"draw {number} must be an object like {{'source': 'model'}}.")
        unknown = sorted(set(draw) - {"source", "source_label", "sample"})
        if unknown:
            raise ValueError(f"draw {number} has unknown key(s): {', '.join(unknown)}.")
        source = draw.get("source", "any")
        if source not in DRAW_SOURCES:
            raise ValueError(f"draw {number}: source must be one of {', '.join(DRAW_SOURCES)}.")
        label = draw.get("source_label", "")
        if not isinstance(label, str):
            raise ValueError(f"draw {number}: source_label must be text.")
        cleaned_draws.append(
            {
                "source": source,
                "source_label": label.strip(),
                "sample": _clean_sample(draw.get("sample"), where=f"draw {number}: sample"),
            }
        )
    cleaned["draw"] = cleaned_draws
    return cleaned


def usable_narratives() -> QuerySet[Narrative]:
    """Narratives fit to build tasks on: crowd ones approved, others not rejected."""
    return Narrative.objects.filter(
        Q(source=Narrative.Source.CROWD, status=Narrative.Status.APPROVED)
        | (~Q(source=Narrative.Source.CROWD) & ~Q(status=Narrative.Status.REJECTED))
    )


def _draw_queryset(draw: dict) -> QuerySet[Narrative]:
    narratives = usable_narratives()
    if draw["source"] != "any":
        narratives = narratives.filter(source=draw["source"])
    if draw["source_label"]:
        narratives = narratives.filter(source_label=draw["source_label"])
    return narratives


def source_batch_check(batch, *, makes: str) -> None:
    """Raise SettingConflict (a ValueError; the API's 409) when the batch's source batch,
    which exists, is not of a type that makes `makes` (TaskType.produces)."""
    source = batch.source_batch
    if source is not None and task_types.get(source.task_type).produces != makes:
        raise task_types.SettingConflict(
            f"This {batch.task_type} batch can only draw from batches that make {makes}; "
            f"{source.name!r} is a {source.task_type} batch."
        )


def source_drawing(assignment: Assignment | None) -> dict | None:
    """What the type of `assignment`'s batch draws of its output (an alignment), if any."""
    if assignment is None:
        return None
    return task_types.get(assignment.item.batch.task_type).output_drawing(assignment=assignment)


def take(candidates: list[int], *, taken: int, sample: int | None, seed, fits=None) -> list[int]:
    """Up to the sample's room, in the seeded order; with `fits` (id -> bool), only the
    candidates that fit, so that a sample is drawn among them (filtered before sampling)."""
    ordered = seeded_order(candidates, seed) if sample is not None else sorted(candidates)
    room = len(ordered) if sample is None else max(0, sample - taken)
    if fits is None:
        return ordered[:room]
    picked: list[int] = []
    for candidate in ordered:  # lazily: only as many are checked as the sample needs
        if len(picked) >= room:
            break
        if fits(candidate):
            picked.append(candidate)
    return picked


def batch_lock(batch) -> None:
    """Hold the batch row until the transaction ends: one refresh of a batch at a time."""
    Batch.objects.select_for_update().get(pk=batch.pk)


def narrative_selections(
    *, source_batch_id: int | None, settings: dict
) -> list[tuple[QuerySet[Narrative], int | None]]:
    """(narratives, sample) for the source batch's approved output and each draw."""
    selections: list[tuple[QuerySet[Narrative], int | None]] = []
    if source_batch_id is not None:
        selections.append(
            (
                Narrative.objects.filter(
                    assignment__item__batch_id=source_batch_id,
                    status=Narrative.Status.APPROVED,
                ),
                settings.get("sample"),
            )
        )
    selections.extend(
        (_draw_queryset(draw), draw.get("sample")) for draw in settings.get("draw", [])
    )
    return selections


def _by_text(text_fits, ids: list[int]):
    """`text_fits` as a test on narrative ids (their texts read in one query)."""
    texts = dict(Narrative.objects.filter(pk__in=ids).values_list("pk", "text"))
    return lambda pk: text_fits(texts[pk])


def narratives_to_add(*, batch, text_fits=None, among: Q | None = None) -> list[Narrative]:
    """Narratives the batch should take now from its source batch and draws; `text_fits`
    (text -> bool) and `among` (a filter) leave out stories before a sample is drawn. Call
    after batch_lock in a transaction: two refreshes never take the same narrative."""
    settings = batch.settings or {}
    seed = settings.get("seed", 1)
    rows = list(batch.items.filter(narrative__isnull=False).values_list("narrative_id", "is_gold"))
    present = {pk for pk, _ in rows}  # a gold narrative is not added again as a regular item
    in_batch = {pk for pk, is_gold in rows if not is_gold}
    wanted: list[int] = []
    selections = narrative_selections(source_batch_id=batch.source_batch_id, settings=settings)
    for narratives, sample in selections:
        if among is not None:
            narratives = narratives.filter(among)
        ids = set(narratives.values_list("pk", flat=True))
        taken = len(ids & in_batch)
        fresh = [pk for pk in ids if pk not in present]
        fits = None if text_fits is None else _by_text(text_fits, fresh)
        picked = take(fresh, taken=taken, sample=sample, seed=seed, fits=fits)
        wanted.extend(picked)
        present.update(picked)
    by_id = Narrative.objects.select_related("proverb").in_bulk(wanted)
    return [by_id[pk] for pk in wanted]


class DrawnTaskType(task_types.TaskType):
    """A type whose items are narratives drawn from a source batch that makes narratives
    and from the dataset (`narratives_to_add`, with `draw_filters`), each made an item by
    `drawn_item` (None: the narrative cannot be one)."""

    drawn_items = True
    instructions = ""  # the default instructions

    def default_instructions(self) -> str:
        return self.instructions

    def draw_filters(self, *, batch) -> dict:
        return {}

    def drawn_item(self, *, batch, narrative: Narrative) -> dict | None:
        return {"narrative": narrative}

    @transaction.atomic
    def items_refresh(self, *, batch) -> int:
        batch_lock(batch)
        source_batch_check(batch, makes="narratives")
        narratives = narratives_to_add(batch=batch, **self.draw_filters(batch=batch))
        items = [self.drawn_item(batch=batch, narrative=narrative) for narrative in narratives]
        return batch_items_add(batch=batch, items=[item for item in items if item])


def alignments_to_add(*, batch) -> list:
    """Approved alignments (assignments of the source align batch) the batch should take now."""
    if batch.source_batch_id is None:
        return []
    settings = batch.settings or {}
    approved = Assignment.objects.filter(
        item__batch_id=batch.source_batch_id,
        status=Assignment.Status.APPROVED,
        item__narrative__isnull=False,
        item__is_gold=False,
        item__withdrawn_at__isnull=True,
    )
    ids = set(approved.values_list("pk", flat=True))
    in_batch = set(
        batch.items.filter(is_gold=False, source_assignment__isnull=False).values_list(
            "source_assignment_id", flat=True
        )
    )
    fresh = [pk for pk in ids if pk not in in_batch]
    wanted = take(
        fresh,
        taken=len(ids & in_batch),
        sample=settings.get("sample"),
        seed=settings.get("seed", 1),
    )
    by_id = Assignment.objects.select_related("item__narrative").in_bulk(wanted)
    return [by_id[pk] for pk in wanted]


class DrawWidget(forms.MultiWidget):
    """One draw as a row: source, source label, sample."""

    def __init__(self):
        super().__init__(
            [
                forms.Select(choices=[("", "none"), *((s, s) for s in DRAW_SOURCES)]),
                forms.TextInput(attrs={"placeholder": "source label (optional)", "size": 28}),
                forms.NumberInput(attrs={"placeholder": "sample (empty: all)", "min": 1}),
            ]
        )

    def decompress(self, value):
        if not value:
            return ["", "", None]
        return [value.get("source", ""), value.get("source_label", ""), value.get("sample")]


class DrawField(forms.MultiValueField):
    """A draw from the dataset's narratives ({"source", "source_label", "sample"}), or None."""

    widget = DrawWidget

    def __init__(self, **kwargs):
        super().__init__(
            fields=(
                forms.ChoiceField(
                    choices=[("", "none"), *((s, s) for s in DRAW_SOURCES)], required=False
                ),
                forms.CharField(max_length=200, required=False),
                forms.IntegerField(min_value=1, required=False),
            ),
            require_all_fields=False,
            required=False,
            **kwargs,
        )

    def compress(self, data_list):
        if not data_list or not data_list[0]:
            return None
        source, label, sample = data_list
        return {"source": source, "source_label": label or "", "sample": sample}


DRAW_ROWS = 3


class SourcedBatchForm(BatchForm):
    """A batch that may take a source batch's approved output, of a type that makes one of
    `source_makes`; `instructions_initial` is the task type's default instructions."""

    source_makes: tuple[str, ...] = ("narratives",)
    instructions_initial = ""

    source_batch = forms.ModelChoiceField(
        queryset=Batch.objects.none(),
        required=False,
        help_text="Take this batch's approved output, now and each time more of it is "
        "approved. A worker never gets an item built on their own work.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["instructions"].initial = self.instructions_initial
        self.fields["source_batch"].queryset = Batch.objects.filter(
            task_type__in=task_types.keys_where(lambda type_: type_.produces in self.source_makes)
        ).order_by("-id")

    def batch_fields(self) -> dict:
        return {**super().batch_fields(), "source_batch": self.cleaned_data.get("source_batch")}


class DrawnBatchForm(SourcedBatchForm):
    """A batch whose items are drawn from a source batch and/or the dataset; subclasses add
    `type_settings()`."""

    sample = forms.IntegerField(
        min_value=1,
        required=False,
        help_text="Take at most this many from the source batch, in a seeded random order "
        "(e.g. 250); empty: all of them.",
    )
    seed = forms.IntegerField(initial=1, help_text="Fixes the random order of sampling.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for row in range(1, DRAW_ROWS + 1):
            self.fields[f"draw_{row}"] = DrawField(
                label="Draw from the dataset" if row == 1 else f"Draw {row}",
                help_text=(
                    "Narratives already in the dataset, by source (any, crowd, imported, "
                    "model), optionally of one source label (e.g. Tan et al. 2015), at most "
                    "the sample (empty: all). Source none: no draw."
                )
                if row == 1
                else "",
            )

    def draws(self) -> list[dict]:
        """The draw rows filled in, in order."""
        rows = (self.cleaned_data.get(f"draw_{row}") for row in range(1, DRAW_ROWS + 1))
        return [row for row in rows if row]

    def type_settings(self) -> dict:
        return {}

    def batch_settings(self) -> dict:
        data = self.cleaned_data
        return {
            "sample": data.get("sample"),
            "seed": data.get("seed") if data.get("seed") is not None else 1,
            "draw": self.draws(),
            **self.type_settings(),
        }

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        if data.get("source_batch") is None and not self.draws():
            raise forms.ValidationError("Choose a source batch, or narratives to draw, or both.")
        try:
            clean_draw_settings(self.batch_settings())
        except ValueError as error:
            raise forms.ValidationError(str(error)) from error
        return data
