"""Curation of proverbs: import services, lexical-variant grouping, proverb files, the demo data."""
