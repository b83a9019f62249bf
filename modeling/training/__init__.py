"""The training core, no Django: hyperparameters, examples and their parts, metrics, the
training loop's helpers, the baselines (retrieval, bi-encoder, classifier, alignment,
generation) and opt-in checkpoints."""
