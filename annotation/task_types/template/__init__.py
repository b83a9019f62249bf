"""The MTurk HIT template task type: a researcher's own HIT template and input CSV run as a
batch in a sandboxed frame, reviewed, agreed on and exported as MTurk's Batch results CSV."""
