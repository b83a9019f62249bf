"""What the task types' tables share: rows kept in the order they were made, and a
worker's answer stored once for its assignment."""

from django.db import models


class Row(models.Model):
    """A row of a task type's table: when it was made; rows come in id order."""

    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True
        ordering = ["id"]


def answer_of(related_name: str) -> models.OneToOneField:
    """The assignment an answer was submitted for (one answer each)."""
    return models.OneToOneField(
        "crowd.Assignment", on_delete=models.PROTECT, related_name=related_name
    )
