"""Admin for curation: proverb import and list with the curated target, variant groups."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from annotation.curation.services import (
    ProverbFileError,
    curation_progress,
    proverbs_set_status,
    variant_group_dismiss,
    variant_group_merge,
)
from annotation.datasets.demo import demo_data_remove
from annotation.intake.import_jobs import upload_import
from annotation.intake.uploads import UploadTooLarge, upload_read
from annotation.models import CurationTarget, Proverb, VariantGroup
from crowd.admin.read_only import AdminPages


class ProverbImportForm(forms.Form):
    file = forms.FileField(help_text="Text (one proverb a line) or CSV with text, source, meaning.")
    source = forms.CharField(
        required=False, help_text="Recorded on each proverb; default: file name."
    )


class VariantsInline(admin.TabularInline):
    model = Proverb
    fk_name = "variant_of"
    fields = ("text", "status")
    readonly_fields = ("text", "status")
    extra = 0
    can_delete = False
    verbose_name_plural = "variants merged into this proverb"

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class ProverbForm(forms.ModelForm):
    class Meta:
        model = Proverb
        fields = ("text", "meaning", "source", "status")

    def clean_status(self):
        status = self.cleaned_data["status"]
        if status == Proverb.Status.CURATED and self.instance.variant_of_id:
            raise forms.ValidationError(
                f"This proverb was merged into {self.instance.variant_of.text!r} as its variant: "
                "that proverb stands for it, so it cannot be curated beside it."
            )
        return status


def _status_action(status: str):
    """The list action that marks the selected proverbs `status`."""

    @admin.action(description=f"Mark selected proverbs {status}", permissions=["change"])
    def mark(model_admin, request, queryset):
        change = proverbs_set_status(
            proverb_ids=list(queryset.values_list("pk", flat=True)), status=status
        )
        model_admin.message_user(request, f"{change.changed} proverb(s) marked {status}.")
        if change.merged_variants:
            model_admin.message_user(request, change.refusal(), messages.WARNING)

    return mark


@admin.register(Proverb)
class ProverbAdmin(AdminPages, admin.ModelAdmin):
    form = ProverbForm
    list_display = ("text", "status", "source", "variant_of", "created_at")
    list_filter = ("status", "source")
    search_fields = ("text", "meaning")
    readonly_fields = ("normalized_text", "variant_of", "created_at")
    fields = ("text", "normalized_text", "meaning", "source", "status", "variant_of", "created_at")
    actions = ("mark_curated", "mark_candidate", "mark_rejected")
    inlines = (VariantsInline,)
    change_list_template = "admin/annotation/proverb/change_list.html"
    pages = (
        ("import/", "import_view", "annotation_proverb_import"),
        ("remove-demo/", "remove_demo_view", "annotation_proverb_remove_demo"),
    )

    def save_model(self, request, obj, form, change) -> None:
        from annotation.text import normalize_text

        obj.normalized_text = normalize_text(obj.text)
        super().save_model(request, obj, form, change)

    def changelist_view(self, request, extra_context=None):
        extra_context = {
            **(extra_context or {}),
            "curation": curation_progress(),
            "can_remove_demo": self.has_delete_permission(request),
        }
        return super().changelist_view(request, extra_context=extra_context)

    def remove_demo_view(self, request):
        """GET: what a removal would take and keep, and a button to confirm; POST: remove the
        demo batch, its work and the demo proverbs that can go. Needs delete_proverb."""
        if not self.has_delete_permission(request):
            raise PermissionDenied
        if request.method != "POST":
            return self._page(
                request,
                "admin/annotation/proverb/remove_demo.html",
                title="Remove demo data",
                preview=demo_data_remove(commit=False),
            )
        removed = demo_data_remove()
        messages.success(request, f"Removed {removed.summary()}.")
        if removed.kept:
            messages.warning(
                request, "Kept, because study data uses them: " + "; ".join(removed.kept) + "."
            )
        return redirect("admin:annotation_proverb_changelist")

    def import_view(self, request):
        """Upload a proverb list (needs add_proverb); a large file becomes an import job, whose
        progress page the request is sent to."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = ProverbImportForm(request.POST or None, request.FILES or None)
        report = None
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["file"]
            source = form.cleaned_data["source"] or upload.name.rsplit(".", 1)[0]
            try:
                started = upload_import(
                    kind="proverbs",
                    content=upload_read(upload),
                    filename=upload.name,
                    options={"source": source},
                    created_by=request.user,
                )
                if started.job is not None:
                    messages.info(request, "The file is large: it is imported in the background.")
                    return redirect("admin:annotation_importjob_progress", started.job.pk)
                report = started.report
            except (ProverbFileError, UploadTooLarge) as error:
                messages.error(request, f"Nothing was imported: {error}")
            else:
                messages.success(
                    request,
                    f"Created {report.created} proverb(s); skipped {report.duplicates} "
                    f"duplicate(s); proposed {report.variant_groups} variant group(s).",
                )
                if report.errors:
                    messages.warning(
                        request, f"{len(report.errors)} line(s) were not imported: see below."
                    )
        template = "admin/annotation/proverb/import.html"
        return self._page(request, template, title="Import proverbs", form=form, report=report)

    mark_curated = _status_action(Proverb.Status.CURATED)
    mark_candidate = _status_action(Proverb.Status.CANDIDATE)
    mark_rejected = _status_action(Proverb.Status.REJECTED)


@admin.register(VariantGroup)
class VariantGroupAdmin(AdminPages, admin.ModelAdmin):
    list_display = ("id", "member_list", "score", "status", "created_at", "decide_link")
    list_filter = ("status",)
    search_fields = ("proverbs__text",)
    actions = ("dismiss_groups",)
    pages = (("<int:group_id>/decide/", "decide_view", "annotation_variantgroup_decide"),)

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("proverbs")

    @admin.display(description="Proverbs")
    def member_list(self, group):
        return format_html(
            "<ul style='margin:0'>{}</ul>",
            format_html_join("", "<li>{}</li>", ((p.text,) for p in group.proverbs.all())),
        )

    @admin.display(description="")
    def decide_link(self, group):
        if group.status != VariantGroup.Status.OPEN:
            return ""
        url = reverse("admin:annotation_variantgroup_decide", args=[group.pk])
        return format_html('<a class="button" href="{}">Merge or dismiss</a>', url)

    def has_add_permission(self, request) -> bool:
        return False

    def decide_view(self, request, group_id: int):
        """Merge a group into a chosen canonical proverb, or dismiss it (change permission)."""
        group = get_object_or_404(VariantGroup, pk=group_id)
        if not self.has_change_permission(request, group):
            raise PermissionDenied
        members = list(group.proverbs.all())
        if request.method == "POST":
            try:
                if "dismiss" in request.POST:
                    variant_group_dismiss(group=group)
                    messages.success(request, "Suggestion dismissed; the proverbs stay distinct.")
                else:
                    canonical = get_object_or_404(Proverb, pk=request.POST.get("canonical") or 0)
                    variant_group_merge(group=group, canonical=canonical)
                    messages.success(
                        request,
                        f"Merged: “{canonical.text}” is curated, the others are its variants.",
                    )
            except ValueError as error:
                messages.error(request, str(error))
            return redirect("admin:annotation_variantgroup_changelist")
        template = "admin/annotation/variantgroup/decide.html"
        title = f"Variant group {group.pk}"
        return self._page(request, template, title=title, group=group, members=members)

    @admin.action(description="Dismiss selected suggestions", permissions=["change"])
    def dismiss_groups(self, request, queryset):
        dismissed = 0
        for group in queryset.filter(status=VariantGroup.Status.OPEN):
            variant_group_dismiss(group=group)
            dismissed += 1
        self.message_user(request, f"{dismissed} suggestion(s) dismissed.")


@admin.register(CurationTarget)
class CurationTargetAdmin(admin.ModelAdmin):
    list_display = ("curated_target",)

    def has_add_permission(self, request) -> bool:
        return not CurationTarget.objects.exists() and super().has_add_permission(request)

    def save_model(self, request, obj, form, change) -> None:
        obj.pk = 1
        super().save_model(request, obj, form, change)
