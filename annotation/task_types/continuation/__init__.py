"""The "write continuations" task type: a plausible and an implausible continuation of an
idiom or simile narrative, its qualification test, its page and its report."""
