"""What the template type stores: the researcher's HIT template, the CSV's rows (one batch
item each) and each worker's answer as MTurk records it."""

from django.db import models

from annotation.task_parts.rows import Row, answer_of


class HitTemplate(Row):
    """An MTurk HIT template as uploaded, and what Parable read from it (parsing.py): its
    fields, its variables' places (`segments`) and the CSV's columns. An import of MTurk
    results has one too, with no source: its page is unknown."""

    class Shape(models.TextChoices):
        FRAGMENT = "fragment", "Requester UI layout (an HTML fragment)"
        PAGE = "page", "Whole page (HTMLQuestion / ExternalQuestion)"
        IMPORTED = "imported", "Unknown (answers imported from MTurk's results file)"

    name = models.CharField(max_length=200)
    source = models.TextField(blank=True, help_text="The template as uploaded.")
    shape = models.CharField(max_length=16, choices=Shape.choices)
    segments = models.JSONField(default=list, help_text="The frame document, split at variables.")
    fields = models.JSONField(default=list, help_text="Form fields: [{name, kind, options, ...}].")
    columns = models.JSONField(default=list, help_text="The CSV's header, in its order.")
    csv_encoding = models.CharField(max_length=32, blank=True)

    def __str__(self) -> str:
        return self.name

    def field_names(self, kinds=None) -> list[str]:
        """The form's fields (of these kinds), in the form's order."""
        return [found["name"] for found in self.fields if kinds is None or found["kind"] in kinds]


class TemplateRow(models.Model):
    """One row of the input CSV: the values of a HIT's variables (MTurk's Input.*)."""

    template = models.ForeignKey(HitTemplate, on_delete=models.PROTECT, related_name="rows")
    position = models.PositiveIntegerField(help_text="The row's place in the CSV, from 1.")
    values = models.JSONField()

    class Meta:
        ordering = ["template_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["template", "position"], name="template_row_once")
        ]

    def __str__(self) -> str:
        return f"Row {self.position} of {self.template.name}"


class TemplateAnswer(Row):
    """A worker's submitted form, as MTurk records it (Answer.*: a field's several values
    joined with "|"), the writing record of each free-text field, and how often and how
    long the worker left the page (`away`; none: unknown)."""

    assignment = answer_of("template_answer")
    row = models.ForeignKey(TemplateRow, on_delete=models.PROTECT, related_name="answers")
    answers = models.JSONField(help_text="{field: value}, in the form's order.")
    writing = models.JSONField(default=dict, blank=True)
    away = models.JSONField(null=True, blank=True)
    canary = models.JSONField(null=True, blank=True, help_text="Free-text fields using it.")

    def __str__(self) -> str:
        return f"Answer of assignment {self.assignment_id}"

    def pairs(self) -> list[tuple[str, str]]:
        """The answer's fields in the form's order, then those its scripts added."""
        names = self.row.template.field_names()
        known = [(name, self.answers[name]) for name in names if name in self.answers]
        return known + [(name, value) for name, value in self.answers.items() if name not in names]
