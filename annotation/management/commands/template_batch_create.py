"""`manage.py template_batch_create`: the template type's command, in its package (Django
finds commands here only)."""

from annotation.task_types.template.command import Command  # noqa: F401
