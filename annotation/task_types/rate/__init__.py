"""The "rate quality" task type: Likert ratings of narratives or alignments on criteria,
their page, gold ranges, agreement and results."""
