"""The "choose the proverb" task type: multiple-choice questions with distractor proverbs,
the workers' answers, human accuracy and aggregation."""
