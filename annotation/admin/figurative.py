"""Admin of figurative narratives: a list with an upload of the benchmark's JSONL, an export
link and the near-copy groups. Worker text goes through format_html.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.urls import reverse
from django.utils.html import format_html

from annotation.datasets.figurative import (
    figurative_copy_groups,
    figurative_export_text,
    figurative_import,
    figurative_report_summary,
)
from annotation.datasets.figurative_files import FigurativeFileError
from annotation.intake.uploads import UploadTooLarge, upload_read
from annotation.models import FigurativeNarrative
from annotation.quality.integrity import IntegritySettings, similarity_flags
from annotation.task_parts.review_admin import narrative_with_expression
from crowd.admin.read_only import AdminPages


class FigurativeImportForm(forms.Form):
    file = forms.FileField(help_text="JSONL in the benchmark's layout, one object a line.")
    kind = forms.ChoiceField(choices=FigurativeNarrative.Kind.choices)
    split = forms.ChoiceField(
        choices=[("", "none"), *FigurativeNarrative.Split.choices[1:]], required=False
    )
    labels = forms.ChoiceField(
        choices=[
            ("auto", "given, except for a test split or one answer on every line (withheld)"),
            ("given", "given: correctanswer is each pair's answer"),
            ("withheld", "withheld: store the pairs unlabelled"),
        ],
        initial="auto",
        required=False,
        help_text="The benchmark's test files carry a placeholder correctanswer (option1 on "
        "every line): unlabelled pairs count in no accuracy.",
    )


class CopyGroupFilter(admin.SimpleListFilter):
    """Narratives that are one text published several times (figurative_copy_groups)."""

    title = "near copies"
    parameter_name = "copies"

    def lookups(self, request, model_admin):
        return [
            ("grouped", "In a near-copy group"),
            ("across", "In a group spanning splits"),
            ("alone", "One of a kind"),
        ]

    def queryset(self, request, queryset):
        if not self.value():
            return queryset
        groups = figurative_copy_groups()
        chosen = groups if self.value() != "across" else [g for g in groups if g.across_splits]
        ids = [pk for group in chosen for pk in group.narrative_ids]
        if self.value() == "alone":
            return queryset.exclude(pk__in=ids)
        return queryset.filter(pk__in=ids)


@admin.register(FigurativeNarrative)
class FigurativeNarrativeAdmin(AdminPages, admin.ModelAdmin):
    list_display = (
        "id",
        "kind",
        "expression",
        "split",
        "pairs",
        "literal_use_confirmed",
        "similarity_flags",
    )
    list_filter = ("kind", "split", "literal_use_confirmed", CopyGroupFilter)
    search_fields = ("expression", "text", "meaning")
    readonly_fields = (
        "shown",
        "content_key",
        "expression_start",
        "expression_end",
        "similarity_flags",
    )
    fields = (
        "kind",
        "split",
        "shown",
        "expression",
        "meaning",
        "literal_use_confirmed",
        "similarity_flags",
    )
    change_list_template = "admin/annotation/figurativenarrative/change_list.html"
    pages = (
        ("import/", "import_view", "annotation_figurativenarrative_import"),
        ("copies/", "copies_view", "annotation_figurativenarrative_copies"),
        ("export/<str:kind>/", "export_view", "annotation_figurativenarrative_export"),
    )

    def has_add_permission(self, request) -> bool:
        return False  # narratives come from imports

    @admin.display(description="Similarity")
    def similarity_flags(self, narrative) -> str:
        """The dataset check's flags in words (the near-duplicate names the other story)."""
        if narrative.similarity is None:
            return "— (not checked yet)"
        flags = similarity_flags(narrative.similarity, settings=IntegritySettings())
        return " ".join(f"⚑ {flag.explanation}" for flag in flags) or "No flag"

    def get_list_display(self, request):
        """A narrative of a near-copy group is shown as one of its group, not flagged as a
        near-duplicate of the next copy: the release publishes many texts several times."""
        groups = {pk: group for group in figurative_copy_groups() for pk in group.narrative_ids}
        url = reverse("admin:annotation_figurativenarrative_copies")

        @admin.display(description="Similarity")
        def similarity(narrative):
            group = groups.get(narrative.pk)
            if group is None:
                return self.similarity_flags(narrative)
            return format_html(
                '<a href="{}#group-{}" data-testid="copy-group">Near-copy group {}</a>: one '
                "text in {} narrative(s) ({}){}",
                url,
                group.number,
                group.number,
                len(group.narrative_ids),
                ", ".join(group.splits) or "no split",
                " ⚑ spans splits" if group.across_splits else "",
            )

        return [similarity if name == "similarity_flags" else name for name in self.list_display]

    @admin.display(description="Option pairs")
    def pairs(self, narrative) -> int:
        return narrative.option_pairs.count()

    @admin.display(description="Narrative")
    def shown(self, narrative):
        return narrative_with_expression(narrative, limit=False)

    def import_view(self, request):
        """Upload a JSONL file. Needs the change permission (researchers)."""
        if not self.has_change_permission(request):
            raise PermissionDenied
        form = FigurativeImportForm(request.POST or None, request.FILES or None)
        report, errors = None, []
        if request.method == "POST" and form.is_valid():
            try:
                report = figurative_import(
                    content=upload_read(form.cleaned_data["file"]),
                    kind=form.cleaned_data["kind"],
                    split=form.cleaned_data["split"],
                    labels=form.cleaned_data["labels"] or "auto",
                    filename=form.cleaned_data["file"].name,
                )
            except UploadTooLarge as error:
                messages.error(request, str(error))
            except FigurativeFileError as error:
                errors = [{"line": line, "message": message} for line, message in error.errors]
                messages.error(request, f"Nothing was imported: {error}")
            else:
                messages.success(request, figurative_report_summary(report))
        return self._page(
            request,
            "admin/annotation/figurativenarrative/import.html",
            title="Import figurative narratives",
            form=form,
            report=report,
            errors=errors,
        )

    def copies_view(self, request):
        """The near-copy groups: one row per text published several times, with its
        narratives, expressions and the splits it spans. Needs the view permission."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        kind = request.GET.get("kind") or None
        if kind not in (None, *FigurativeNarrative.Kind.values):
            return HttpResponse("kind is idiom or simile.", status=400)
        groups = figurative_copy_groups(kind=kind)
        changelist = reverse("admin:annotation_figurativenarrative_changelist")
        return self._page(
            request,
            "admin/annotation/figurativenarrative/copies.html",
            title="Near-copy groups",
            groups=[
                (group, f"{changelist}?id__in={','.join(map(str, group.narrative_ids))}")
                for group in groups
            ],
            narratives=sum(len(group.narrative_ids) for group in groups),
            across=sum(group.across_splits for group in groups),
            kind=kind,
        )

    def export_view(self, request, kind: str):
        """The kind's narratives and option pairs as JSONL (?split=train|dev|test: that
        split's, as its imported file was written). Needs the view permission."""
        if not self.has_view_permission(request) or kind not in FigurativeNarrative.Kind.values:
            raise PermissionDenied
        split = request.GET.get("split") or None
        if split not in (None, *FigurativeNarrative.Split.values[1:]):
            return HttpResponse("split is train, dev or test.", status=400)
        text = figurative_export_text(kind=kind, split=split)
        response = HttpResponse(text.encode("utf-8"), content_type="text/plain; charset=utf-8")
        name = f"{kind}_{split}" if split else f"{kind}s"
        response["Content-Disposition"] = f'attachment; filename="{name}.jsonl"'
        return response
