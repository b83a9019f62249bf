"""The task-type registry: the only way any code reaches a task's own logic.

A task type (write, align, rate, choose, ...) is one package; `TaskType` declares all it
does, and callers ask the registered type, never switch on its key nor import its modules
(the analysis, exports and modeling ask it for its parts, or `producing` for a kind of
work). Its one mark in crowd's schema is BatchItem's foreign key to its kind of subject.
Over 400 lines: the whole task-type interface, one documented hook a method, and its registry.
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
    """A batch setting naming something that does not exist (a model run): the API's 404."""


class SettingConflict(ValueError):
    """A batch setting naming something that cannot serve as asked: the API's 409."""


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
    # Approved results wanted per item in a new batch (the admin form's and API's default).
    target_per_item: ClassVar[int] = 10
    # The admin's create form (a crowd.forms.BatchForm); None: not offered in Batches → Add.
    batch_form: ClassVar[type | None] = None
    # URL name of the admin changelist reviewing the batch (filtered by ?batch=); "": none.
    review_changelist: ClassVar[str] = ""
    # Items are drawn (`items_refresh`): the API's chained-batch create offers the type.
    drawn_items: ClassVar[bool] = False
    # The agreement page's section for `agreement`'s report; it sees `report` and what
    # `agreement_display` returns. "": no agreement report, not on the agreement pages.
    agreement_template: ClassVar[str] = ""
    # The batch can mix in gold items (`gold_item`, `gold_outcomes`).
    has_gold: ClassVar[bool] = False
    # Help text of the admin's gold answer field, when a gold item needs an answer.
    gold_answer_help: ClassVar[str] = ""
    # Fields a results file must map to import answers (`import_subject`, `import_payload`);
    # "<...>" names a family, one needed ("rating.<criterion>"). (): not importable.
    import_fields: ClassVar[tuple[str, ...]] = ()
    # Fields the mapping may name besides those.
    import_optional_fields: ClassVar[tuple[str, ...]] = ()
    # The module of URL patterns the type serves beyond the task pages; "": none.
    urls: ClassVar[str] = ""
    # What the type's batches make, for callers that need a kind of work: `producing(what)`.
    produces: ClassVar[str] = ""
    # The parts of a narrative's dataset record the type keeps (`narrative_parts_of`).
    narrative_parts: ClassVar[tuple[NarrativePart, ...]] = ()

    def package_directory(self) -> Path:
        """The type's package folder: its templates/ and static/ (crowd.task_type_files)."""
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
        """The settings held to `settings_schema`, then cleaned; ValueError in
        `clean_settings`' words where it refuses them too (a schema's are a pattern)."""
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
        """True while the worker must first pass the batch's qualification test (reservation
        refuses them; frontend:qualify shows `qualification_context`)."""
        return False

    def qualification_context(self, *, batch: Batch, worker) -> dict:
        """The qualification page's context: "questions", and "attempt" once answered."""
        return {}

    def qualification_submit(self, *, batch: Batch, worker, answers: dict) -> None:
        """Score and store the worker's answers; SubmissionError when they cannot be read."""
        raise LookupError(f"{self.label} batches have no qualification test.")

    def live_check(self, *, assignment: Assignment, payload: dict) -> dict:
        """What the page shows while the worker types (frontend:check; nothing is stored).
        LookupError: this type has none."""
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
        """The batch items (a filter on BatchItem) built on this assignment's output: by
        default those naming it as their source; a type with its own records adds more."""
        from django.db.models import Q

        return Q(source_assignment=assignment)

    def items_refresh(self, *, batch: Batch) -> int:
        """Add items a chained batch draws from its source; returns how many were added."""
        return 0

    def review_display(self, *, assignment: Assignment) -> dict:
        """One submission as the review queue shows it (plain JSON {"kind": ..., ...}):
        by default the stored result as label/value rows."""
        result = self.result(assignment=assignment)
        return {
            "kind": "result",
            "fields": [[str(key), str(value)] for key, value in result.items()],
        }

    def batch_results(self, *, batch: Batch) -> list[dict]:
        """The batch's stored submissions as JSON records (the results download and API):
        ids, gold flag and status, then the type's part from `result_records`."""
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
        """Each stored assignment's own part of its results record, by id: its `result`."""
        return {assignment.pk: self.result(assignment=assignment) for assignment in assignments}

    def agreement(self, *, batch: Batch) -> dict | None:
        """The batch's agreement and aggregation figures, JSON-safe; None when none."""
        return None

    def agreement_display(self, *, report: dict) -> dict:
        """Template context for `agreement_template`: by default the report's single figures
        as text ("figures") and its per-item records ("rows", from "by_item")."""
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
        """The BatchItem fields of a gold item on this narrative and answer; ValueError."""
        raise ValueError(f"{self.label} batches have no gold items.")

    def gold_outcomes(self, *, batch: Batch, statuses) -> list[tuple[int, int, bool]]:
        """(item, worker, answered correctly) for each answer in `statuses` to a gold item."""
        return []

    def import_settings(self) -> dict:
        """Settings of a batch of imported answers (a past collection's rules were its own)."""
        return {}

    def import_subject(self, *, batch: Batch, fields: dict[str, str]) -> dict:
        """The subject (BatchItem foreign keys) of an imported answer, found or created from
        its fields ("proverb", "narrative", ...); SubmissionError when they give none."""
        raise SubmissionError(f"{self.label} answers cannot be imported.")

    def import_payload(self, *, item: BatchItem, fields: dict[str, str]) -> dict:
        """The submission payload (for `validate`) of an imported answer; SubmissionError."""
        raise SubmissionError(f"{self.label} answers cannot be imported.")

    # What the type contributes to the dataset (annotation.task_parts.dataset).

    def narrative_parts_of(self, *, narrative_ids: list[int]) -> dict[str, dict[int, list]]:
        """Each of `narrative_parts` for the narratives that have it: {part: {id: [...]}}."""
        return {}

    def narrative_parts_store(self, *, part: str, rows: list[tuple[Any, list[dict]]]) -> int:
        """Store a part read from a dataset file: (narrative, records) pairs; how many rows."""
        raise LookupError(f"{self.label} keeps no {part}.")

    def analysis_records(self, *, counted: Callable[[str], Q]) -> dict[str, list]:
        """Records the dataset analysis reads, by kind; `counted(narrative_field)` scopes them."""
        return {}

    def dataset_state(self) -> list:
        """Figures that change whenever the rows the type gives the analysis change."""
        return []

    def methods_sentences(self, *, batch: Batch | None = None, imported=None) -> list[str]:
        """The methods section's sentences on a batch, or on an import's narratives."""
        return []

    def output_drawing(self, *, assignment: Assignment) -> dict | None:
        """What an item built on the assignment's output shows of it; None: nothing."""
        return None

    def narratives_forget(self, *, narratives) -> None:
        """Delete what the type keeps about `narratives` (the demo's removal)."""

    def proverbs_named(self) -> dict[int, str]:
        """Proverbs the type's rows name where no foreign key protects them: {id: why}."""
        return {}

    def narrative_items(self, *, batch: Batch, narratives: list, answers=None) -> list[dict]:
        """Items of `batch` about `narratives` (BatchItem fields), storing a model's answers
        where the type keeps them (`answers(narrative, options)`: option and label)."""
        return [{"narrative": narrative} for narrative in narratives]


_registry: dict[str, TaskType] = {}


def register(task_type: TaskType) -> TaskType:
    _registry[task_type.key] = task_type
    return task_type


def package_register(package: str) -> TaskType:
    """Register a task-type package's type: the `task_type` of its `task` module (beside it:
    `models.py`, `admin.py`, templates/ and static/)."""
    return register(importlib.import_module(f"{package}.task").task_type)


def package_module_import(package: str, name: str) -> None:
    """Import the package's module `name` (its `models` or `admin`), if it has one, from
    its app's `import_models` or admin module."""
    if importlib.util.find_spec(f"{package}.{name}") is not None:
        importlib.import_module(f"{package}.{name}")


def get(key: str) -> TaskType:
    try:
        return _registry[key]
    except KeyError:
        raise LookupError(f"No task type {key!r} is registered.") from None


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


def keys_drawn() -> list[str]:
    """Keys of the types whose items are drawn (the API's chained-batch create)."""
    return keys_where(lambda task_type: task_type.drawn_items)
