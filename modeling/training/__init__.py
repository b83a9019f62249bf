"""The training core, no Django: hyperparameters, examples and their parts, metrics, the
training loop's helpers, the baselines' registry and the baselines (retrieval, bi-encoder,
classifier, alignment, generation with its copying decoder), the figures results tables
write, paired comparisons, the shipped story set and opt-in checkpoints."""
