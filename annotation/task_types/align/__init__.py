"""The "align spans" task type: span pairs of a proverb and a narrative, their page, review
display, agreement and results."""
