"""Dataset analysis: records, pure measures, process pool, definitions, plots, cards, selectors."""
