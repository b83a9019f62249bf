"""The "choose the continuation" task type: which of an option pair's two continuations is
the plausible one; human accuracy against the known answer."""
