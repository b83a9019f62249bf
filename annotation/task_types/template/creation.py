"""Creating a template batch from an MTurk HIT template and input CSV (one service for the
admin's form, the API and the command), with the upload's report; a template or CSV
Parable cannot run is refused with the reason before anything is stored.
"""

from __future__ import annotations

from django import forms
from django.db import transaction

from annotation.quality.integrity import IntegritySettings
from annotation.task_types.template.models import HitTemplate, TemplateRow
from annotation.task_types.template.parsing import (
    FREE_TEXT,
    CsvTable,
    TemplateError,
    TemplateInfo,
    coverage_check,
    csv_read,
    render,
    template_read,
    visible_text,
)
from crowd.batches import batch_create
from crowd.forms import BatchForm
from crowd.models import Batch

PREVIEW_ROWS = 3
PREVIEW_CHARACTERS = 300


def upload_read(*, source: str, content: bytes) -> tuple[TemplateInfo, CsvTable, list[str]]:
    """The template and CSV read and checked (TemplateError: refused), with the report's
    lines, as the admin, the API and the command show them."""
    info, table = template_read(source), csv_read(content)
    coverage_check(info, table)
    shapes = {"fragment": "the requester UI's layout", "page": "a whole HTMLQuestion page"}
    extra = [name for name in table.header if name not in info.variables]
    lines = [
        f"Template: {shapes[info.shape]}. CSV: {len(table.rows):,} row(s), {table.encoding}.",
        "Variables, each a column of the CSV: "
        + (", ".join(f"${{{name}}}" for name in info.variables) or "none")
        + ".",
        f"Columns not in the template (kept, exported as Input.*): {', '.join(extra) or 'none'}.",
        "Fields collected (Answer.*): "
        + ", ".join(f"{name} ({found.kind})" for name, found in info.fields.items())
        + ".",
        f"Free-text fields with a writing record: {', '.join(info.names(FREE_TEXT)) or 'none'}.",
    ]
    if info.prechecked():
        checked = ", ".join(f"{name} ({value})" for name, value in info.prechecked().items())
        lines.append(
            f"Warning: radio groups that come checked, which a worker can submit "
            f"untouched: {checked}."
        )
    for number, values in enumerate(table.rows[:PREVIEW_ROWS], 1):
        text = visible_text(render(info.segments, values, runtime=""))
        cut = text[:PREVIEW_CHARACTERS] + ("…" if len(text) > PREVIEW_CHARACTERS else "")
        lines.append(f"Row {number} as a worker reads it: {cut}")
    return info, table, lines


@transaction.atomic
def template_batch_create(
    *,
    name: str,
    source: str,
    content: bytes,
    template_name: str = "",
    integrity: dict | None = None,
    **batch_fields,
) -> tuple[Batch, list[str]]:
    """A draft batch of the template, one item per CSV row, with the upload's report;
    `batch_fields` are crowd.batches.batch_create's (provider, target, reward, ...)."""
    info, table, report = upload_read(source=source, content=content)
    template = HitTemplate.objects.create(
        name=template_name.strip() or name.strip(),
        source=source,
        shape=info.shape,
        segments=info.segments,
        fields=[{"name": name, **found.__dict__} for name, found in info.fields.items()],
        columns=table.header,
        csv_encoding=table.encoding,
    )
    rows = TemplateRow.objects.bulk_create(
        [
            TemplateRow(template=template, position=position, values=values)
            for position, values in enumerate(table.rows, 1)
        ],
        batch_size=2_000,
    )
    settings = {"template": template.pk, "integrity": integrity or {}}
    items = [{"template_row": row} for row in rows]
    batch = batch_create(
        name=name, task_type="template", settings=settings, items=items, **batch_fields
    )
    return batch, report


def upload_text(upload) -> str:
    """An uploaded template's text (UTF-8, a BOM allowed); TemplateError otherwise."""
    try:
        return upload.read().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise TemplateError("The template is not UTF-8 text: save it as UTF-8.") from None


class TemplateBatchForm(BatchForm):
    """A batch of a researcher's own MTurk HIT: the template (either shape MTurk took) and
    its input CSV, one item per row; refused as a whole, with the reason, when Parable
    cannot run them."""

    template_file = forms.FileField(
        label="HIT template (HTML)",
        help_text="The requester UI's layout (HTML with ${variables}) or a whole "
        "HTMLQuestion / ExternalQuestion page with its own form.",
    )
    csv_file = forms.FileField(
        label="Input CSV", help_text="Its header names the variables; each row is one item."
    )
    refuse_paste = forms.BooleanField(required=False, label="Refuse pasted text")
    canary_word = forms.CharField(required=False, max_length=60, label="Canary word")

    field_order = ("name", "template_file", "csv_file")

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        try:
            self.source = upload_text(data["template_file"])
            self.content = data["csv_file"].read()
            self.report = upload_read(source=self.source, content=self.content)[2]
            IntegritySettings.from_dict(self.integrity())
        except (TemplateError, ValueError) as error:
            raise forms.ValidationError(str(error)) from error
        return data

    def integrity(self) -> dict:
        word = (self.cleaned_data.get("canary_word") or "").strip()
        return {"refuse_paste": bool(self.cleaned_data.get("refuse_paste")), "canary_word": word}

    def create(self, *, task_type: str, created_by) -> Batch:
        fields = self.batch_fields()
        del fields["settings"], fields["items"]
        batch, self.report = template_batch_create(
            source=self.source,
            content=self.content,
            template_name=self.cleaned_data["template_file"].name,
            integrity=self.integrity(),
            created_by=created_by,
            **fields,
        )
        return batch

    def created_message(self) -> str:
        return "\n".join(self.report)
