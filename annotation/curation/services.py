"""Proverb curation services: import, status changes, variant merge and dismiss."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from annotation.curation.proverb_files import (
    LineError,
    ProverbFileError,
    line_count,
    parse_proverb_file,
)
from annotation.curation.variants import propose_variant_groups
from annotation.models import CurationTarget, Proverb, VariantGroup
from annotation.text import normalize_text


@dataclass
class ImportReport:
    created: int = 0
    duplicates: int = 0
    variant_groups: int = 0
    errors: list[LineError] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "created": self.created,
            "duplicates": self.duplicates,
            "variant_groups": self.variant_groups,
            "errors": [error.as_dict() for error in self.errors],
        }


def proverb_file_check_lines(*, content: bytes) -> None:
    """Raise ProverbFileError when a proverb list has more lines than PARABLE_IMPORT_MAX_LINES."""
    limit = settings.PARABLE_IMPORT_MAX_LINES
    if line_count(content) > limit:
        raise ProverbFileError(
            f"The file has more than {limit:,} lines, the import limit "
            "(PARABLE_IMPORT_MAX_LINES); nothing was imported. Split it into smaller files."
        )


@transaction.atomic
def proverbs_import(
    *, content: bytes, filename: str = "", source: str = "", status: str = Proverb.Status.CANDIDATE
) -> ImportReport:
    """Import a proverb list: good lines are created, duplicates counted, bad lines reported;
    ProverbFileError (nothing written) for an unreadable file or one over
    PARABLE_IMPORT_MAX_LINES lines."""
    proverb_file_check_lines(content=content)
    rows, errors = parse_proverb_file(
        content, filename=filename, max_length=settings.PARABLE_PROVERB_MAX_LENGTH
    )
    report = ImportReport(errors=errors)
    keys = {normalize_text(row.text) for row in rows}
    seen = set(
        Proverb.objects.filter(normalized_text__in=keys).values_list("normalized_text", flat=True)
    )
    new_proverbs = []
    for row in rows:
        key = normalize_text(row.text)
        if not key:
            report.errors.append(LineError(row.line, f"Line {row.line} has no words."))
            continue
        if key in seen:
            report.duplicates += 1
            continue
        seen.add(key)
        new_proverbs.append(
            Proverb(
                text=row.text,
                normalized_text=key,
                source=row.source or source,
                meaning=row.meaning,
                status=status,
            )
        )
    report.errors.sort(key=lambda error: error.line)
    # A demo proverb the researcher's own list names is theirs now.
    Proverb.objects.filter(normalized_text__in=keys, is_demo=True).update(is_demo=False)
    created = Proverb.objects.bulk_create(new_proverbs)
    report.created = len(created)
    if created:
        report.variant_groups = variant_groups_propose(new_ids={proverb.pk for proverb in created})
    return report


def variant_groups_propose(*, new_ids: set[int] | None = None) -> int:
    """Store proposals for groups of likely lexical variants touching `new_ids` (None: all);
    how many are new. A group already proposed (open, merged or dismissed) is never again."""
    candidates = Proverb.objects.exclude(status=Proverb.Status.REJECTED).filter(
        variant_of__isnull=True
    )
    proposals = propose_variant_groups(list(candidates.values_list("id", "text")))
    if new_ids is not None:
        proposals = [p for p in proposals if new_ids.intersection(p.member_ids)]
    keys = {_member_key(p.member_ids): p for p in proposals}
    known = set(
        VariantGroup.objects.filter(member_key__in=keys).values_list("member_key", flat=True)
    )
    created = 0
    for key, proposal in keys.items():
        if key in known:
            continue
        group = VariantGroup.objects.create(member_key=key, score=round(proposal.score, 4))
        group.proverbs.set(proposal.member_ids)
        created += 1
    return created


def _member_key(member_ids) -> str:
    return ",".join(str(member) for member in sorted(member_ids))


@transaction.atomic
def variant_group_merge(*, group: VariantGroup, canonical: Proverb) -> VariantGroup:
    """Keep `canonical` (curated) and record the group's other proverbs as its variants."""
    group = VariantGroup.objects.select_for_update().get(pk=group.pk)
    if group.status != VariantGroup.Status.OPEN:
        raise ValueError(f"This group is already {group.get_status_display().lower()}.")
    members = list(group.proverbs.select_for_update())
    if canonical.pk not in {member.pk for member in members}:
        raise ValueError("The canonical proverb must be one of the group's members.")
    for member in members:
        if member.pk == canonical.pk:
            member.status = Proverb.Status.CURATED
            member.variant_of = None
        else:
            member.status = Proverb.Status.REJECTED
            member.variant_of = canonical
        member.save(update_fields=["status", "variant_of"])
    group.status = VariantGroup.Status.MERGED
    group.canonical = canonical
    group.decided_at = timezone.now()
    group.save(update_fields=["status", "canonical", "decided_at"])
    return group


@transaction.atomic
def variant_group_dismiss(*, group: VariantGroup) -> VariantGroup:
    """Record that the proposed proverbs are distinct; they stay as they were."""
    group = VariantGroup.objects.select_for_update().get(pk=group.pk)
    if group.status != VariantGroup.Status.OPEN:
        raise ValueError(f"This group is already {group.get_status_display().lower()}.")
    group.status = VariantGroup.Status.DISMISSED
    group.decided_at = timezone.now()
    group.save(update_fields=["status", "decided_at"])
    return group


@dataclass(frozen=True)
class StatusChange:
    """How many proverbs changed, and the merged variants a curation left alone."""

    changed: int
    merged_variants: tuple[Proverb, ...] = ()

    def refusal(self) -> str:
        """Why the merged variants were not curated ("" when none were asked for)."""
        if not self.merged_variants:
            return ""
        named = "; ".join(
            f"{variant.text!r} (a variant of {variant.variant_of.text!r})"
            for variant in self.merged_variants[:10]
        )
        more = len(self.merged_variants) - 10
        return (
            f"Not curated: {named}{f' and {more} more' if more > 0 else ''}. A proverb merged "
            "into another as its variant stays out of batches, so that a question never offers "
            "both; its canonical proverb stands for it."
        )


@transaction.atomic
def proverbs_set_status(*, proverb_ids: list[int], status: str) -> StatusChange:
    """Curate or reject proverbs. A proverb merged as a variant is never curated again (the
    result names it): batch pickers would offer it beside its canonical proverb."""
    if status not in Proverb.Status.values:
        raise ValueError(
            f"Unknown status {status!r}; use one of {', '.join(Proverb.Status.values)}."
        )
    proverbs = Proverb.objects.filter(pk__in=proverb_ids)
    merged_variants: tuple[Proverb, ...] = ()
    if status == Proverb.Status.CURATED:
        merged_variants = tuple(
            proverbs.filter(variant_of__isnull=False).select_related("variant_of").order_by("id")
        )
        proverbs = proverbs.filter(variant_of__isnull=True)
    changed = proverbs.exclude(status=status).update(status=status)
    return StatusChange(changed, merged_variants)


@transaction.atomic
def curation_target_set(*, curated_target: int) -> CurationTarget:
    target, _ = CurationTarget.objects.update_or_create(
        pk=1, defaults={"curated_target": curated_target}
    )
    return target


def curation_progress() -> dict:
    """Curated count against the researcher's target (demo proverbs apart), and what is left
    to decide."""
    target = CurationTarget.objects.filter(pk=1).first()
    counts = Proverb.objects.aggregate(
        curated=Count("id", filter=Q(status=Proverb.Status.CURATED, is_demo=False)),
        demo_curated=Count("id", filter=Q(status=Proverb.Status.CURATED, is_demo=True)),
        candidate=Count("id", filter=Q(status=Proverb.Status.CANDIDATE)),
        rejected=Count("id", filter=Q(status=Proverb.Status.REJECTED)),
    )
    return {
        **counts,
        "target": target.curated_target if target else settings.PARABLE_CURATED_TARGET,
        "open_variant_groups": VariantGroup.objects.filter(status=VariantGroup.Status.OPEN).count(),
    }
