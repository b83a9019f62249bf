"""What the gloss task stores: a worker's gloss of a story, in a table of its own (app label
"annotation", as the dataset's own types; the test creates the table, a type of the project
adds a migration)."""

from django.db import models

from annotation.models import Narrative


class Gloss(models.Model):
    narrative = models.ForeignKey(Narrative, on_delete=models.CASCADE, related_name="+")
    assignment = models.OneToOneField(
        "crowd.Assignment", on_delete=models.CASCADE, related_name="gloss"
    )
    text = models.CharField(max_length=200)

    class Meta:
        app_label = "annotation"
        db_table = "sample_gloss"

    def __str__(self) -> str:
        return self.text
