"""The two staff roles: researchers run everything, reviewers review and read."""

from django.contrib.auth.models import Group, Permission
from django.db.models import Q

RESEARCHERS = "Researchers"
REVIEWERS = "Reviewers"
PARABLE_APPS = ("annotation", "crowd", "mturk", "prolific", "modeling")
REVIEW_PERMISSIONS = ("review_narrative", "review_batch")
# Given to a user by name, never with a role: raw provider ids identify people.
GRANTED_ONE_BY_ONE = ("export_raw_worker_ids",)


def groups_ensure() -> None:
    """Create or refresh the role groups and their permissions (idempotent)."""
    in_apps = Q(content_type__app_label__in=PARABLE_APPS) & ~Q(codename__in=GRANTED_ONE_BY_ONE)
    researchers, _ = Group.objects.get_or_create(name=RESEARCHERS)
    researchers.permissions.set(Permission.objects.filter(in_apps))
    reviewers, _ = Group.objects.get_or_create(name=REVIEWERS)
    reviewers.permissions.set(
        Permission.objects.filter(
            in_apps & (Q(codename__startswith="view_") | Q(codename__in=REVIEW_PERMISSIONS))
        )
    )
