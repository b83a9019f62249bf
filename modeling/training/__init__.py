"""The training core, no Django: examples and their parts, the baselines and their registry,
the training loop, metrics, figures and comparisons, the story sets and opt-in checkpoints."""
