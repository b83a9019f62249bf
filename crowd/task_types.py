"""The task-type registry: the only way any code reaches a task's own logic.

A task type (write, align, rate, choose, ...) is one unit, a package of its own: it
validates and stores a submission, gives its page its context (its page template and
ES module sit in its package), shows the result for review, reacts to a review, reports
its batch's results and agreement, knows its gold items and reads answers imported from
a provider's results file. `TaskType` declares all of it; callers ask the registered
type and never switch on its key. An app registers its types' packages from its
`ready()` (`package_register`) and imports their models and admins with its own
(`package_module_import`).

The type is the one door to its tables: the analysis, exports, imports, the methods
section and modeling ask it for its parts (`narrative_parts`, `analysis_records`,
`methods_sentences`, `narrative_items`, ...), or ask for the type that makes a kind of
work (`producing`), and import none of its modules. What a type keeps in crowd's schema
is the one exception: a batch item names its subject through one of BatchItem's foreign
keys (see BatchItem); a type whose items are about a proverb, a narrative or an earlier
assignment adds nothing there.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from common.prose import figure_text

if TYPE_CHECKING:
    from django.db.models import Q

    from crowd.models import Assignment, Batch, BatchItem


class SubmissionError(ValueError):
    """A submission the server refuses; the message is shown to the worker as is."""

    def __init__(self, message: str, *, field: str = "", details: Any = None):
        super().__init__(message)
        self.message = message
        self.field = field
        self.details = details


class SubmissionConflict(SubmissionError):
    """The assignment is already stored from another submission (another window or tab)."""


class SettingNotFound(ValueError):
    """A batch setting naming something that does not exist (e.g. a model run): the API
    answers 404, as for an id in a body that names nothing."""


class SettingConflict(ValueError):
    """A batch setting naming something that exists but cannot serve as asked (e.g. an
    option pair whose answer is withheld): the API answers 409."""


@dataclass(frozen=True)
class NarrativePart:
    """A part of each narrative's dataset record that a type keeps: a list of records, each
    with `fields` (name, Arrow type name: "int32", "float64", "bool_", "string"); those in
    `pseudonymized` hold a worker ("provider:id"), which exports hash like the writer."""

    name: str
    definition: str  # what the dataset card says of it
    fields: tuple[tuple[str, str], ...]
    pseudonymized: tuple[str, ...] = ()


class TaskType:
    """Base class for task types; subclasses set `key`, `label`, `template`."""

    key: ClassVar[str]
    label: ClassVar[str]
    template: ClassVar[str]
    # Approved results wanted per item in a new batch, unless its creator says otherwise
    # (the admin form's first value, the API's default).
    target_per_item: ClassVar[int] = 10
    # The admin form researchers create batches of this type with (a crowd.forms.BatchForm);
    # None: the type is not offered in Batches → Add.
    batch_form: ClassVar[type | None] = None
    # The admin changelist the batch's submissions are reviewed on, as a URL name such as
    # "admin:annotation_rating_changelist" (filtered by ?batch=); "": no review page.
    review_changelist: ClassVar[str] = ""
    # Items are drawn from a source batch, the dataset or imported records
    # (`items_refresh`): the API's chained-batch create offers the type.
    drawn_items: ClassVar[bool] = False
    # The template of the agreement page's section for `agreement`'s report; it sees
    # `report` (the batch report, the type's part under its key) and what
    # `agreement_display` returns. "": the type has no agreement report and its batches
    # are not on the agreement pages.
    agreement_template: ClassVar[str] = ""
    # The batch can mix in gold items (`gold_item`, `gold_outcomes`).
    has_gold: ClassVar[bool] = False
    # Set when a gold item needs an answer beyond its subject: the help text of the
    # admin's answer field (JSON).
    gold_answer_help: ClassVar[str] = ""
    # The fields a provider's results file must map for this type's answers to be
    # imported (`import_subject` and `import_payload` read them); a name with "<...>"
    # stands for a family of which at least one is needed ("rating.<criterion>").
    # (): the type's answers cannot be imported.
    import_fields: ClassVar[tuple[str, ...]] = ()
    # Fields the mapping may name besides those.
    import_optional_fields: ClassVar[tuple[str, ...]] = ()
    # The module of URL patterns the type serves beyond the task pages (its own views), which
    # the project's URL map includes for every registered type; "": none.
    urls: ClassVar[str] = ""
    # What the type's batches make, for callers that need a kind of work and not a type by
    # name (a chained batch's source, modeling's evaluation batches): `producing(what)`.
    produces: ClassVar[str] = ""
    # The parts of a narrative's dataset record the type keeps (`narrative_parts_of`):
    # export columns, what the analysis and a run's snapshot read.
    narrative_parts: ClassVar[tuple[NarrativePart, ...]] = ()

    def package_directory(self) -> Path:
        """The folder of the package the type is defined in: its `templates/` and `static/`
        are served as task_types/<key>/<name> (crowd.task_type_files)."""
        return Path(sys.modules[type(self).__module__].__file__).parent

    def default_settings(self) -> dict:
        """Per-batch settings a new batch of this type starts from."""
        return {}

    def default_instructions(self) -> str:
        return ""

    def instructions_for(self, settings: dict) -> str:
        """The default instructions for a batch with these settings."""
        return self.default_instructions()

    def clean_settings(self, settings: dict) -> dict:
        """Validate a batch's settings (raise ValueError with a clear message)."""
        return {**self.default_settings(), **settings}

    def settings_schema(self) -> dict:
        """The settings `clean_settings` accepts, as an OpenAPI 3.0 schema: what the API's
        schema states for this type, and what `checked_settings` holds settings to."""
        return {"type": "object"}

    def checked_settings(self, settings) -> dict:
        """The settings held to `settings_schema`, then cleaned; ValueError naming the
        first setting that breaks it, in `clean_settings`' own words where it refuses
        them too (a schema's words for a rule across keys are a pattern, not a reason)."""
        try:
            settings_schema_check(self.settings_schema(), settings)
        except ValueError as schema_error:
            try:
                self.clean_settings(settings)
            except ValueError as error:
                raise error from None
            except Exception:  # settings of a shape clean_settings never sees
                pass
            raise schema_error from None
        return self.clean_settings(settings)

    def page_context(self, *, assignment: Assignment) -> dict:
        """Context for the worker's page (beyond the common assignment/batch/item)."""
        return {}

    def validate(self, *, assignment: Assignment, payload: dict) -> dict:
        """Check a submission against the batch's rules; raise SubmissionError."""
        raise NotImplementedError

    def store(self, *, assignment: Assignment, cleaned: dict) -> None:
        """Write the validated submission (called inside the submit transaction)."""
        raise NotImplementedError

    def result(self, *, assignment: Assignment) -> dict:
        """The stored submission as JSON, returned again to a retried submit."""
        raise NotImplementedError

    def qualification_needed(self, *, batch: Batch, worker) -> bool:
        """True while the worker must first pass the batch's qualification test.

        Reservation refuses such a worker (NoWorkAvailable code "qualification") and
        the worker pages send them to frontend:qualify, which shows
        `qualification_context` and stores answers with `qualification_submit`.
        """
        return False

    def qualification_context(self, *, batch: Batch, worker) -> dict:
        """The qualification page's context: "questions", and "attempt" once answered."""
        return {}

    def qualification_submit(self, *, batch: Batch, worker, answers: dict) -> None:
        """Score and store the worker's answers; SubmissionError when they cannot be read."""
        raise LookupError(f"{self.label} batches have no qualification test.")

    def live_check(self, *, assignment: Assignment, payload: dict) -> dict:
        """What the page shows while the worker types (a read; nothing is stored).

        Task types whose check needs the server (a parser) implement it; the page
        POSTs to frontend:check. LookupError: this type has none.
        """
        raise LookupError(f"{self.label} tasks have no live check.")

    def on_reviewed(self, *, assignment: Assignment, approved: bool) -> None:
        """React to approve/reject (e.g. mark the narrative, feed chained batches)."""

    def settings_lines(self, *, batch: Batch) -> list[str]:
        """The batch's own settings in words, lines its progress page shows (none here)."""
        return []

    def review_url(self, *, batch: Batch) -> str:
        """Where the batch's submissions are reviewed in the admin ("" when nowhere)."""
        if not self.review_changelist:
            return ""
        from django.urls import reverse

        return f"{reverse(self.review_changelist)}?batch={batch.pk}"

    def built_on(self, *, assignment: Assignment) -> Q:
        """Which batch items (a filter on BatchItem) are built on this assignment's output.

        By default the items that name it as their source (e.g. ratings of an alignment);
        a type whose output is a record of its own (a narrative) adds the items about it.
        """
        from django.db.models import Q

        return Q(source_assignment=assignment)

    def items_refresh(self, *, batch: Batch) -> int:
        """Add items a chained batch draws from its source; returns how many were added."""
        return 0

    def review_display(self, *, assignment: Assignment) -> dict:
        """One submission as the review queue shows it: {"kind": ..., ...}, plain JSON
        that the page writes as text. By default the stored result as label/value rows."""
        result = self.result(assignment=assignment)
        return {
            "kind": "result",
            "fields": [[str(key), str(value)] for key, value in result.items()],
        }

    def batch_results(self, *, batch: Batch) -> list[dict]:
        """The batch's stored submissions as JSON records (the results download and API):
        one per stored assignment, its ids, gold flag and status, then its own part from
        `result_records`."""
        from crowd.models import Assignment

        assignments = list(
            Assignment.objects.filter(item__batch=batch, status__in=Assignment.STORED)
            .select_related("item")
            .order_by("id")
        )
        records = self.result_records(batch=batch, assignments=assignments)
        return [
            {
                "assignment": assignment.pk,
                "item": assignment.item_id,
                "is_gold": assignment.item.is_gold,
                "worker": assignment.worker_id,
                "status": assignment.status,
                **records[assignment.pk],
            }
            for assignment in assignments
            if assignment.pk in records
        ]

    def result_records(self, *, batch: Batch, assignments: list[Assignment]) -> dict[int, dict]:
        """Each stored assignment's own part of its results record, by assignment id: by
        default its `result`. A type that stores rows reads the batch's rows at once."""
        return {assignment.pk: self.result(assignment=assignment) for assignment in assignments}

    def agreement(self, *, batch: Batch) -> dict | None:
        """The type's agreement and aggregation figures for a batch, JSON-safe (shown by
        `agreement_template`, returned by the API); None when the type has none."""
        return None

    def agreement_display(self, *, report: dict) -> dict:
        """Template context for `agreement_template`, from the type's part of the report.

        By default its single figures as text ("figures") and its per-item records
        ("rows", from "by_item").
        """
        return {
            "figures": {
                key: figure_text(value)
                for key, value in report.items()
                if not isinstance(value, list | dict)
            },
            "rows": [
                {key: figure_text(value) for key, value in row.items()}
                for row in report.get("by_item", [])
            ],
        }

    def gold_item(self, *, batch: Batch, narrative, answer: dict | None) -> dict:
        """The BatchItem fields of a gold item on this narrative with this known answer;
        ValueError when it cannot be one (see `has_gold`)."""
        raise ValueError(f"{self.label} batches have no gold items.")

    def gold_outcomes(self, *, batch: Batch, statuses) -> list[tuple[int, int, bool]]:
        """(item, worker, answered correctly) for each answer in `statuses` to a gold item."""
        return []

    def import_settings(self) -> dict:
        """Settings of a batch of imported answers: a past collection ran under its own
        rules, so the type's checks may be loosened."""
        return {}

    def import_subject(self, *, batch: Batch, fields: dict[str, str]) -> dict:
        """The subject (BatchItem foreign keys) of an answer imported from a provider's
        results file, found or created from its fields ("proverb", "narrative", ...);
        SubmissionError when the fields cannot give one."""
        raise SubmissionError(f"{self.label} answers cannot be imported.")

    def import_payload(self, *, item: BatchItem, fields: dict[str, str]) -> dict:
        """The submission payload (what `validate` takes) of an imported answer;
        SubmissionError for a field that cannot be read."""
        raise SubmissionError(f"{self.label} answers cannot be imported.")

    # What the type contributes to the dataset, asked by analysis, exports, imports, the
    # methods section and modeling, which import no type (annotation.task_parts.dataset).

    def narrative_parts_of(self, *, narrative_ids: list[int]) -> dict[str, dict[int, list]]:
        """Each of `narrative_parts` for the narratives that have it: {part: {id: [...]}}."""
        return {}

    def narrative_parts_store(self, *, part: str, rows: list[tuple[Any, list[dict]]]) -> int:
        """Store a part read from a dataset file: (narrative, records) pairs; how many rows."""
        raise LookupError(f"{self.label} keeps no {part}.")

    def analysis_records(self, *, counted: Callable[[str], Q]) -> dict[str, list]:
        """Records the dataset analysis reads (annotation.task_parts.records' kinds, by name);
        `counted(narrative_field)` filters the type's rows to the analysis' scope."""
        return {}

    def dataset_state(self) -> list:
        """Figures that change whenever the rows the type gives the analysis change."""
        return []

    def methods_sentences(self, *, batch: Batch | None = None, imported=None) -> list[str]:
        """The methods section's sentences on a batch of this type, or on what the type
        keeps of an import's narratives (`imported`, a queryset)."""
        return []

    def output_drawing(self, *, assignment: Assignment) -> dict | None:
        """What an item built on the assignment's output shows of it (an alignment:
        annotation.task_parts.spans.drawing's dict); None: nothing to draw."""
        return None

    def narratives_forget(self, *, narratives) -> None:
        """Delete what the type keeps about `narratives` (the demo's removal)."""

    def proverbs_named(self) -> dict[int, str]:
        """Proverbs the type's rows name where no foreign key protects them: {id: why}."""
        return {}

    def narrative_items(self, *, batch: Batch, narratives: list, answers=None) -> list[dict]:
        """Items of `batch` about `narratives` (BatchItem fields), with a model's answers
        stored beside them where the type keeps one (`answers(narrative, options)`: the
        option it picks and the model's label)."""
        return [{"narrative": narrative} for narrative in narratives]


_registry: dict[str, TaskType] = {}


def register(task_type: TaskType) -> TaskType:
    _registry[task_type.key] = task_type
    return task_type


def package_register(package: str) -> TaskType:
    """Register the task type of a task-type package: the `task_type` of its `task` module.

    A package is one type's home: `task.py` (the type), `models.py` when it stores rows of
    its own and `admin.py` when it has a review list (its app imports them:
    `package_module_import`), `templates/` and `static/` (found as task_types/<key>/...,
    crowd.task_type_files).
    """
    return register(importlib.import_module(f"{package}.task").task_type)


def package_module_import(package: str, name: str) -> None:
    """Import the package's module `name`, if it has one: its `models` from its app's
    `AppConfig.import_models` (so that Django knows them with the app's own), its `admin`
    from the app's admin module (so that its review list is registered)."""
    if importlib.util.find_spec(f"{package}.{name}") is not None:
        importlib.import_module(f"{package}.{name}")


def get(key: str) -> TaskType:
    try:
        return _registry[key]
    except KeyError:
        raise LookupError(f"No task type {key!r} is registered.") from None


def label_of(key: str) -> str:
    """A type's label; the key itself for a type no longer registered."""
    return _registry[key].label if key in _registry else key


def registered() -> dict[str, TaskType]:
    return dict(_registry)


def unregister(key: str) -> None:
    """Forget a type (a test's own type, once the test is done)."""
    _registry.pop(key, None)


def keys_where(predicate: Callable[[TaskType], Any]) -> list[str]:
    """Keys of the types that `predicate` holds for, sorted."""
    return sorted(key for key, task_type in _registry.items() if predicate(task_type))


def keys_with_agreement() -> list[str]:
    """Keys of the types with an agreement report (on the agreement pages)."""
    return keys_where(lambda task_type: task_type.agreement_template)


def keys_importable() -> list[str]:
    """Keys of the types whose answers can be imported from a provider's results file."""
    return keys_where(lambda task_type: task_type.import_fields)


def in_order() -> list[TaskType]:
    """The registered types, by key: the order in which their contributions are gathered."""
    return [_registry[key] for key in sorted(_registry)]


def gathered(hook: str, **arguments) -> dict:
    """What every registered type's `hook` (a method returning a dict) gives, merged."""
    merged: dict = {}
    for task_type in in_order():
        merged.update(getattr(task_type, hook)(**arguments))
    return merged


def narrative_parts() -> list[NarrativePart]:
    """The narrative parts of the registered types, in their types' key order."""
    return [part for task_type in in_order() for part in task_type.narrative_parts]


def producing(what: str) -> TaskType:
    """The registered type whose batches make `what` ("narratives", "ratings", ...)."""
    for key in keys_where(lambda task_type: task_type.produces == what):
        return _registry[key]
    raise LookupError(f"No registered task type makes {what}.")


def _json_schema(schema):
    """An OpenAPI 3.0 schema as JSON Schema: `nullable` becomes an alternative null."""
    if isinstance(schema, list):
        return [_json_schema(part) for part in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {
        name: value if name == "enum" else _json_schema(value)
        for name, value in schema.items()
        if name != "nullable"
    }
    return {"anyOf": [converted, {"type": "null"}]} if schema.get("nullable") else converted


def settings_schema_check(schema: dict, settings) -> None:
    """Raise ValueError when `settings` break the OpenAPI 3.0 `schema` (jsonschema)."""
    import jsonschema

    error = jsonschema.exceptions.best_match(
        jsonschema.Draft4Validator(_json_schema(schema)).iter_errors(settings)
    )
    if error is not None:
        where = ".".join(["settings", *map(str, error.absolute_path)])
        raise ValueError(f"{where}: {error.message}")


def settings_schemas(keys) -> dict:
    """JSON Schema keywords for a create body: its `settings` as its `task_type` takes them."""
    return {
        "anyOf": [
            {
                "properties": {
                    # (in allOf: drf-spectacular would make each one-key enum a component)
                    "task_type": {"allOf": [{"enum": [key]}]},
                    "settings": _registry[key].settings_schema(),
                }
            }
            for key in keys
        ]
    }


def keys_drawn() -> list[str]:
    """Keys of the types whose items are drawn (the API's chained-batch create)."""
    return keys_where(lambda task_type: task_type.drawn_items)
