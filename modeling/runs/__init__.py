"""Runs in the database: snapshots, services and selectors, queueing, the pipeline,
artifacts, and what runs feed back to the crowd (distractors, rate batches)."""
