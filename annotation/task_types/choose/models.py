"""What the choose task stores: the questions (a narrative, its proverb and distractors)
and the workers' answers."""

from django.db import models

from annotation.models import Narrative, Proverb
from annotation.task_parts.rows import Row, answer_of


class ChoiceQuestion(Row):
    """Which proverb does this narrative illustrate: the answer and 4 distractors, in order."""

    narrative = models.ForeignKey(
        Narrative, on_delete=models.CASCADE, related_name="choice_questions"
    )
    correct = models.ForeignKey(Proverb, on_delete=models.PROTECT, related_name="+")
    options = models.JSONField(
        help_text="Proverb ids in the order shown, the correct one included."
    )
    distractor_source = models.CharField(max_length=64)
    model_chosen = models.ForeignKey(
        Proverb,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The option a trained model ranks first, when a model answered the question.",
    )
    model_label = models.CharField(max_length=200, blank=True, help_text="Which model answered.")

    def __str__(self) -> str:
        return f"Which proverb: {self.narrative}"


class ChoiceAnswer(Row):
    question = models.ForeignKey(ChoiceQuestion, on_delete=models.CASCADE, related_name="answers")
    assignment = answer_of("choice_answer")
    chosen = models.ForeignKey(Proverb, on_delete=models.PROTECT, related_name="+")
    is_correct = models.BooleanField()

    def __str__(self) -> str:
        return f"{self.chosen.text} (answer to {self.question})"
