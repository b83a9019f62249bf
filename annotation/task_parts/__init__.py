"""What several task types are built from: where drawn items come from, the writing record
of free-text tasks, the free-text rules, subjects of imported answers, option pairs."""
